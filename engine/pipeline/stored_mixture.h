#pragma once
// The stored DP-MixMin release a downstream run reuses instead of running the mechanism on split A
// again (docs/PRIVACY.md, "Reusing a released mixture"): what must match, the lookup, and the
// release as the mixture stage's outcome holds it. One rule for the image study
// (mixture_reuse.h) and the text study (engine/text_study), so the two cannot drift.
// Header-only: the torch-free text-study library uses it too.
#include "engine/methods/method_plan.h"
#include "engine/mixmin/weight_metrics.h"
#include "engine/pipeline/mixture_stage.h"
#include "engine/privacy/ledger.h"
#include "engine/privacy/ledger_json.h"
#include "engine/privacy/parameters.h"
#include "engine/project/project_file.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace dpmix::pipeline {

/// A stored DP-MixMin release one (seed, task, ε) of a downstream run reuses.
struct StoredMixture {
    long long runId = 0;
    std::vector<double> lambda;  // over the run's components, in order
    privacy::LedgerEntry entry;  // the stored run's, with spentInRun = runId
};

/// (seed, task, ε of the downstream run) → the release it reuses.
using StoredMixtures = std::map<std::tuple<std::uint64_t, std::string, double>, StoredMixture>;

/// What a stored run must match to be reused for one (seed, task, ε).
struct MixtureReuseQuery {
    std::uint64_t seed = 0;
    std::string task;
    double epsilon = 0.0;       // the downstream run's ε
    double spentEpsilon = 0.0;  // what its mixture spends: ε × the mixture's budget share
    std::string configJson;     // the mixture configuration a DP-MixMin mixture-only run stores
    privacy::Composition composition = privacy::Composition::Parallel;
    privacy::LedgerEntry planned;  // the entry DP-MixMin would record now on this split
    std::vector<std::string> componentNames;
};

namespace stored_mixture_detail {

inline bool sameEpsilon(double a, double b) { return std::abs(a - b) <= 1e-12 * std::max(1.0, std::abs(b)); }

// The stored run's one ledger entry, when it is the planned release under the same composition.
inline std::optional<privacy::LedgerEntry> plannedEntryOf(const project::ProjectFile& project, long long runId,
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
inline std::optional<std::vector<double>> privateLambdaOf(const project::ProjectFile& project, long long runId,
                                                          const MixtureReuseQuery& query) {
    const auto stored = project.lambdas(runId);
    if (!stored) return std::nullopt;
    const std::string kind(methods::traitsOf(methods::Method::DpMixMin).lambdaKind);
    for (const auto& l : *stored)
        if (l.kind == kind && l.names == query.componentNames && l.values.size() == query.componentNames.size())
            return l.values;
    return std::nullopt;
}

}  // namespace stored_mixture_detail

/// The newest finished mixture-only DP-MixMin run of `runs` that matches `query`: same task, seed,
/// spent ε and configuration (which holds ρ, δ, the stage's values and the privacy unit; the
/// entry holds the accountant and the randomness), a last ledger of exactly one entry equal to the
/// planned one (so the same mechanism on the same split A) under the same composition, and a
/// private λ over the same components. Nothing when none does — the run then learns λ again.
inline std::optional<StoredMixture> findStoredMixture(const project::ProjectFile& project,
                                                      const std::vector<project::RunRecord>& runs,
                                                      const MixtureReuseQuery& query) {
    const std::string method(methods::traitsOf(methods::Method::DpMixMin).name);
    for (auto r = runs.rbegin(); r != runs.rend(); ++r) {  // the newest first
        if (r->status != project::RunStatus::Done || r->method != method || r->task != query.task ||
            r->seed != static_cast<long long>(query.seed) || !r->epsilon ||
            !stored_mixture_detail::sameEpsilon(*r->epsilon, query.spentEpsilon) || r->configJson != query.configJson)
            continue;
        auto entry = stored_mixture_detail::plannedEntryOf(project, r->id, query);
        if (!entry) continue;
        auto lambda = stored_mixture_detail::privateLambdaOf(project, r->id, query);
        if (!lambda) continue;
        entry->spentInRun = r->id;
        return StoredMixture{r->id, std::move(*lambda), std::move(*entry)};
    }
    return std::nullopt;
}

/// The stored release as the mixture stage's outcome would hold it, measured against `lambdaStar`.
inline PrivateLambda reusedPrivateLambda(const StoredMixture& stored, double epsilon, std::uint64_t seed,
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

/// The released λ of every ε of `epsilons`, in order: learned now (`learnedNow.privateLambdas`
/// holds those, in order) or taken from its stored run (each said to `say`). `task` must not refer
/// into the outcome moved in as `learnedNow` (moving it empties that string before it is read).
inline MixtureOutcome withReusedLambdas(const StoredMixtures& reused, const std::vector<double>& epsilons,
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
