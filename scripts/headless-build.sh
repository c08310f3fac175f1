#!/usr/bin/env bash
# The headless build (docs/GPU.md): engine, dpmix, dpmix-text, benchmarks and the engine's tests,
# without Qt — CMake does not look for it. Configures BUILD_DIR (default build-headless), builds,
# and runs the tests (label unit and statistical; the data tests skip without scripts/fetch-data.sh).
#   scripts/headless-build.sh                                   # Debian's LibTorch
#   scripts/headless-build.sh build-gpu -DTorch_DIR=/opt/libtorch/share/cmake/Torch
#   HEADLESS_CTEST_ARGS="-L unit" scripts/headless-build.sh     # a subset of the tests
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build-headless}
shift || true
start=$(date +%s)
if [ ! -f "$build_dir/build.ninja" ]; then
  echo "[headless] configuring $build_dir (DPMIX_WITH_GUI=OFF $*)"
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDPMIX_WITH_GUI=OFF "$@"
fi
cmake --build "$build_dir"
echo "[headless] built in $(( $(date +%s) - start )) s"
# Nothing Qt may have crept in: no executable of the tree links a Qt library.
if command -v ldd >/dev/null; then
  qt=$(for f in "$build_dir"/bin/* "$build_dir"/bin/tests/*; do
         if [ -f "$f" ] && [ -x "$f" ] && ldd "$f" 2>/dev/null | grep -q libQt6; then echo "$f"; fi
       done)
  if [ -n "$qt" ]; then echo "[headless] ERROR: linked against Qt: $qt"; exit 1; fi
  echo "[headless] no executable links Qt"
fi
# shellcheck disable=SC2086
ctest --test-dir "$build_dir" --output-on-failure --timeout 1200 ${HEADLESS_CTEST_ARGS:-}
echo "[headless] finished in $(( $(date +%s) - start )) s"
