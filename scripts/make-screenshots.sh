#!/usr/bin/env bash
# Renders the workbench's result views of the Fashion-MNIST demo project into
# docs/screenshots/*.png (offscreen, no display needed).
#
#   scripts/make-screenshots.sh [BUILD_DIR]        (default: build)
#
# The demo project is made when missing (`dpmix run projects/fashion-mnist.json`, a few
# minutes); a copy under BUILD_DIR/screenshots-demo then gets the mixture stage at several ε so
# the privacy–utility view has a curve. projects/fashion-mnist.dpmix itself is not modified.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
dpmix="$build/bin/dpmix"
workbench="$build/bin/dpmix-workbench"
for program in "$dpmix" "$workbench"; do
    [[ -x "$program" ]] || { echo "make-screenshots: $program is missing; build it first" >&2; exit 1; }
done

project="$root/projects/fashion-mnist.dpmix"
if [[ ! -f "$project" ]]; then
    echo "make-screenshots: making the demo project $project"
    "$dpmix" run "$root/projects/fashion-mnist.json" --seed 0 --proxy-epochs 1
fi

demo_dir="$build/screenshots-demo"
demo="$demo_dir/fashion-mnist.dpmix"
if [[ ! -f "$demo" ]]; then
    mkdir -p "$demo_dir"
    cp "$project" "$demo.tmp"
    [[ -d "${project%.dpmix}.models" ]] && cp -r "${project%.dpmix}.models" "$demo_dir/"
    mv "$demo.tmp" "$demo"
    echo "make-screenshots: adding ε = 0.25, 0.5, 2, 4 (seed 0) to the copy for the trade-off view"
    "$dpmix" run "$demo" --stages proxies,mixture --epsilon 0.25,0.5,2,4 --seeds 0 --proxy-epochs 1
fi

out="$root/docs/screenshots"
mkdir -p "$out"
export QT_QPA_PLATFORM=offscreen
export XDG_CONFIG_HOME="$build/screenshots-config"  # fresh window layout, not the user's
for view in lambda ledger trajectory tradeoff; do
    "$workbench" --read-only "$demo" --screenshot "$out/workbench-$view.png" --view "$view"
    echo "make-screenshots: wrote $out/workbench-$view.png"
done
