#!/usr/bin/env bash
# Set up (packages + build + data), then run the main job: the Fashion-MNIST demo study —
# proxy on public data, DP-MixMin at ε = 1 against λ*, then all five methods (DP-MixMin, Uniform,
# Random Search, Random Init, non-private MixMin) pretrained and DP fine-tuned on one sensitive
# task, with their test AUCs. Everything is stored in projects/fashion-mnist.dpmix.
#   scripts/run-demo.sh                # the demo (one task, one seed, ε = 1)
#   DEMO_TASKS= scripts/run-demo.sh    # every task of the spec
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/fetch-data.sh
B=${BUILD_DIR:-build}/bin/dpmix
"$B" doctor
tasks=${DEMO_TASKS-warm clothing}
start=$(date +%s)
"$B" run projects/fashion-mnist.json \
  --stages proxies,mixture,pretrain,finetune,evaluate \
  --methods dpmixmin,uniform,random-search,random-init,nonprivate \
  ${tasks:+--tasks "$tasks"} --epsilon 1 --seed 0 --reproducible \
  --proxy-epochs 1 --pretrain-steps 100 --finetune-steps 100
echo "[demo] finished in $(( $(date +%s) - start )) s; inspect it with: $B inspect projects/fashion-mnist.dpmix"
