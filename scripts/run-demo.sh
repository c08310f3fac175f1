#!/usr/bin/env bash
# Set up (packages + build), then run the main job. For now: the privacy calculator on the
# worked example of the README (noise for DP-MixMin's mixture step, and the ε it spends).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
B=${BUILD_DIR:-build}/bin/dpmix
echo
echo "== dpmix doctor"; "$B" doctor
echo
echo "== noise for the mixture step: ε = 1, δ = 1e-5, batch 1000 of 5000 (q = 0.2), 100 steps"
"$B" privacy sigma --epsilon 1 --delta 1e-5 --q 0.2 --steps 100
echo
echo "== ε spent by DP-SGD: q = 0.01, σ = 1.0, 1000 steps, δ = 1e-6"
"$B" privacy epsilon --q 0.01 --sigma 1.0 --steps 1000 --delta 1e-6
echo
echo "== Dirichlet-mechanism scale r* for ε = 1 (MNIST setting of Rao et al. 2026, Table 7)"
"$B" privacy dirichlet-r --epsilon 1 --delta 1e-5 --alpha 3 --q 0.004166666666666667 --steps 9600
echo
echo "== audit: no errors in 1000 + 1000 runs bounds ε from below by"
"$B" privacy audit-bound --fp 0 --fn 0 --negatives 1000 --positives 1000 --delta 1e-5
