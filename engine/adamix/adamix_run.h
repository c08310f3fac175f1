#pragma once
// A whole AdaMix-R run (or one of its baselines and ablations, by the params' options): the
// public start θ₀, T steps of adamix_step.h, and the accounting — the run's ledger entry is
// recorded BEFORE the first private step (so a run cancelled or killed midway has spent at most
// what it recorded), and the number of Gaussian-mechanism invocations is checked against the
// plan at the end. docs/ADAMIX.md.
#include "engine/adamix/labelled_features.h"
#include "engine/adamix/params.h"
#include "engine/adamix/softmax_head.h"
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/privacy/ledger.h"

#include <Eigen/Dense>

#include <vector>

namespace dpmix::adamix {

struct AdamixResult {
    HeadMatrix theta;                    // θ_T, the released head (the last iterate)
    HeadMatrix theta0;                   // the start (public fit or zero): public, no privacy cost
    HeadFit publicFit;                   // how the public fit went (empty for a zero start)
    std::vector<double> clips;           // C_t per step
    std::vector<int> subspaceRanks;      // r_eff per step (d without projection)
    long long mechanismInvocations = 0;  // Gaussian releases made (= steps)
    privacy::LedgerEntry ledgerEntry;
    double sigma = 0.0;    // noise multiplier used (0 for the zero-noise control)
    double epsilon = 0.0;  // dataset-level ε of the ledger entry (+inf without noise)
    double delta = 0.0;
    /// Σ_t ‖ĥ_{i,t}‖² / C_t² per private example (full batch only; empty when q < 1): the input
    /// of the per-example ε estimate (per_example_privacy.h).
    Eigen::VectorXd normRatioSums;
};

/// The ledger entry a run with these parameters records: the Gaussian of (q, σ, T) with the
/// chosen accountant, stage "adamix", unit example; NonPrivate for the zero-noise control.
privacy::LedgerEntry plannedLedgerEntry(const AdamixParams& params);

/// Runs AdaMix-R. `params` must come from AdamixParamsBuilder::build(n, m) for these sets (the
/// counts, the class count and the feature dimension are checked). On cancellation
/// dpmix::Cancelled is thrown after the ledger entry was recorded.
Result<AdamixResult> runAdamix(const LabelledFeatures& publicSet, const LabelledFeatures& privateSet,
                               const AdamixParams& params, privacy::Ledger* ledger = nullptr,
                               const ProgressCallback& progress = {}, const CancellationToken& cancel = {});

}  // namespace dpmix::adamix
