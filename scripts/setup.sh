#!/usr/bin/env bash
# One-command set-up on Debian 12: install the packages dpmix needs, then configure and build
# Release into build/. Idempotent: installs only what is missing, rebuilds only what changed.
#   scripts/setup.sh            # packages + build
#   scripts/setup.sh --no-build # packages only
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }

PACKAGES=(
  build-essential cmake ninja-build pkg-config
  qt6-base-dev qt6-base-dev-tools qt6-svg-dev libqt6svg6 libgl-dev
  libqcustomplot-dev libqcustomplot2.1-qt6
  libtorch-dev libopenblas0-pthread          # OpenBLAS: Debian's torch otherwise uses the ~10x slower reference BLAS
  libeigen3-dev libsqlite3-dev sqlite3 libboost-dev nlohmann-json3-dev libcli11-dev
  libstb-dev libsentencepiece-dev zlib1g-dev
  libsodium-dev                              # ChaCha20 + OS entropy: the secret randomness of DP mechanisms
  libssl-dev                                 # AES-256-CTR (libcrypto): the secret key stream with AES-NI
  libfftw3-dev                               # FFT convolutions of the PRV accountant
  libgdcm-dev                                # DICOM files and their codecs: the dicom loader (docs/DATA.md)
  libgloo-dev                                # the headers of c10d's Gloo process group: data-parallel DP-SGD (engine/distributed)
  xvfb xauth fonts-dejavu-core               # headless GUI tests and screenshots with real glyphs
  file dpkg-dev                              # cpack -G DEB
  clang libclang-rt-14-dev                   # libFuzzer + sanitizers: the fuzz build (docs/DEVELOPING.md, "Fuzzing")
  ccache lld                                 # build speed: reused objects across clones, a faster linker
  clang-format-14 universal-ctags            # the style check (scripts/check-style.sh): formatting, function lengths
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  say "installing ${#missing[@]} Debian package(s): ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  say "all ${#PACKAGES[@]} Debian packages already installed"
fi

# Make sure torch picks up OpenBLAS, not the reference BLAS (docs/DEVELOPING.md, "BLAS and malloc").
blas=$(readlink -f /etc/alternatives/libblas.so.3-x86_64-linux-gnu 2>/dev/null || true)
say "libblas.so.3 -> ${blas:-unknown}"
case "$blas" in
  *openblas*) ;;
  *) say "WARNING: libblas.so.3 is not OpenBLAS; run: update-alternatives --config libblas.so.3-x86_64-linux-gnu" ;;
esac

[ "${1:-}" = "--no-build" ] && exit 0

BUILD_DIR=${BUILD_DIR:-build}
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  say "configuring Release build in $BUILD_DIR/"
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release
fi
targets=()
for t in "$@"; do targets+=(--target "$t"); done
have_ccache=""; command -v ccache >/dev/null && have_ccache=1
[ -n "$have_ccache" ] && ccache --zero-stats >/dev/null
say "building ${*:-everything} with $(nproc) job(s)"
start=$(date +%s)
cmake --build "$BUILD_DIR" -j "$(nproc)" "${targets[@]}"
say "build done in $(( $(date +%s) - start )) s; programs are in $BUILD_DIR/bin/"
if [ -n "$have_ccache" ]; then
  say "ccache: $(ccache --print-stats | awk -F'\t' '$1 ~ /^(direct|preprocessed)_cache_hit$/ {h += $2} $1 == "cache_miss" {m = $2} END {printf "%d compiles reused, %d compiled", h, m}')"
fi
