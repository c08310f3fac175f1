#pragma once
// How the mixture stage's outcome becomes stored runs — DP-MixMin's private λ and the baselines'
// runs — and the method plans of a downstream run, shared by the image and text studies.
// Header-only: the torch-free text-study library uses it too.
#include "engine/methods/method_plan.h"
#include "engine/mixmin/dp_mixmin.h"
#include "engine/mixmin/weight_metrics.h"
#include "engine/pipeline/mixture_stage.h"
#include "engine/pipeline/run_storage.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace dpmix::pipeline {

/// The released λ of a DP-MixMin run with its privacy facts and its quality against λ*.
inline PrivateLambda privateLambdaFrom(const mixmin::DpMixMinResult& dp, double epsilon, std::uint64_t seed,
                                       const Eigen::VectorXd& lambdaStar) {
    PrivateLambda p;
    p.epsilon = epsilon;
    p.seed = seed;
    p.lambda = dp.lambda;
    p.sigma = dp.sigma;
    p.epsilonSpent = dp.epsilon;
    p.delta = dp.delta;
    p.ledgerEntry = dp.ledgerEntry;
    const auto q = mixmin::compareWithReference(p.lambda, lambdaStar);
    p.cosine = q.cosine;
    p.l1 = q.l1;
    for (const auto& snap : dp.trajectory) {
        p.trajectorySteps.push_back(snap.step);
        p.trajectory.emplace_back(snap.lambda.data(), snap.lambda.data() + snap.lambda.size());
    }
    return p;
}

/// Stores a dp-mixmin run's results: the private λ with λ* and uniform for reference, its
/// metrics (plus `extraMetrics`), and the λ iterates as curves "lambda/<component>" — the
/// iterates are post-processing of the private output, so they are safe to store.
inline Status storePrivateLambda(project::ProjectFile& project, long long runId, const MixtureOutcome& o,
                                 const PrivateLambda& p, const std::vector<project::MetricRecord>& extraMetrics = {}) {
    using methods::Method;
    using methods::traitsOf;
    const auto& names = o.componentNames;
    const std::string privateKind(traitsOf(Method::DpMixMin).lambdaKind);
    const std::string starKind(traitsOf(Method::NonPrivateMixMin).lambdaKind);
    const std::string uniformKind(traitsOf(Method::Uniform).lambdaKind);
    if (auto e = errorOf(project.addLambda({runId, privateKind, names, toStdVector(p.lambda)}))) return e;
    if (auto e = errorOf(project.addLambda({runId, starKind, names, toStdVector(o.lambdaStar)}))) return e;
    if (auto e = errorOf(project.addLambda({runId, uniformKind, names, toStdVector(o.lambdaUniform)}))) return e;
    std::vector<project::MetricRecord> metrics{{runId, "cosine-to-lambda-star", "", p.cosine},
                                               {runId, "l1-to-lambda-star", "", p.l1},
                                               {runId, "sigma", "", p.sigma},
                                               {runId, "epsilon-spent", "", p.epsilonSpent}};
    metrics.insert(metrics.end(), extraMetrics.begin(), extraMetrics.end());
    if (auto e = errorOf(project.addMetrics(metrics))) return e;
    for (std::size_t c = 0; c < names.size(); ++c) {
        std::vector<project::CurvePoint> points;
        for (std::size_t i = 0; i < p.trajectory.size(); ++i)
            points.push_back({p.trajectorySteps[i], p.trajectory[i][c]});
        if (auto e = errorOf(project.addCurve(runId, "lambda/" + names[c], points))) return e;
    }
    return std::nullopt;
}

/// The mixture stage's choices as the method plan reads them; `p` is DP-MixMin's release at
/// the ε of the run (none in a mixture-only run, where only the baselines are planned).
inline methods::MixtureChoices choicesOf(const MixtureOutcome& o, const PrivateLambda* p) {
    methods::MixtureChoices c;
    c.lambdaStar = toStdVector(o.lambdaStar);
    c.lambdaUniform = toStdVector(o.lambdaUniform);
    c.lambdaRandomSearch = toStdVector(o.lambdaRandomSearch);
    c.unit = o.users > 0 ? privacy::PrivacyUnit::User : privacy::PrivacyUnit::Example;
    if (p) {
        c.lambdaPrivate = toStdVector(p->lambda);
        c.privateEntries = {p->ledgerEntry};
    }
    return c;
}

/// A front end's own figures for a baseline's stored run, from its λ (the text study's test
/// perplexity of the λ-mixture).
using BaselineMetrics =
    std::function<Result<std::vector<project::MetricRecord>>(const std::vector<double>& lambda, long long runId)>;

/// Whether `runs` (the project's) hold a finished run of `run` (method, task, seed, configuration,
/// no ε) whose λ record of `kind` is `lambda`, value for value: storing it again would add a row
/// that says nothing new. A different λ (say, after the proxy was retrained) is a new result.
inline bool sameBaselineStored(const project::ProjectFile& project, const std::vector<project::RunRecord>& runs,
                               const project::NewRun& run, const std::string& kind, const std::vector<double>& lambda) {
    for (const auto& r : runs) {
        if (r.status != project::RunStatus::Done || r.method != run.method || r.task != run.task ||
            r.seed != run.seed || r.epsilon || r.configJson != run.configJson)
            continue;
        const auto stored = project.lambdas(r.id);
        if (!stored) continue;
        for (const auto& l : *stored)
            if (l.kind == kind && l.values == lambda) return true;
    }
    return false;
}

/// Stores a mixture-only (seed, task)'s baselines as runs of their own: every method the table
/// marks as a mixture-stage run whose λ is not a DP release — the reference λ* first, then the
/// others in table order, each measured against it — with its ledger (the plan's entries), its λ
/// record and its distances to λ* (λ*: its Frank–Wolfe gap). A baseline the project already holds
/// with the same configuration and the same λ is not stored again (every Run of DP-MixMin would
/// otherwise add λ*, uniform and random search rows). DP-MixMin's runs are stored by the caller,
/// which started them before their mechanism ran.
inline Status storeMixtureBaselines(project::ProjectFile& project, const MixtureOutcome& o, long long seed,
                                    privacy::Composition composition,
                                    const std::function<std::string(const std::string& method)>& config,
                                    const BaselineMetrics& extraMetrics = {}) {
    std::vector<const methods::MethodTraits*> baselines;
    for (const auto& t : methods::allMethods())
        if (t.mixtureStageRun && t.choice != methods::Choice::Private) baselines.push_back(&t);
    std::stable_partition(baselines.begin(), baselines.end(), [](const auto* t) { return t->reference; });
    const methods::MixtureChoices choices = choicesOf(o, nullptr);
    // Read once for every baseline (a run stored below is new, so it need not be seen); runs that
    // cannot be read count as none, so the baseline is stored.
    const auto existing = project.runs();
    const std::vector<project::RunRecord> none;
    for (const auto* t : baselines) {
        const methods::MethodPlan plan = methods::planMethod(t->method, choices);
        const std::string name(t->name);
        const project::NewRun run{name, o.task, std::nullopt, seed, config(name)};
        if (plan.lambda &&
            sameBaselineStored(project, existing ? *existing : none, run, std::string(plan.lambdaKind), *plan.lambda))
            continue;
        auto stored = storedRun(project, run, [&](long long id) -> Status {
            privacy::Ledger ledger(composition);
            for (const auto& e : plan.mixtureEntries) ledger.record(e);
            if (auto e = errorOf(project.recordLedger(id, ledger))) return e;
            if (plan.lambda)
                if (auto e = errorOf(project.addLambda({id, plan.lambdaKind, o.componentNames, *plan.lambda})))
                    return e;
            std::vector<project::MetricRecord> metrics;
            if (t->reference) {
                metrics.push_back({id, "frank-wolfe-gap", "", o.lambdaStarGap});
            } else if (plan.lambda) {
                const Eigen::VectorXd lambda = Eigen::Map<const Eigen::VectorXd>(
                    plan.lambda->data(), static_cast<Eigen::Index>(plan.lambda->size()));
                const auto q = mixmin::compareWithReference(lambda, o.lambdaStar);
                metrics.push_back({id, "cosine-to-lambda-star", "", q.cosine});
                metrics.push_back({id, "l1-to-lambda-star", "", q.l1});
            }
            if (extraMetrics && plan.lambda) {
                auto extra = extraMetrics(*plan.lambda, id);
                if (!extra) return extra.error();
                for (auto& m : *extra) metrics.push_back(m);
            }
            return errorOf(project.addMetrics(metrics));
        });
        if (!stored) return stored.error();
    }
    return std::nullopt;
}

}  // namespace dpmix::pipeline
