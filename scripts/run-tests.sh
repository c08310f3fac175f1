#!/usr/bin/env bash
# Set up (packages + build), then run every test suite with CTest, then the sanitizer and fuzz
# build's tests. This is what CI runs.
#   scripts/run-tests.sh            # all tests
#   scripts/run-tests.sh -L unit    # extra arguments go to ctest (e.g. a label)
set -euo pipefail
cd "$(dirname "$0")/.."
# Each phase's wall time, printed as it ends and together at the end (CI's log reads them).
phases=()
phase_start=$(date +%s)
phase_done() {
  local seconds=$(( $(date +%s) - phase_start ))
  phases+=("$1 ${seconds} s")
  echo "[tests] phase '$1' took ${seconds} s"
  phase_start=$(date +%s)
}
summary() {
  local status=${1:-$?}  # the script's exit status, kept: an EXIT trap's last command would replace it
  if ((${#phases[@]})); then
    local IFS=','
    echo "[tests] phase times: ${phases[*]}" | sed 's/,/, /g'
  fi
  return $status
}
trap summary EXIT
scripts/setup.sh
phase_done build
# The house style (scripts/check-style.sh, seconds): every C++ file in engine/ app/ widgets/ tests/
# bench/ as clang-format 14 writes it, and no function over 80 lines. Full runs only.
if [ $# -eq 0 ]; then
  scripts/check-style.sh
  phase_done style
fi
# Without arguments every label runs but `journey` (the user journeys in a real window: minutes of
# training on the demo project; scripts/run-journeys.sh runs them, or `scripts/run-tests.sh -L journey`).
ctest_args=("$@")
[ $# -eq 0 ] && ctest_args=(-LE journey)
# The `cluster` tests (docs/CLUSTER.md) need a real Slurm: start the single-node one on this host
# (scripts/slurm-local.sh: apt's slurm-wlm + munge, root) and stop it afterwards if this run
# started it. They then FAIL, never skip, when Slurm is missing (DPMIX_REQUIRE_SLURM=1).
# DPMIX_SKIP_CLUSTER=1 leaves the label out instead.
if [ -n "${DPMIX_SKIP_CLUSTER:-}" ]; then
  ctest_args+=(-LE cluster)
  [ $# -eq 0 ] && ctest_args=(-LE "journey|cluster")
elif [ $# -eq 0 ] || [[ " $* " == *cluster* ]]; then
  if ! scripts/slurm-local.sh status >/dev/null 2>&1; then
    scripts/slurm-local.sh start || { echo "[tests] the local Slurm did not start: the cluster tests cannot run"; exit 1; }
    trap 'rc=$?; scripts/slurm-local.sh stop || true; summary $rc' EXIT
  fi
  export DPMIX_REQUIRE_SLURM=1
fi
echo "[tests] ctest --test-dir build --output-on-failure ${ctest_args[*]}"
QT_QPA_PLATFORM=offscreen ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure --timeout 1200 "${ctest_args[@]}"
phase_done tests

# Then, for a full run (no ctest arguments): the headless tree (DPMIX_WITH_GUI=OFF, docs/GPU.md)
# must configure without Qt — a CMake file that reached for a Qt target there fails here, in
# seconds; building and testing it whole is scripts/headless-build.sh (about as long as the main
# build). Its Qt-free test harness is exercised by the sanitizer build's unit tests below.
if [ $# -eq 0 ]; then
  HEADLESS_DIR=${HEADLESS_BUILD_DIR:-build-headless-check}
  echo "[tests] configuring the headless tree in $HEADLESS_DIR/ (no Qt)"
  rm -rf "$HEADLESS_DIR"
  cmake -S . -B "$HEADLESS_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDPMIX_WITH_GUI=OFF >"${TMPDIR:-/tmp}/dpmix-headless-configure.log" 2>&1 \
    || { cat "${TMPDIR:-/tmp}/dpmix-headless-configure.log"; echo "[tests] the headless tree does not configure"; exit 1; }
  if grep -q "Qt6" "$HEADLESS_DIR/CMakeCache.txt"; then
    echo "[tests] the headless tree looked for Qt"; grep "Qt6" "$HEADLESS_DIR/CMakeCache.txt" | head; exit 1
  fi
  # Its harness and layering check build in seconds (no LibTorch translation unit).
  cmake --build "$HEADLESS_DIR" --target tst_layering tst_headless_harness headless_harness_failures
  ctest --test-dir "$HEADLESS_DIR" --output-on-failure -R "tst_layering|headless_harness"
  rm -rf "$HEADLESS_DIR"
  phase_done headless
fi

# Then, for a full run (no ctest arguments), the sanitizer build: clang with ASan + UBSan, the
# libFuzzer harnesses (label fuzz, DPMIX_FUZZ_SECONDS each) and the torch-free modules' unit
# tests (docs/DEVELOPING.md, "Fuzzing"). DPMIX_SKIP_FUZZ=1 skips it.
if [ $# -eq 0 ] && [ -z "${DPMIX_SKIP_FUZZ:-}" ]; then
  FUZZ_DIR=${FUZZ_BUILD_DIR:-build-fuzz}
  if [ ! -f "$FUZZ_DIR/build.ninja" ]; then
    echo "[tests] configuring the sanitizer + fuzz build in $FUZZ_DIR/"
    CXX=clang++ cmake -S . -B "$FUZZ_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDPMIX_FUZZ=ON
  fi
  cmake --build "$FUZZ_DIR" -j "$(nproc)"
  phase_done "sanitizer build"
  echo "[tests] ctest --test-dir $FUZZ_DIR (ASan + UBSan unit tests, then the fuzzers)"
  QT_QPA_PLATFORM=offscreen ctest --test-dir "$FUZZ_DIR" --output-on-failure --timeout 1200 -LE fuzz -j "$(nproc)"
  phase_done "sanitizer tests"
  ctest --test-dir "$FUZZ_DIR" --output-on-failure -L fuzz
  phase_done fuzz
fi
