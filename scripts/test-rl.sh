#!/usr/bin/env bash
# The RL environments of the Python client (yomi_client.envs) against the real release binary:
# Gymnasium's check_env and PettingZoo's api_test and seed_test for every game, and the example
# training loop. Installs the client's `rl` extra from PyPI into a private venv under target/.
set -euo pipefail
cd "$(dirname "$0")/.."
export YOMI_BIN="${YOMI_BIN:-$PWD/target/release/yomi}"
if [[ ! -x "$YOMI_BIN" ]]; then
  cargo build --release --workspace
fi
venv="$PWD/target/rl-test/venv"
if [[ ! -x "$venv/bin/pytest" ]] || ! "$venv/bin/python" -c "import gymnasium, pettingzoo" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --upgrade pip
  "$venv/bin/pip" install --quiet "./clients/python[rl,test]"
fi
"$venv/bin/pip" install --quiet --no-deps --force-reinstall ./clients/python

echo "== RL environments (pytest)"
(cd clients/python && "$venv/bin/pytest" -q -p no:cacheprovider tests/test_envs.py tests/test_envs_encodings.py)

echo "== The example: a tabular agent against stud/fuzzy"
"$venv/bin/python" clients/python/examples/rl_stud.py --steps 300
