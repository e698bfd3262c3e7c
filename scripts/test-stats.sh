#!/usr/bin/env bash
# The tournament statistics against vectors computed independently in Python (standard library
# only) from fishtest's published formulas: the committed vectors must be what the Python computes
# now, and the Rust tests compare the implementation with them.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 tests/stats/vectors.py | diff -u tests/stats/vectors.json -
# --workspace: the feature set of `cargo test --release --workspace`, so CI reuses that build
# (with `-p yomi` alone cargo resolves other features and rebuilds the host: 2.5 minutes).
cargo test --release --workspace --lib tournament::stats
