#!/usr/bin/env bash
# Coverage-guided fuzzing of every target of fuzz/ with cargo-fuzz (libFuzzer, nightly Rust).
#
#   scripts/fuzz.sh [SECONDS]   runs each target for SECONDS (default 60), starting from the kept
#                               corpus fuzz/corpus/<target> plus what earlier runs found
#                               (target/fuzz/corpus/<target>, where new inputs go)
#   scripts/fuzz.sh --ci        runs each target for a few seconds on its kept corpus only
#
# Installs cargo-fuzz when it is missing. A crash stops the script with the input saved under
# target/fuzz/artifacts/<target>/: add it to fuzz/corpus/<target>/ as its regression test (the
# stable `cargo test -p yomi-fuzz` runs every corpus file).
set -euo pipefail
cd "$(dirname "$0")/.."

targets=(framing request options transcript plugin_call)
if [[ ${1:-} == --ci ]]; then
    seconds=5 ci=1
else
    seconds=${1:-60} ci=0
fi

command -v cargo-fuzz >/dev/null || cargo install --locked cargo-fuzz
# The plugin libraries the options and plugin_call targets load (plain release builds).
cargo build --release --workspace
fuzz=(cargo +nightly fuzz)
dirs=(--fuzz-dir fuzz/libfuzzer --target-dir target/fuzz)
"${fuzz[@]}" build "${dirs[@]}"

summary=()
for target in "${targets[@]}"; do
    log=target/fuzz/logs/$target.log
    work=target/fuzz/corpus/$target
    if ((ci)); then
        # CI starts from the kept corpus alone, as a fresh checkout would.
        rm -rf "$work"
    fi
    mkdir -p target/fuzz/logs "target/fuzz/artifacts/$target" "$work"
    # New inputs land in the first directory, so the kept corpus is only read.
    corpora=("$work" "fuzz/corpus/$target")
    echo "== $target: $seconds s"
    status=0
    "${fuzz[@]}" run "${dirs[@]}" "$target" "${corpora[@]}" -- \
        -max_total_time="$seconds" -print_final_stats=1 \
        -artifact_prefix="target/fuzz/artifacts/$target/" >"$log" 2>&1 || status=$?
    if ((status)); then
        tail -n 40 "$log" >&2
        echo "fuzz target $target failed; the input is in target/fuzz/artifacts/$target/ (log: $log)" >&2
        exit 1
    fi
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    summary+=("$(printf '%-12s %12s executions %8s/s' "$target" "$runs" "$rate")")
done
printf '%s\n' "${summary[@]}"
