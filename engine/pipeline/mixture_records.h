#pragma once
// How one DP-MixMin run becomes a PrivateLambda and a stored "dp-mixmin" run — shared by the
// image and text studies. Header-only: the torch-free text-study library uses it too.
#include "engine/mixmin/dp_mixmin.h"
#include "engine/mixmin/weight_metrics.h"
#include "engine/pipeline/mixture_stage.h"
#include "engine/pipeline/run_storage.h"

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
inline std::optional<Error> storePrivateLambda(project::ProjectFile& project, long long runId, const MixtureOutcome& o,
                                               const PrivateLambda& p,
                                               const std::vector<project::MetricRecord>& extraMetrics = {}) {
    const auto& names = o.componentNames;
    if (auto e = errorOf(project.addLambda({runId, "private", names, toStdVector(p.lambda)}))) return e;
    if (auto e = errorOf(project.addLambda({runId, "non-private", names, toStdVector(o.lambdaStar)}))) return e;
    if (auto e = errorOf(project.addLambda({runId, "uniform", names, toStdVector(o.lambdaUniform)}))) return e;
    std::vector<project::MetricRecord> metrics{{runId, "cosine-to-lambda-star", "", p.cosine},
                                               {runId, "l1-to-lambda-star", "", p.l1},
                                               {runId, "sigma", "", p.sigma},
                                               {runId, "epsilon-spent", "", p.epsilonSpent}};
    metrics.insert(metrics.end(), extraMetrics.begin(), extraMetrics.end());
    if (auto e = errorOf(project.addMetrics(metrics))) return e;
    for (std::size_t c = 0; c < names.size(); ++c) {
        std::vector<project::CurvePoint> points;
        for (std::size_t i = 0; i < p.trajectory.size(); ++i) points.push_back({p.trajectorySteps[i], p.trajectory[i][c]});
        if (auto e = errorOf(project.addCurve(runId, "lambda/" + names[c], points))) return e;
    }
    return std::nullopt;
}

}  // namespace dpmix::pipeline
