#pragma once
// DP-MixMin: differentially private mixture learning by noisy entropic mirror descent on the
// simplex (docs/ALGORITHMS.md A.3 Algorithm 1, example level; A.4 Algorithm 2, user level).
//
// Each step: Poisson-sample units with rate q; per unit the closed-form gradient of its loss
// w.r.t. λ (user level: the mean over at most G of the user's examples); clip each to L2 norm C;
// sum, add N(0, σ²C² I_k), divide by the EXPECTED batch q·units (Opacus's convention for Poisson
// sampling); then λ ← λ ⊙ exp(−η g̃) / Z, in log space. λ_0 is uniform.
//
// Released: λ_T (or the iterate average, see ReleasedIterate). The trajectory holds λ iterates
// only — post-processing of the noisy updates, so as private as λ_T. The loss F(λ_t) on split A
// is deliberately NOT part of the result: it is a function of the private data, not of the
// private output, and would leak.
//
// On success the run's privacy::LedgerEntry is returned and, if a ledger is given, recorded.
// On cancellation dpmix::Cancelled is thrown and nothing is recorded or released.
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/mixmin/objective.h"
#include "engine/mixmin/params.h"
#include "engine/mixmin/user_groups.h"
#include "engine/privacy/ledger.h"

#include <Eigen/Dense>

#include <functional>
#include <span>
#include <vector>

namespace dpmix::mixmin {

struct LambdaSnapshot {
    long long step;  // t: λ after t updates (0 = the uniform start)
    Eigen::VectorXd lambda;
};

struct DpMixMinResult {
    Eigen::VectorXd lambda;         // the released mixture (params.release)
    Eigen::VectorXd lambdaLast;     // λ_T
    Eigen::VectorXd lambdaAverage;  // (1/T) Σ_{t=1..T} λ_t
    ReleasedIterate released = ReleasedIterate::Last;
    NoiseMode noise = NoiseMode::Gaussian;
    double sigma = 0.0;    // noise multiplier actually used (0 for NoiseMode::None)
    double epsilon = 0.0;  // recorded ε (+inf for NoiseMode::None)
    double delta = 0.0;
    long long steps = 0;
    privacy::LedgerEntry ledgerEntry;
    std::vector<LambdaSnapshot> trajectory;  // every params.trajectoryEvery steps, plus λ_0 and λ_T
};

/// Audit instrumentation (engine/audit, docs/ALGORITHMS.md B.2): one privacy unit that is not a row
/// of the objective — the canary of the "in" world of a membership audit (add/remove adjacency).
/// Each step it is Poisson-sampled with the same rate q from its own stream of the invocation's
/// randomness (so with seeded randomness the objective's batches and the noise are exactly those
/// of the same seed without it); when
/// sampled, `gradient(λ_t, g)` puts its per-example gradient into g (size k), which then goes
/// through the same tangent projection and clipping as every other unit. The normaliser q·n
/// keeps n = objective.examples(), a public constant of the mechanism. Never wire it to a run
/// whose λ is released.
///
/// `examples` > 1 makes the canary a *user* holding that many identical copies of the example.
/// Algorithm 1 (example level) treats each copy as a unit of its own: Poisson-sampled
/// independently and clipped on its own, so the copies can move the sum by up to examples·C.
/// Algorithm 2 (user level) samples the canary user once and clips the mean of its copies'
/// gradients (which is the copy's gradient) once: at most C, as for every other user.
struct ExtraUnit {
    std::function<void(const Eigen::VectorXd& lambda, Eigen::VectorXd& gradient)> gradient;
    long long examples = 1;
};

/// DP-MixMin's clipping of per-unit gradients (one row each): centres each row first when
/// `mode` is TangentProjected (in place), then returns the per-row factors min(1, C/‖row‖), so
/// that row r clipped is factor(r)·g.row(r). The mechanism and the audit share this one rule.
Eigen::VectorXd clippingFactors(RowMatrix& g, ClippedGradient mode, double clipNorm);

/// The ledger entry a run with these parameters records: the subsampled Gaussian of (q, σ, T)
/// with its unit and randomness, or NonPrivate for the zero-noise control. Known before the run,
/// so a caller can store it before the mechanism touches the data (a run cancelled or killed
/// midway has spent at most this).
privacy::LedgerEntry plannedLedgerEntry(const DpMixMinParams& params);

/// Algorithm 1. `params` must come from DpMixMinParamsBuilder::build(objective.examples()).
/// `extra` (audit only) adds one canary unit, see ExtraUnit.
Result<DpMixMinResult> runDpMixMin(const MixtureObjective& objective, const DpMixMinParams& params,
                                   privacy::Ledger* ledger = nullptr, const ProgressCallback& progress = {},
                                   const CancellationToken& cancel = {}, const ExtraUnit* extra = nullptr);

/// Test instrumentation for Algorithm 2 (exposes which private examples were used: never wire
/// it to anything that is released). Called once per sampled user per step.
struct UserStepObserver {
    std::function<void(long long step, Eigen::Index user, std::span<const Eigen::Index> examplesUsed)> onUser;
};

/// Algorithm 2. `params` must come from build(users.users(), PrivacyUnit::User); `users` must
/// partition (part of) the objective's examples. `extra` (audit only) adds one canary user, see
/// ExtraUnit; the normaliser q·m keeps m = users.users().
Result<DpMixMinResult> runUserLevelDpMixMin(const MixtureObjective& objective, const UserGroups& users,
                                            const DpMixMinParams& params, privacy::Ledger* ledger = nullptr,
                                            const ProgressCallback& progress = {}, const CancellationToken& cancel = {},
                                            const UserStepObserver* observer = nullptr,
                                            const ExtraUnit* extra = nullptr);

}  // namespace dpmix::mixmin
