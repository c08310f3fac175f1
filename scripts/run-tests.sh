#!/usr/bin/env bash
# Set up (packages + build), then run every test suite with CTest. This is what CI runs.
#   scripts/run-tests.sh            # all tests
#   scripts/run-tests.sh -L unit    # extra arguments go to ctest (e.g. a label)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
echo "[tests] ctest --test-dir build --output-on-failure $*"
QT_QPA_PLATFORM=offscreen ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure --timeout 1200 "$@"
