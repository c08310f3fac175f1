#!/usr/bin/env bash
# Set up (packages + build), then run every test suite with CTest, then the sanitizer and fuzz
# build's tests. This is what CI runs.
#   scripts/run-tests.sh            # all tests
#   scripts/run-tests.sh -L unit    # extra arguments go to ctest (e.g. a label)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
echo "[tests] ctest --test-dir build --output-on-failure $*"
QT_QPA_PLATFORM=offscreen ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure --timeout 1200 "$@"

# Then, for a full run (no ctest arguments), the sanitizer build: clang with ASan + UBSan, the
# libFuzzer harnesses (label fuzz, DPMIX_FUZZ_SECONDS each) and the torch-free modules' unit
# tests (docs/DEVELOPING.md, "Fuzzing"). DPMIX_SKIP_FUZZ=1 skips it.
if [ $# -eq 0 ] && [ -z "${DPMIX_SKIP_FUZZ:-}" ]; then
  FUZZ_DIR=${FUZZ_BUILD_DIR:-build-fuzz}
  if [ ! -f "$FUZZ_DIR/build.ninja" ]; then
    echo "[tests] configuring the sanitizer + fuzz build in $FUZZ_DIR/"
    CXX=clang++ cmake -S . -B "$FUZZ_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDPMIX_FUZZ=ON
  fi
  start=$(date +%s)
  cmake --build "$FUZZ_DIR" -j "$(nproc)"
  echo "[tests] sanitizer build done in $(( $(date +%s) - start )) s"
  echo "[tests] ctest --test-dir $FUZZ_DIR (ASan + UBSan unit tests, then the fuzzers)"
  QT_QPA_PLATFORM=offscreen ctest --test-dir "$FUZZ_DIR" --output-on-failure --timeout 1200 -LE fuzz -j "$(nproc)"
  ctest --test-dir "$FUZZ_DIR" --output-on-failure -L fuzz
fi
