#!/usr/bin/env bash
# The RL environments of the Python client (yomi_client.envs) against the real release binary:
# Gymnasium's check_env and PettingZoo's api_test and seed_test for every game, PettingZoo's
# parallel_api_test and parallel_seed_test for the simultaneous ones, and the example training loop. Installs the client's `rl` extra from PyPI into a private venv under target/.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
use_release_binary
venv="$PWD/target/rl-test/venv"
client_venv "$venv" "rl,test"

echo "== RL environments (pytest)"
(cd clients/python && "$venv/bin/pytest" -q -p no:cacheprovider tests/test_envs.py tests/test_envs_encodings.py tests/test_parallel_env.py)

echo "== The README's RL command as written: a tabular agent against stud/fuzzy"
# Taken from README.md so the two cannot drift, and run as a reader would: the venv's python first
# on PATH and no YOMI_BIN (the client finds this checkout's target/release/yomi).
command=$(grep -oP '`\Kpython clients/python/examples/rl_stud\.py[^`]*' README.md | head -1)
[[ -n $command ]] || { echo "README.md names no \`python clients/python/examples/rl_stud.py ...\` command"; exit 1; }
echo "\$ $command"
(unset YOMI_BIN && PATH="$venv/bin:$PATH" && eval "$command")
