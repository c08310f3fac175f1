// The planned releases of an image study run (planned_releases.h).
#include "engine/pipeline/planned_releases.h"

#include "engine/methods/method_plan.h"
#include "engine/mixmin/dp_mixmin.h"
#include "engine/pipeline/release_randomness.h"
#include "engine/privacy/parameters.h"

#include <algorithm>
#include <set>

namespace dpmix::pipeline {

DownstreamRequest downstreamRequest(methods::Method method, std::size_t task, const std::string& taskName,
                                    double epsilon, std::uint64_t seed, const RhoSplit& split,
                                    const std::vector<std::size_t>& wholeTrain, const project::ProjectSpec& spec,
                                    const study_plan::StudyRunOptions& options, bool reproducible) {
    DownstreamRequest req;
    req.accountant = options.accountant.value_or(spec.privacy.accountant);
    req.task = task;
    req.epsilon = epsilon;
    req.delta = spec.privacy.delta;
    req.seed = seed;
    req.device = options.device;
    req.finetuneRandomness = releaseRandomness(
        reproducible, seed, releaseIdentity("finetune", methods::nameOf(method), taskName, epsilon, seed));
    req.pretrain = spec.pretrain;  // the run's spec: the options' stage values already in place
    req.finetune = spec.finetune;
    if (methods::traitsOf(method).finetuneOn == methods::FinetuneData::SplitB) {
        req.finetuneIndices = split.b;
    } else {
        req.finetuneIndices = wholeTrain;
        req.finetuneSplit = "train";
    }
    return req;
}

std::vector<std::size_t> wholeTrainOf(const RhoSplit& split) {
    std::vector<std::size_t> all = split.a;
    all.insert(all.end(), split.b.begin(), split.b.end());
    std::sort(all.begin(), all.end());
    return all;
}

long long distinctUsers(const ImageStudy& study, const std::vector<std::size_t>& indices) {
    std::set<std::string> users;
    for (auto i : indices) users.insert(study.grouping.users.at(i));
    return static_cast<long long>(users.size());
}

Result<std::vector<privacy::BudgetRelease>> plannedReleases(
    const ImageStudy& study, const std::vector<std::uint64_t>& seeds, const std::vector<std::size_t>& tasks,
    const std::vector<double>& epsilons, const std::vector<methods::Method>& chosen, bool downstream,
    const MixtureRequest& request, double rho, const project::ProjectSpec& spec,
    const study_plan::StudyRunOptions& options, bool reproducible, const StoredMixtures& reused) {
    const bool sequential = spec.privacy.composition == privacy::Composition::Sequential;
    std::vector<privacy::BudgetRelease> out;
    for (auto seed : seeds) {
        auto split = splitForRun(study, rho, seed);
        if (!split) return split.error();
        const std::string partition =
            sequential ? std::string() : privacy::rhoPartition(static_cast<long long>(seed), rho);
        const long long unitsA =
            study.userLevel() ? distinctUsers(study, split->a) : static_cast<long long>(split->a.size());
        const auto wholeTrain = wholeTrainOf(*split);
        for (std::size_t t : tasks) {
            const std::string& task = study.taskNames[t];
            for (double eps : epsilons) {
                auto params = dpMixMinParams(request, unitsA, study.userLevel(), task, eps, seed);
                if (!params) return params.error();
                const privacy::LedgerEntry mixture = mixmin::plannedLedgerEntry(*params);
                const std::string what =
                    "'" + task + "' eps " + privacy::formatNumber(eps) + " seed " + std::to_string(seed);
                if (!downstream) {
                    out.push_back({0, "dp-mixmin " + what + " (planned)", partition, mixture});
                    continue;
                }
                for (const auto method : chosen) {
                    const auto& traits = methods::traitsOf(method);
                    if (traits.choice == methods::Choice::NonPrivate) continue;  // never a release, not counted
                    const std::string name(traits.name);
                    DownstreamRequest req =
                        downstreamRequest(method, t, task, eps, seed, *split, wholeTrain, spec, options, reproducible);
                    if (traits.choice == methods::Choice::Private) {
                        const auto stored = reused.find({seed, task, eps});
                        if (stored == reused.end())
                            out.push_back({0, name + " " + what + " (planned)", partition, mixture});
                        if (sequential) req.spentBefore = {mixture};
                    }
                    auto plan = planFinetune(study, req);
                    if (!plan) return Error{name + ", task '" + task + "': " + plan.error().message};
                    out.push_back({0, name + " " + what + " (planned)",
                                   req.finetuneSplit == "train" ? std::string() : partition, plan->entry});
                }
            }
        }
    }
    return out;
}

}  // namespace dpmix::pipeline
