#!/usr/bin/env bash
# The tournament statistics against vectors computed independently in Python (standard library
# only) from fishtest's published formulas: the committed vectors must be what the Python computes
# now, and the Rust tests compare the implementation with them.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 tests/stats/vectors.py | diff -u tests/stats/vectors.json -
cargo test --release -p yomi --lib tournament::stats
