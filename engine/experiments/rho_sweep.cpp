#include "engine/experiments/rho_sweep.h"

#include "engine/audit/parallel_runs.h"
#include "engine/data/splits.h"
#include "engine/mixmin/dp_mixmin.h"
#include "engine/mixmin/nonprivate_mixmin.h"
#include "engine/mixmin/simplex.h"
#include "engine/mixmin/weight_metrics.h"
#include "engine/privacy/parameters.h"

#include <string>

namespace dpmix::experiments {

std::string rhoSweepIdentity(double rho) { return "rho-sweep/rho=" + privacy::formatNumber(rho); }

Result<RhoSweepResult> rhoSweep(const audit::ObjectiveBuilder& fullTrain, const mixmin::DpMixMinParamsBuilder& base,
                                const RhoSweepOptions& options, const ProgressCallback& progress,
                                const CancellationToken& cancel) {
    if (options.rhos.empty()) return Error{"rhos: the list is empty; expected fractions in (0, 1)"};
    for (double r : options.rhos)
        if (!(r > 0.0 && r < 1.0))
            return Error{"rhos: " + privacy::formatNumber(r) + "; expected a fraction in (0, 1)"};
    if (options.seeds.empty()) return Error{"seeds: the list is empty; expected at least one seed"};

    auto full = audit::buildAll(fullTrain);
    if (!full) return Error{"train set: " + full.error().message};
    auto star = mixmin::solveNonPrivateMixMin(*full, {}, {}, {}, cancel);
    if (!star) return Error{"non-private MixMin on the train set: " + star.error().message};
    RhoSweepResult res;
    res.reference = star->lambda;
    res.referenceLoss = star->loss;
    res.referenceEntry = star->ledgerEntry;
    res.uniformCosine = mixmin::cosineSimilarity(mixmin::uniformWeights(full->sources()), res.reference);

    const std::size_t S = options.seeds.size(), R = options.rhos.size();
    std::vector<double> cos(R * S), l1(R * S), excess(R * S);
    std::vector<long long> sizes(R * S);
    auto job = [&](long long index) -> Status {
        const auto i = static_cast<std::size_t>(index);
        const double rho = options.rhos[i / S];
        const std::uint64_t seed = options.seeds[i % S];
        const std::string where = "rho " + privacy::formatNumber(rho) + ", seed " + std::to_string(seed) + ": ";
        auto split = data::rhoSplit(fullTrain.examples, rho, seed);
        if (!split) return Error{where + split.error().message};
        auto splitA = fullTrain.build(split->first);
        if (!splitA) return Error{where + splitA.error().message};
        auto b = base;
        auto p = b.randomness(privacy::RandomnessSource::seeded(seed, rhoSweepIdentity(rho))).build(splitA->examples());
        if (!p) return Error{where + p.error().message};
        auto params = std::move(p).value();
        params.trajectoryEvery = params.steps;
        auto run = mixmin::runDpMixMin(*splitA, params, nullptr, {}, cancel);
        if (!run) return Error{where + run.error().message};
        sizes[i] = splitA->examples();
        cos[i] = mixmin::cosineSimilarity(run->lambda, res.reference);
        l1[i] = mixmin::l1Distance(run->lambda, res.reference);
        excess[i] = full->loss(run->lambda) - res.referenceLoss;
        return std::nullopt;
    };
    if (auto e =
            audit::runIndexedJobs(static_cast<long long>(R * S), options.threads, job, "rho-sweep", progress, cancel))
        return *e;

    for (std::size_t r = 0; r < R; ++r) {
        RhoSweepRow row;
        row.rho = options.rhos[r];
        row.examples = sizes[r * S];
        auto slice = [&](const std::vector<double>& v) {
            return std::vector<double>(v.begin() + static_cast<long>(r * S),
                                       v.begin() + static_cast<long>((r + 1) * S));
        };
        row.cosines = slice(cos);
        row.l1s = slice(l1);
        row.excesses = slice(excess);
        row.cosine = meanStd(row.cosines);
        row.l1 = meanStd(row.l1s);
        row.excess = meanStd(row.excesses);
        res.rows.push_back(std::move(row));
    }
    return res;
}

}  // namespace dpmix::experiments
