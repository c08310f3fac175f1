#!/usr/bin/env bash
# Makes the demo project and the copy the screenshots and the journeys read, when missing:
# projects/fashion-mnist.dpmix (`dpmix run projects/fashion-mnist.json`, a few CPU minutes), then
# BUILD_DIR/screenshots-demo/fashion-mnist.dpmix, a copy with its models and the mixture stage
# at ε = 0.25, 0.5, 2, 4 (seed 0), so the privacy–utility view has a curve. The demo project itself
# is never modified.
#
#   scripts/demo-copy.sh [BUILD_DIR]      (default: build)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
dpmix="$build/bin/dpmix"
[[ -x "$dpmix" ]] || { echo "demo-copy: $dpmix is missing; build it first (ninja -C $build dpmix)" >&2; exit 1; }

project="$root/projects/fashion-mnist.dpmix"
if [[ ! -f "$project" ]]; then
    echo "demo-copy: making the demo project $project"
    (cd "$root" && "$dpmix" run "$root/projects/fashion-mnist.json" --seed 0 --proxy-epochs 1)
fi
demo_dir="$build/screenshots-demo"
demo="$demo_dir/fashion-mnist.dpmix"
if [[ ! -f "$demo" ]]; then
    mkdir -p "$demo_dir"
    cp "$project" "$demo.tmp"
    [[ -d "${project%.dpmix}.models" ]] && cp -r "${project%.dpmix}.models" "$demo_dir/"
    mv "$demo.tmp" "$demo"
    echo "demo-copy: adding ε = 0.25, 0.5, 2, 4 (seed 0) to the copy for the trade-off view"
    "$dpmix" run "$demo" --stages proxies,mixture --epsilon 0.25,0.5,2,4 --seed 0 --proxy-epochs 1
fi
