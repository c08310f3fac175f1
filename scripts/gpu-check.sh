#!/usr/bin/env bash
# The prepared GPU check (docs/GPU.md), for a machine with a CUDA GPU and PyTorch; about 10
# minutes on 16 cores. Steps, each timed and logged:
#   1. the machine: nvidia-smi, PyTorch's version, CUDA and C++ ABI;
#   2. the headless build (no Qt) against that PyTorch's LibTorch, in build-gpu/ (or GPU_CHECK_BUILD_DIR);
#   3. the engine's unit tests (CPU) and the device test on the GPU
#      (DPMIX_TEST_DEVICE=cuda tst_device_guard: every training stage on cuda);
#   4. the DP-step benchmark on the GPU: DP step / plain step for the reference CNN and MLP,
#      ResNet-18 (GroupNorm) and the transformer, at batch 256 and 1024;
#   5. the Fashion-MNIST demo (scripts/run-demo.sh's run) on cuda and on the CPU: wall time, AUCs.
# Dependencies the machine lacks travel as .gpu-deps/*.deb (scripts/gpu-deps.sh, run beforehand
# where a package archive is reachable) and are unpacked into a private prefix; the demo needs
# data/fashion-mnist/ (scripts/fetch-data.sh). Output: $OUT (or gpu-check/) gets gpu-check.log,
# bench.txt and demo-{cuda,cpu}.json.
#   scripts/gpu-check.sh [--torch-dir DIR] [--device cuda] [--skip-demo]
# GPU_CHECK_BUILD_DIR=DIR builds (incrementally) in DIR instead of build-gpu/.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-check}
mkdir -p "$out"
exec > >(tee "$out/gpu-check.log") 2>&1

device=cuda
torch_dir=""
demo=1
while [ $# -gt 0 ]; do
  case "$1" in
    --torch-dir) torch_dir=$2; shift 2 ;;
    --device) device=$2; shift 2 ;;
    --skip-demo) demo=0; shift ;;
    *) echo "gpu-check: unknown argument '$1'"; exit 2 ;;
  esac
done
build=${GPU_CHECK_BUILD_DIR:-build-gpu}
start=$(date +%s)
step() { echo; echo "=== [$(( $(date +%s) - start )) s] $*"; }
failed=()

step "1. the machine"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>/dev/null || echo "(no nvidia-smi)"
echo "cores: $(nproc)"
if [ -z "$torch_dir" ]; then
  info=$(python3 -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available(),
torch.compiled_with_cxx11_abi(), torch.utils.cmake_prefix_path)' 2>/dev/null) || {
    echo "gpu-check: no PyTorch in python3 and no --torch-dir: nothing to build against"; exit 2; }
  read -r version cuda visible abi prefix <<<"$info"
  echo "PyTorch $version, CUDA $cuda, GPU visible: $visible, C++11 ABI: $abi"
  if [ "$abi" != "True" ]; then
    echo "gpu-check: this PyTorch uses the old C++ ABI; use a cxx11-ABI LibTorch with --torch-dir (docs/GPU.md)"
    exit 2
  fi
  torch_dir=$prefix/Torch
fi
echo "Torch_DIR=$torch_dir"

cmake_args=(-DTorch_DIR="$torch_dir")
if ls .gpu-deps/*.deb >/dev/null 2>&1; then
  step "   unpacking .gpu-deps into a private prefix"
  prefix=/tmp/dpmix-deps
  for deb in .gpu-deps/*.deb; do dpkg -x "$deb" "$prefix"; done
  # The .pc files say prefix=/usr: point them at the private prefix.
  sed -i "s|^prefix=/usr|prefix=$prefix/usr|" "$prefix"/usr/lib/x86_64-linux-gnu/pkgconfig/*.pc \
      "$prefix"/usr/share/pkgconfig/*.pc 2>/dev/null || true
  export PKG_CONFIG_PATH="$prefix/usr/lib/x86_64-linux-gnu/pkgconfig:$prefix/usr/share/pkgconfig:${PKG_CONFIG_PATH:-}"
  export LD_LIBRARY_PATH="$prefix/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
  cmake_args+=(-DCMAKE_PREFIX_PATH="$prefix/usr;$prefix/usr/lib/x86_64-linux-gnu/cmake"
               -DCMAKE_CXX_FLAGS="-isystem $prefix/usr/include -isystem $prefix/usr/include/eigen3")
fi

step "2. headless build against that LibTorch ($build/)"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDPMIX_WITH_GUI=OFF "${cmake_args[@]}" >"$out/configure.txt" 2>&1 \
  || { tail -30 "$out/configure.txt"; echo "gpu-check: configure failed"; exit 1; }
# The heavy-compile pool keeps a 2-core box from swapping; here every core may compile.
cmake --build "$build" -j "$(nproc)" -- -l "$(nproc)" >"$out/build.txt" 2>&1 \
  || { grep -m20 -B2 -A8 "error" "$out/build.txt"; echo "gpu-check: build failed"; exit 1; }
echo "built"
"$build"/bin/dpmix doctor

step "3. the engine's unit tests (CPU), then the device test on $device"
ctest --test-dir "$build" -L unit -j 8 --timeout 600 --output-on-failure >"$out/ctest.txt" 2>&1 || failed+=("unit tests")
grep -E "tests passed|tests failed|Failed|\*\*\*" "$out/ctest.txt" | tail -15
DPMIX_TEST_DEVICE=$device DPMIX_DATA_DIR=$PWD/data "$build"/bin/tests/tst_device_guard || failed+=("device test on $device")

step "4. DP step / plain step on $device"
{
  for batch in 256 1024; do
    "$build"/bin/bench_dp_step --device "$device" --threads "$(nproc)" --batch "$batch" --steps 10
    "$build"/bin/bench_dp_step --device "$device" --threads "$(nproc)" --batch "$batch" --steps 10 --model resnet18
    "$build"/bin/bench_dp_step --device "$device" --threads "$(nproc)" --batch "$batch" --steps 10 --model transformer
  done
} 2>&1 | tee "$out/bench.txt" || failed+=("benchmark")

if [ "$demo" = 1 ]; then
  if [ ! -f data/fashion-mnist/train-images-idx3-ubyte.gz ]; then
    echo "gpu-check: data/fashion-mnist/ is missing (scripts/fetch-data.sh, then carry data/fashion-mnist): no demo"
    failed+=("demo (no data)")
  else
    for d in "$device" cpu; do
      step "5. the Fashion-MNIST demo on $d"
      rm -f "projects/fashion-mnist-$d.dpmix"
      sed "s/\"name\": \"fashion-mnist\"/\"name\": \"fashion-mnist-$d\"/" projects/fashion-mnist.json >"projects/fashion-mnist-$d.json"
      t0=$(date +%s)
      DPMIX_DATA_DIR=$PWD/data "$build"/bin/dpmix --threads "$(nproc)" run "projects/fashion-mnist-$d.json" \
        --stages proxies,mixture,pretrain,finetune,evaluate \
        --methods dpmixmin,uniform,random-search,random-init,nonprivate --tasks "warm clothing" \
        --epsilon 1 --seed 0 --reproducible --proxy-epochs 1 --pretrain-steps 100 --finetune-steps 100 \
        --device "$d" --json >"$out/demo-$d.json" || failed+=("demo on $d")
      echo "demo on $d: $(( $(date +%s) - t0 )) s wall"
      python3 - "$out/demo-$d.json" <<'PY' || true
import json, sys
report = json.load(open(sys.argv[1]))
for run in report.get("downstream", []):
    print(f"  {run['method']:<22} {run['task']:<10} test AUC {run['test_auc']:.4f}")
PY
      rm -f "projects/fashion-mnist-$d.json"
    done
  fi
fi

step "done in $(( $(date +%s) - start )) s"
if [ ${#failed[@]} -gt 0 ]; then
  echo "gpu-check: FAILED: ${failed[*]}"
  exit 1
fi
echo "gpu-check: all steps passed"
