#!/usr/bin/env bash
# Downloads, here, the Debian packages the headless build needs besides LibTorch into .gpu-deps/
# (git-ignored), so they can travel to a GPU machine that cannot reach a package archive;
# scripts/gpu-check.sh unpacks them into a private prefix there (docs/GPU.md).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .gpu-deps
packages=(libeigen3-dev libsqlite3-dev libsqlite3-0 libboost1.74-dev nlohmann-json3-dev libcli11-dev libstb-dev libstb0
          libsentencepiece-dev libsentencepiece0 libprotobuf-lite32 libsodium-dev libsodium23 libssl-dev libssl3
          libfftw3-dev libfftw3-double3 libfftw3-single3 libfftw3-long3 libfftw3-quad3 libfftw3-bin zlib1g-dev
          libgdcm-dev libgdcm3.0 libcharls2 libjson-c5 libopenjp2-7 libsocket++1
          libgloo-dev)  # Gloo's headers for engine/distributed (its code comes with LibTorch)
(cd .gpu-deps && apt-get download "${packages[@]}")
du -sh .gpu-deps
