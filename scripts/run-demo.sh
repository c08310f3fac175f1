#!/usr/bin/env bash
# Set up (packages + build + data), then run the main job: the Fashion-MNIST demo study —
# proxy on public data, DP-MixMin at ε = 1 against λ*, then all five methods (DP-MixMin, Uniform,
# Random Search, Random Init, non-private MixMin) pretrained and DP fine-tuned on one sensitive
# task, with their test AUCs. Everything is stored in projects/fashion-mnist.dpmix. Those runs are
# seeded (reproducible: their figures can be re-derived, so they are no release); a last
# DP-MixMin run with secret randomness is then exported as the DP release
# projects/fashion-mnist-release.dpmix (docs/PRIVACY.md, "Trust boundary").
#   scripts/run-demo.sh                # the demo (one task, one seed, ε = 1)
#   DEMO_TASKS= scripts/run-demo.sh    # every task of the spec
# It builds only the command line first (the tests build in scripts/run-tests.sh), runs the demo,
# and then builds the workbench that opens its project.
set -euo pipefail
cd "$(dirname "$0")/.."
begin=$(date +%s)
scripts/setup.sh dpmix
built=$(date +%s)
DPMIX_FETCH_ONLY=fashion-mnist scripts/fetch-data.sh  # the demo's data only; scripts/fetch-data.sh fetches the rest
B=${BUILD_DIR:-build}/bin/dpmix
"$B" doctor
tasks=${DEMO_TASKS-warm clothing}
start=$(date +%s)
"$B" run projects/fashion-mnist.json \
  --stages proxies,mixture,pretrain,finetune,evaluate \
  --methods dpmixmin,uniform,random-search,random-init,nonprivate \
  ${tasks:+--tasks "$tasks"} --epsilon 1 --seed 0 --reproducible \
  --proxy-epochs 1 --pretrain-steps 100 --finetune-steps 100
# A DP release: one mixture run with secret randomness (the default), exported alone.
"$B" run projects/fashion-mnist.dpmix --stages proxies,mixture --methods dpmixmin \
  ${tasks:+--tasks "$tasks"} --epsilon 1 --seed 0 --proxy-epochs 1
release_run=$("$B" inspect projects/fashion-mnist.dpmix --json | python3 -c \
  'import json,sys; runs=json.load(sys.stdin)["runs"]; print([r["id"] for r in runs if r["method"]=="dp-mixmin" and r["config"].get("randomness")=="secret"][-1])')
"$B" export-release projects/fashion-mnist.dpmix --runs "$release_run" -o projects/fashion-mnist-release.dpmix --force
done_at=$(date +%s)
echo "[demo] results in $(( done_at - begin )) s: set-up and build $(( built - begin )) s, data $(( start - built )) s, demo $(( done_at - start )) s"
echo "[demo] inspect it with: $B inspect projects/fashion-mnist.dpmix"
# The workbench, to open the project point-and-click (a few more minutes on a first build).
scripts/setup.sh dpmix-workbench
echo "[demo] open it with: ${BUILD_DIR:-build}/bin/dpmix-workbench projects/fashion-mnist.dpmix"
