#pragma once
// Non-private MixMin: λ* = argmin over Δ_k of F, to high accuracy, on all of split A. The
// reference every DP result is compared with (and the "non-private MixMin" upper-bound baseline).
//
// Solver: exponentiated gradient (entropic mirror descent) from the uniform λ with a
// backtracking step size, stopped when the Frank–Wolfe gap
//     gap(λ) = ⟨∇F(λ), λ⟩ − min_i ∂_i F(λ)  ≥  F(λ) − F(λ*)       (F convex)
// falls to the tolerance. The gap certifies the accuracy, whatever the solver did.
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/mixmin/objective.h"
#include "engine/privacy/ledger.h"

#include <Eigen/Dense>

#include <optional>
#include <string>
#include <vector>

namespace dpmix::mixmin {

struct NonPrivateOptions {
    double gapTolerance = 1e-6;  // stop when the FW gap is at most this
    long long maxIterations = 200000;
    double initialStepSize = 1.0;  // η of the first EG step (then adapted)
    std::string split = "A";       // ledger: the split λ* is fitted on
};

struct NonPrivateResult {
    Eigen::VectorXd lambda;  // λ*
    double loss = 0.0;       // F(λ*)
    double gap = 0.0;        // FW gap at λ*: a certificate F(λ*) − min F <= gap
    long long iterations = 0;
    bool converged = false;            // gap <= tolerance within maxIterations
    std::vector<double> lossHistory;   // F(λ_t), t = 0..iterations (non-private: display only)
    privacy::LedgerEntry ledgerEntry;  // NonPrivate: λ* is fitted on the sensitive split without DP
};

/// The Frank–Wolfe (duality) gap of a point of the simplex.
double frankWolfeGap(const Eigen::VectorXd& lambda, const Eigen::VectorXd& gradient);

/// `weights`: per-example weights of F (empty: the plain mean; user level: UserGroups::
/// userMeanWeights()). Errors name the option (gap-tolerance, max-iterations, ...) or weights.
Result<NonPrivateResult> solveNonPrivateMixMin(const MixtureObjective& objective, const NonPrivateOptions& options = {},
                                               const Eigen::VectorXd& weights = {},
                                               const ProgressCallback& progress = {},
                                               const CancellationToken& cancel = {});

/// Checks per-example weights: one per example, finite, >= 0, summing to 1 (within 1e-9).
Status checkExampleWeights(const Eigen::VectorXd& weights, Eigen::Index examples);

}  // namespace dpmix::mixmin
