#include "engine/experiments/epsilon_sweep.h"

#include "engine/audit/parallel_runs.h"
#include "engine/mixmin/dp_mixmin.h"
#include "engine/mixmin/nonprivate_mixmin.h"
#include "engine/mixmin/simplex.h"
#include "engine/mixmin/weight_metrics.h"
#include "engine/privacy/parameters.h"

#include <cmath>
#include <string>

namespace dpmix::experiments {

std::string epsilonSweepIdentity(double epsilon) { return "epsilon-sweep/eps=" + privacy::formatNumber(epsilon); }

Result<EpsilonSweepResult> epsilonSweep(const mixmin::MixtureObjective& splitA,
                                        const mixmin::DpMixMinParamsBuilder& base, const EpsilonSweepOptions& options,
                                        const ProgressCallback& progress, const CancellationToken& cancel) {
    if (options.epsilons.empty())
        return Error{"epsilons: the list is empty; expected at least one ε > 0 (inf allowed)"};
    for (double e : options.epsilons)
        if (!(e > 0.0))
            return Error{"epsilons: " + privacy::formatNumber(e) + " is not a valid ε; expected ε > 0 or inf"};
    if (options.seeds.empty()) return Error{"seeds: the list is empty; expected at least one seed"};

    // Parameters per finite ε (validated and σ-calibrated once, before any run).
    std::vector<mixmin::DpMixMinParams> params(options.epsilons.size());
    for (std::size_t r = 0; r < options.epsilons.size(); ++r) {
        if (std::isinf(options.epsilons[r])) continue;
        auto b = base;
        auto p = b.epsilon(options.epsilons[r]).build(splitA.examples());
        if (!p) return Error{"epsilon " + privacy::formatNumber(options.epsilons[r]) + ": " + p.error().message};
        params[r] = std::move(p).value();
        params[r].trajectoryEvery = params[r].steps;
    }

    auto star = mixmin::solveNonPrivateMixMin(splitA, {}, {}, {}, cancel);
    if (!star) return Error{"non-private MixMin: " + star.error().message};
    EpsilonSweepResult res;
    res.reference = star->lambda;
    const auto uniform = mixmin::compareWithReference(mixmin::uniformWeights(splitA.sources()), res.reference);
    res.uniformCosine = uniform.cosine;
    res.uniformL1 = uniform.l1;

    const std::size_t S = options.seeds.size();
    std::vector<double> cos(options.epsilons.size() * S, 1.0), l1(options.epsilons.size() * S, 0.0);
    auto job = [&](long long index) -> Status {
        const auto r = static_cast<std::size_t>(index) / S, s = static_cast<std::size_t>(index) % S;
        if (std::isinf(options.epsilons[r])) return std::nullopt;  // λ* itself: cos 1, L1 0
        auto p = params[r];
        p.randomness = privacy::RandomnessSource::seeded(options.seeds[s], epsilonSweepIdentity(options.epsilons[r]));
        auto run = mixmin::runDpMixMin(splitA, p, nullptr, {}, cancel);
        if (!run)
            return Error{"epsilon " + privacy::formatNumber(options.epsilons[r]) + ", seed " +
                         std::to_string(options.seeds[s]) + ": " + run.error().message};
        cos[static_cast<std::size_t>(index)] = mixmin::cosineSimilarity(run->lambda, res.reference);
        l1[static_cast<std::size_t>(index)] = mixmin::l1Distance(run->lambda, res.reference);
        return std::nullopt;
    };
    if (auto e = audit::runIndexedJobs(static_cast<long long>(cos.size()), options.threads, job, "epsilon-sweep",
                                       progress, cancel))
        return *e;

    for (std::size_t r = 0; r < options.epsilons.size(); ++r) {
        EpsilonSweepRow row;
        row.epsilon = options.epsilons[r];
        row.nonPrivate = std::isinf(row.epsilon);
        row.sigma = row.nonPrivate ? 0.0 : params[r].sigma;
        row.cosines.assign(cos.begin() + static_cast<long>(r * S), cos.begin() + static_cast<long>((r + 1) * S));
        row.l1s.assign(l1.begin() + static_cast<long>(r * S), l1.begin() + static_cast<long>((r + 1) * S));
        row.cosine = meanStd(row.cosines);
        row.l1 = meanStd(row.l1s);
        res.rows.push_back(std::move(row));
    }
    return res;
}

}  // namespace dpmix::experiments
