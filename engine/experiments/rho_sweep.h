#pragma once
// A-posteriori check of ρ (the paper's check, docs/ALGORITHMS.md A.9): for each ρ and seed,
// split the full sensitive train set with data::rhoSplit (a stable split of the same law as the
// pipeline's, its units identified by index), run DP-MixMin on split A, and compare λ_DP with the non-private λ* of the
// FULL train set: cos, L1 and the excess F_full(λ_DP) − F_full(λ*), mean ± std over seeds.
//
// NOT private: λ* and F_full are computed on sensitive data without noise. This is a diagnostic
// for choosing ρ (as in the paper), never something to release; `referenceEntry` is the
// NonPrivate ledger entry a runner should record if it keeps the table.
#include "engine/audit/objective_builder.h"
#include "engine/core/cancellation.h"
#include "engine/core/mean_std.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/mixmin/params.h"
#include "engine/privacy/ledger.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dpmix::experiments {

struct RhoSweepOptions {
    std::vector<double> rhos{0.05, 0.1, 0.2, 0.3, 0.5};
    std::vector<std::uint64_t> seeds{0, 1, 2};
    int threads = 0;
};

struct RhoSweepRow {
    double rho = 0.0;
    long long examples = 0;                      // |split A| = round(ρN)
    MeanStd cosine, l1, excess;                  // over seeds
    std::vector<double> cosines, l1s, excesses;  // per seed
};

struct RhoSweepResult {
    Eigen::VectorXd reference;   // λ* on the full train set
    double referenceLoss = 0.0;  // F_full(λ*)
    double uniformCosine = 0.0;  // cos(1/k, λ*)
    privacy::LedgerEntry referenceEntry;
    std::vector<RhoSweepRow> rows;  // in options.rhos order
};

/// `fullTrain`: the objective builder over the whole sensitive train set. `base`: every DP-MixMin
/// setting (ε included; give q through expectedBatch or samplingRate); the seed is set per run.
/// Errors name "rhos", "seeds", or the builder's field. Progress: stage "rho-sweep".
/// Not a release: the run for (ρ, seed) is seeded with RandomnessSource::seeded(seed, rhoSweepIdentity(ρ)).
std::string rhoSweepIdentity(double rho);

Result<RhoSweepResult> rhoSweep(const audit::ObjectiveBuilder& fullTrain, const mixmin::DpMixMinParamsBuilder& base,
                                const RhoSweepOptions& options, const ProgressCallback& progress = {},
                                const CancellationToken& cancel = {});

}  // namespace dpmix::experiments
