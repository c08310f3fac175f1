#!/usr/bin/env bash
# Renders the workbench's result views of a finished project into docs/screenshots/*.png
# (offscreen, no display needed).
#
#   scripts/make-screenshots.sh [BUILD_DIR] [PROJECT.dpmix]     (default: build, the demo)
#
# With PROJECT (e.g. a finished demo project with downstream runs, audits and a k-scaling
# experiment) every view is rendered from it, opened read-only. Without it, the Fashion-MNIST
# demo project is made when missing (`dpmix run projects/fashion-mnist.json`, a few minutes); a
# copy under BUILD_DIR/screenshots-demo then gets the mixture stage at several ε so the
# privacy–utility view has a curve. Neither project file is modified.
# A view the project has no data for shows its empty state; its picture is not written, so
# docs/screenshots keeps the previous one (the script says which). VIEWS="audit kscaling"
# renders only those views (e.g. from a project that holds just an audit).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
given_project="${2:-}"
if [[ -n "$given_project" ]]; then
    [[ -f "$given_project" ]] || { echo "make-screenshots: project $given_project does not exist" >&2; exit 1; }
    given_project="$(cd "$(dirname "$given_project")" && pwd)/$(basename "$given_project")"
fi
dpmix="$build/bin/dpmix"
workbench="$build/bin/dpmix-workbench"
programs=("$workbench")
[[ -n "$given_project" ]] || programs+=("$dpmix")  # only the demo needs making
for program in "${programs[@]}"; do
    [[ -x "$program" ]] || { echo "make-screenshots: $program is missing; build it first" >&2; exit 1; }
done

project="$root/projects/fashion-mnist.dpmix"
demo="${given_project:-$build/screenshots-demo/fashion-mnist.dpmix}"
[[ -n "$given_project" ]] || "$root/scripts/demo-copy.sh" "$build"

out="$root/docs/screenshots"
mkdir -p "$out"
export QT_QPA_PLATFORM=offscreen
export XDG_CONFIG_HOME="$build/screenshots-config"  # fresh window layout, not the user's
staging="$(mktemp -d)"
trap 'rm -rf "$staging"' EXIT
for view in ${VIEWS:-lambda ledger trajectory tradeoff auc audit kscaling run-details panel}; do
    "$workbench" --read-only "$demo" --screenshot "$staging/$view.png" --view "$view" 2> "$staging/$view.log" || {
        cat "$staging/$view.log" >&2
        exit 1
    }
    if grep -q "shows its empty state" "$staging/$view.log"; then
        echo "make-screenshots: $view: no data in $demo (empty state); kept $out/workbench-$view.png as it was"
        continue
    fi
    mv "$staging/$view.png" "$out/workbench-$view.png"
    echo "make-screenshots: wrote $out/workbench-$view.png"
done

# The trust verdict of the demo project and of its DP release (scripts/run-demo.sh exports it).
release="$root/projects/fashion-mnist-release.dpmix"
if [[ -z "$given_project" && -f "$project" ]]; then
    "$workbench" --read-only "$project" --screenshot "$out/trust-project.png" --view main 2> /dev/null &&
        echo "make-screenshots: wrote $out/trust-project.png"
    if [[ -f "$release" ]]; then
        "$workbench" "$release" --screenshot "$out/trust-release.png" --view main 2> /dev/null &&
            echo "make-screenshots: wrote $out/trust-release.png"
    else
        echo "make-screenshots: no $release (scripts/run-demo.sh exports it); kept trust-release.png as it was"
    fi
fi
