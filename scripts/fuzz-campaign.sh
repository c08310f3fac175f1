#!/usr/bin/env bash
# A long fuzzing campaign: each libFuzzer harness of build-fuzz/ for RUNS executions in total,
# split over two jobs on two workers, at the lowest CPU priority (so other work on the machine
# keeps its speed), from its seed corpus plus what earlier runs found. Prints one line per
# harness: executions, seconds, and the outcome (clean, or the crash/leak/timeout artifact).
#
#   scripts/fuzz-campaign.sh [RUNS] [BUILD_DIR] [HARNESS...]
#   scripts/fuzz-campaign.sh 1000000                       # all seven, 10^6 each
#   scripts/fuzz-campaign.sh 200000 build-fuzz fuzz_csv    # one harness
#
# Needs a configured and built sanitizer tree (docs/DEVELOPING.md, "Fuzzing and sanitizers").
# The per-input timeout is 25 s, above CI's 10 s, because the campaign shares the machine.
set -euo pipefail

runs=${1:-1000000}
build=${2:-build-fuzz}
shift $(($# > 2 ? 2 : $#))
harnesses=("$@")
[[ ${#harnesses[@]} -gt 0 ]] || harnesses=(fuzz_project_open fuzz_spec_json fuzz_idx fuzz_csv fuzz_jsonl fuzz_email fuzz_dicom)

source_dir=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$build" && pwd)
declare -A corpus=([fuzz_spec_json]=spec_json [fuzz_idx]=idx [fuzz_csv]=csv [fuzz_jsonl]=jsonl
                   [fuzz_email]=email [fuzz_project_open]=project [fuzz_dicom]=dicom)
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

status=0
for h in "${harnesses[@]}"; do
    binary=$build/bin/fuzz/$h
    [[ -x $binary ]] || { echo "$h: no binary at $binary (build $build first)" >&2; exit 2; }
    work=$build/fuzz/$h/campaign
    rm -rf "$work" && mkdir -p "$work" "$build/fuzz/$h/corpus"
    start=$(date +%s)
    # Two jobs of runs/2 each; libFuzzer writes job N's output to fuzz-N.log in the working folder.
    (cd "$work" && nice -n 19 "$binary" -jobs=2 -workers=2 -runs=$((runs / 2)) -timeout=25 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$work/" "$build/fuzz/$h/corpus" \
        "$source_dir/tests/fuzz/corpus/${corpus[$h]}" >/dev/null 2>&1) || true
    seconds=$(($(date +%s) - start))
    executed=$(cat "$work"/fuzz-*.log | sed -n 's/^stat::number_of_executed_units: //p' | paste -sd+ | bc)
    artifacts=$(find "$work" -maxdepth 1 \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
                -o -name 'oom-*' -o -name 'slow-unit-*' \) -printf '%f ' || true)
    outcome=clean
    if [[ -n $artifacts ]] || grep -q "ERROR: \(AddressSanitizer\|LeakSanitizer\|libFuzzer\)\|runtime error:" "$work"/fuzz-*.log; then
        outcome="FOUND: ${artifacts:-see $work/fuzz-*.log}"
        status=1
    fi
    printf '%-18s %10s executions  %6s s  %s\n' "$h" "${executed:-0}" "$seconds" "$outcome"
done
exit $status
