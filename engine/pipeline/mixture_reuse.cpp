#include "engine/pipeline/mixture_reuse.h"

#include "engine/methods/method_plan.h"
#include "engine/mixmin/dp_mixmin.h"
#include "engine/mixmin/weight_metrics.h"
#include "engine/pipeline/planned_releases.h"
#include "engine/privacy/ledger_json.h"
#include "engine/privacy/parameters.h"

#include <cmath>

namespace dpmix::pipeline {
namespace {

bool sameEpsilon(double a, double b) { return std::abs(a - b) <= 1e-12 * std::max(1.0, std::abs(b)); }

// The stored run's one ledger entry, when it is the planned release under the same composition.
std::optional<privacy::LedgerEntry> plannedEntryOf(const project::ProjectFile& project, long long runId,
                                                   const MixtureReuseQuery& query) {
    const auto records = project.ledgers(runId);
    if (!records || records->empty()) return std::nullopt;
    const auto ledger = privacy::ledgerFromJson(records->back().ledgerJson);
    if (!ledger || ledger->composition() != query.composition || ledger->entries().size() != 1) return std::nullopt;
    const privacy::LedgerEntry& entry = ledger->entries().front();
    if (entry.spentInRun != 0 || !privacy::sameRelease(entry, query.planned)) return std::nullopt;
    return entry;
}

// The run's private λ, when it is over the query's components.
std::optional<std::vector<double>> privateLambdaOf(const project::ProjectFile& project, long long runId,
                                                   const MixtureReuseQuery& query) {
    const auto stored = project.lambdas(runId);
    if (!stored) return std::nullopt;
    const std::string kind(methods::traitsOf(methods::Method::DpMixMin).lambdaKind);
    for (const auto& l : *stored)
        if (l.kind == kind && l.names == query.componentNames && l.values.size() == query.componentNames.size())
            return l.values;
    return std::nullopt;
}

}  // namespace

std::optional<StoredMixture> findStoredMixture(const project::ProjectFile& project,
                                               const std::vector<project::RunRecord>& runs,
                                               const MixtureReuseQuery& query) {
    const std::string method(methods::traitsOf(methods::Method::DpMixMin).name);
    for (auto r = runs.rbegin(); r != runs.rend(); ++r) {  // the newest first
        if (r->status != project::RunStatus::Done || r->method != method || r->task != query.task ||
            r->seed != static_cast<long long>(query.seed) || !r->epsilon ||
            !sameEpsilon(*r->epsilon, query.spentEpsilon) || r->configJson != query.configJson)
            continue;
        auto entry = plannedEntryOf(project, r->id, query);
        if (!entry) continue;
        auto lambda = privateLambdaOf(project, r->id, query);
        if (!lambda) continue;
        entry->spentInRun = r->id;
        return StoredMixture{r->id, std::move(*lambda), std::move(*entry)};
    }
    return std::nullopt;
}

PrivateLambda reusedPrivateLambda(const StoredMixture& stored, double epsilon, std::uint64_t seed,
                                  const Eigen::VectorXd& lambdaStar) {
    PrivateLambda p;
    p.epsilon = epsilon;
    p.seed = seed;
    p.lambda = Eigen::Map<const Eigen::VectorXd>(stored.lambda.data(), static_cast<Eigen::Index>(stored.lambda.size()));
    p.sigma = stored.entry.sigma;
    p.epsilonSpent = stored.entry.epsilon;
    p.delta = stored.entry.delta;
    p.ledgerEntry = stored.entry;
    const auto q = mixmin::compareWithReference(p.lambda, lambdaStar);
    p.cosine = q.cosine;
    p.l1 = q.l1;
    return p;
}

Result<StoredMixtures> findReusableMixtures(const project::ProjectFile& project, const ImageStudy& study,
                                            const MixtureReuseScope& scope) {
    StoredMixtures reused;
    const auto runs = project.runs();
    if (!runs) return runs.error();
    for (auto seed : scope.seeds) {
        auto split = splitForRun(study, scope.rho, seed);
        if (!split) return split.error();
        const long long unitsA =
            study.userLevel() ? distinctUsers(study, split->a) : static_cast<long long>(split->a.size());
        for (std::size_t t : scope.tasks)
            for (double eps : scope.epsilons) {
                const std::string& task = study.taskNames[t];
                auto params = dpMixMinParams(*scope.request, unitsA, study.userLevel(), task, eps, seed);
                if (!params) return params.error();
                const MixtureReuseQuery query{seed,
                                              task,
                                              eps,
                                              eps * scope.request->budgetShare,
                                              scope.configJson,
                                              scope.composition,
                                              mixmin::plannedLedgerEntry(*params),
                                              study.componentNames};
                if (auto stored = findStoredMixture(project, *runs, query))
                    reused.emplace(std::make_tuple(seed, task, eps), std::move(*stored));
            }
    }
    return reused;
}

MixtureOutcome withReusedLambdas(const StoredMixtures& reused, const std::vector<double>& epsilons,
                                 const std::string& task, std::uint64_t seed, MixtureOutcome learnedNow,
                                 const std::function<void(const std::string&)>& say) {
    std::vector<PrivateLambda> all;
    std::size_t learned = 0;
    for (double eps : epsilons) {
        if (auto stored = reused.find({seed, task, eps}); stored != reused.end()) {
            if (say)
                say("task '" + task + "', eps " + privacy::formatNumber(eps) + ", seed " + std::to_string(seed) +
                    ": DP-MixMin's lambda reused from run " + std::to_string(stored->second.runId) +
                    " (released there: no second spend on split A; --relearn-mixture learns it again)");
            all.push_back(reusedPrivateLambda(stored->second, eps, seed, learnedNow.lambdaStar));
        } else if (learned < learnedNow.privateLambdas.size()) {
            all.push_back(std::move(learnedNow.privateLambdas[learned++]));
        }
    }
    learnedNow.privateLambdas = std::move(all);
    return learnedNow;
}

}  // namespace dpmix::pipeline
