#pragma once
// Weight recovery as a function of ε (docs/ALGORITHMS.md A.11 "weight recovery"). For
// each ε and seed, DP-MixMin on split A; cos and L1 to the non-private λ* on the same split,
// mean ± std over seeds. ε = +inf stands for the non-private solution itself (cos 1, L1 0: the
// ceiling of the plot), not for a no-noise DP-MixMin run.
#include "engine/core/cancellation.h"
#include "engine/core/mean_std.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/mixmin/objective.h"
#include "engine/mixmin/params.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dpmix::experiments {

struct EpsilonSweepOptions {
    std::vector<double> epsilons;      // > 0; +inf allowed (the non-private solution)
    std::vector<std::uint64_t> seeds;  // one DP-MixMin run per (ε, seed), with this run seed
    int threads = 0;                   // 0 = all cores
};

struct EpsilonSweepRow {
    double epsilon = 0.0;
    bool nonPrivate = false;           // ε = +inf: λ* itself
    double sigma = 0.0;                // calibrated noise multiplier (0 for +inf)
    MeanStd cosine, l1;                // over seeds
    std::vector<double> cosines, l1s;  // per seed, in options.seeds order
};

struct EpsilonSweepResult {
    Eigen::VectorXd reference;                    // λ* (non-private MixMin on split A)
    double uniformCosine = 0.0, uniformL1 = 0.0;  // the uniform mixture's cos / L1 to λ*
    std::vector<EpsilonSweepRow> rows;            // in options.epsilons order
};

/// `base` carries every DP-MixMin setting except ε and the seed, which the sweep sets per run.
/// Errors name "epsilons" or "seeds", or come from the builder (naming its field).
/// Progress: stage "epsilon-sweep", one unit per (ε, seed) run. Cancellation: dpmix::Cancelled.
/// The sweep is a simulation by the data owner, not a release: the run for (ε, seed) is seeded
/// with RandomnessSource::seeded(seed, epsilonSweepIdentity(ε)).
std::string epsilonSweepIdentity(double epsilon);

Result<EpsilonSweepResult> epsilonSweep(const mixmin::MixtureObjective& splitA,
                                        const mixmin::DpMixMinParamsBuilder& base, const EpsilonSweepOptions& options,
                                        const ProgressCallback& progress = {}, const CancellationToken& cancel = {});

}  // namespace dpmix::experiments
