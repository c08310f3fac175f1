#include "engine/mixmin/nonprivate_mixmin.h"

#include "engine/mixmin/simplex.h"
#include "engine/privacy/parameters.h"

#include <chrono>
#include <cmath>

namespace dpmix::mixmin {

double frankWolfeGap(const Eigen::VectorXd& lambda, const Eigen::VectorXd& gradient) {
    return lambda.dot(gradient) - gradient.minCoeff();
}

Status checkExampleWeights(const Eigen::VectorXd& w, Eigen::Index examples) {
    if (w.size() == 0) return std::nullopt;
    if (w.size() != examples)
        return Error{"weights: " + std::to_string(w.size()) + " weights for " + std::to_string(examples) +
                     " examples: expected one weight per example"};
    for (Eigen::Index j = 0; j < w.size(); ++j)
        if (!(std::isfinite(w(j)) && w(j) >= 0.0))
            return Error{"weights: weight of example " + std::to_string(j) + " = " + privacy::formatNumber(w(j)) +
                         " is out of range: expected a finite weight >= 0"};
    if (std::abs(w.sum() - 1.0) > 1e-9)
        return Error{"weights: they sum to " + privacy::formatNumber(w.sum()) + ": expected weights summing to 1"};
    return std::nullopt;
}

Result<NonPrivateResult> solveNonPrivateMixMin(const MixtureObjective& objective, const NonPrivateOptions& o,
                                               const Eigen::VectorXd& weights, const ProgressCallback& progress,
                                               const CancellationToken& cancel) {
    if (auto e = privacy::checkPositive("gap-tolerance", o.gapTolerance)) return *e;
    if (o.maxIterations < 1)
        return Error{"max-iterations = " + std::to_string(o.maxIterations) + " is out of range: expected >= 1"};
    if (auto e = privacy::checkPositive("initial-step", o.initialStepSize)) return *e;
    if (auto e = checkExampleWeights(weights, objective.examples())) return *e;

    NonPrivateResult r;
    const Eigen::Index k = objective.sources();
    Eigen::VectorXd logLambda = uniformWeights(k).array().log().matrix();
    Eigen::VectorXd lambda = uniformWeights(k);
    double f = objective.loss(lambda, weights);
    Eigen::VectorXd g = objective.gradient(lambda, weights);
    double eta = o.initialStepSize;
    r.lossHistory.push_back(f);
    auto lastPoll = std::chrono::steady_clock::now();

    long long it = 0;
    double gap = frankWolfeGap(lambda, g);
    while (gap > o.gapTolerance && it < o.maxIterations) {
        if (std::chrono::steady_clock::now() - lastPoll > std::chrono::milliseconds(200)) {
            throwIfCancelled(cancel);
            report(progress, {"mixture-nonprivate", it, o.maxIterations, "gap " + privacy::formatNumber(gap)});
            lastPoll = std::chrono::steady_clock::now();
        }
        // Backtracking for mirror descent: accept when F(λ+) <= F(λ) + ⟨g, λ+ − λ⟩ + KL(λ+‖λ)/η,
        // the sufficient-decrease test of a KL-smooth step; otherwise halve η.
        for (int tries = 0;; ++tries) {
            Eigen::VectorXd logNext = logLambda;
            mirrorStep(logNext, g, eta);
            const Eigen::VectorXd next = weightsFromLog(logNext);
            const double fNext = objective.loss(next, weights);
            const double kl = (next.array() * (logNext - logLambda).array()).sum();
            if (fNext <= f + g.dot(next - lambda) + kl / eta + 1e-15 * std::abs(f) || tries > 60) {
                logLambda = logNext;
                lambda = next;
                f = fNext;
                break;
            }
            eta *= 0.5;
        }
        eta *= 1.5;  // let the step grow back after a successful one
        g = objective.gradient(lambda, weights);
        gap = frankWolfeGap(lambda, g);
        r.lossHistory.push_back(f);
        ++it;
    }
    r.lambda = lambda;
    r.loss = f;
    r.gap = gap;
    r.iterations = it;
    r.converged = gap <= o.gapTolerance;
    r.ledgerEntry = privacy::nonPrivateEntry("mixture-nonprivate", o.split,
                                             "non-private MixMin: lambda* fitted on split " + o.split +
                                                 " without noise or clipping (reference / upper bound)");
    report(progress, {"mixture-nonprivate", it, it, "gap " + privacy::formatNumber(gap)});
    return r;
}

}  // namespace dpmix::mixmin
