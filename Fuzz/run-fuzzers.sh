#!/usr/bin/env bash
# Runs every fuzz target built in Fuzz/.build/release for SECONDS each (make fuzz, make fuzz-smoke), one after
# another, and prints a line per target: executions, exec/s, corpus size, crashes. Each target starts from its
# committed seeds (Fuzz/Corpus/<target>, never written) plus what earlier runs found (Fuzz/.build/corpus/<target>,
# where new inputs go). A crash input is kept in Fuzz/crashes/<target>/ and the script exits 1 once all have run.
# Usage: Fuzz/run-fuzzers.sh SECONDS [TARGET...]; FUZZ_FLAGS adds libFuzzer flags (e.g. -runs=10000000 to stop sooner).
set -uo pipefail

seconds=${1:?usage: $0 SECONDS [TARGET...]}
shift
fuzz_dir=$(cd "$(dirname "$0")" && pwd)
bin_dir=$fuzz_dir/.build/release
if [ $# -gt 0 ]; then targets=("$@"); else
    targets=(); for path in "$bin_dir"/Fuzz*; do [ -x "$path" ] && [ -f "$path" ] && targets+=("$(basename "$path")"); done
fi
[ ${#targets[@]} -gt 0 ] || { echo "no fuzz targets in $bin_dir: run make fuzz" >&2; exit 2; }
# libFuzzer prints a crash's stack with symbols only when it finds llvm-symbolizer.
symbolizer=$(command -v llvm-symbolizer || true)
export ASAN_SYMBOLIZER_PATH=${symbolizer:-$(dirname "$(command -v swift)")/llvm-symbolizer}
# Swift's own crash reporter would catch a trap first and exit without libFuzzer saving the input.
export SWIFT_BACKTRACE=enable=no

failed=()
printf '%-32s %12s %9s %8s %8s %8s\n' target executions exec/s corpus crashes seconds
for target in "${targets[@]}"; do
    corpus=$fuzz_dir/.build/corpus/$target crashes=$fuzz_dir/crashes/$target log=$fuzz_dir/.build/logs/$target.log
    mkdir -p "$corpus" "$crashes" "$(dirname "$log")"
    before=$(find "$crashes" -type f | wc -l)
    start=$(date +%s)
    # -max_len: an enrollment URI may have 8192 bytes, more than any push (the relay's limit is 4096).
    # -timeout: one input taking this long is a hang, reported like a crash.
    "$bin_dir/$target" -max_total_time="$seconds" -max_len=8192 -timeout=25 -print_final_stats=1 \
        -artifact_prefix="$crashes/" ${FUZZ_FLAGS:-} "$corpus" "$fuzz_dir/Corpus/$target" >"$log" 2>&1
    status=$?
    elapsed=$(( $(date +%s) - start ))
    stat() { sed -n "s/^stat::$1: *//p" "$log" | tail -1; }
    found=$(( $(find "$crashes" -type f | wc -l) - before ))
    printf '%-32s %12s %9s %8s %8s %8s\n' "$target" "$(stat number_of_executed_units)" "$(stat average_exec_per_sec)" \
        "$(find "$corpus" -type f | wc -l)" "$found" "$elapsed"
    if [ "$status" -ne 0 ] || [ "$found" -gt 0 ]; then
        failed+=("$target")
        echo "  $target failed (exit $status); log: $log; input kept in $crashes/" >&2
        grep -E -A40 '^==[0-9]+==|Fatal error|SUMMARY' "$log" | head -60 >&2
    fi
done
if [ ${#failed[@]} -gt 0 ]; then echo "fuzzing found crashes in: ${failed[*]}" >&2; exit 1; fi
