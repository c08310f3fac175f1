#include "engine/mixmin/dp_mixmin.h"

#include "engine/data/poisson_sampler.h"
#include "engine/data/portable_random.h"
#include "engine/mixmin/simplex.h"
#include "engine/privacy/mechanism_random.h"
#include "engine/privacy/parameters.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace dpmix::mixmin {
namespace {

// Independent streams for sampling, noise and the audit canary, all of one invocation: secret by
// default; seeded, a zero-noise control of the same seed and invocation sees exactly the same
// batches as the private run.
privacy::MechanismRng streamFor(const DpMixMinParams& p, std::string_view purpose) {
    return privacy::MechanismRng(p.randomness, purpose);
}

// engine/data's Poisson sampler (u_j < q, one draw per unit in index order), as Eigen indices.
void poissonSample(Index n, double q, privacy::MechanismRng& rng, std::vector<Index>& out) {
    const std::vector<std::size_t> picked = data::poissonSample(static_cast<std::size_t>(n), q, rng);
    out.assign(picked.begin(), picked.end());
}

}  // namespace

Eigen::VectorXd clippingFactors(RowMatrix& g, ClippedGradient mode, double clipNorm) {
    // A unit whose gradient is not finite contributes nothing: its row becomes zero (so that
    // factor·row is 0, not 0·inf = NaN), and a NaN never reaches the released λ only when that
    // unit is sampled — which would be a membership signal. docs/PRIVACY.md, "Non-finite gradients".
    for (Index r = 0; r < g.rows(); ++r)
        if (!g.row(r).allFinite()) g.row(r).setZero();
    if (mode == ClippedGradient::TangentProjected) g.colwise() -= g.rowwise().mean();
    // min(1, C/‖g‖): a zero row gives C/0 = inf and keeps factor 1.
    return (clipNorm / g.rowwise().norm().array()).min(1.0).matrix();
}

namespace {

// Optional tangent projection, clip each row to norm C, and return the column sum.
void clipAndSum(RowMatrix& g, const DpMixMinParams& p, Eigen::VectorXd& sum) {
    if (g.rows() == 0) {
        sum.setZero();
        return;
    }
    const Eigen::VectorXd factor = clippingFactors(g, p.clipped, p.clipNorm);
    sum.noalias() = g.transpose() * factor;
}

// The audit's canary (ExtraUnit), drawn from its own sampling stream so that the objective's
// batches and the noise are those of the same invocation without it.
class CanaryUnit {
public:
    CanaryUnit(const ExtraUnit* extra, const DpMixMinParams& p, Index k)
        : extra_(extra && extra->gradient ? extra : nullptr),
          p_(p),
          rng_(streamFor(p, "canary sampling")),
          gradient_(k),
          clipped_(k) {}
    long long examples() const { return extra_ ? std::max<long long>(1, extra_->examples) : 0; }
    // How many of `units` independent Poisson draws at rate q include the canary.
    long long sampledCopies(long long units) {
        long long sampled = 0;
        for (long long c = 0; c < units; ++c)
            if (p_.q >= 1.0 || rng_.uniform01() < p_.q) ++sampled;
        return sampled;
    }
    // sum += copies · clip(canary gradient at λ).
    void addClipped(const Eigen::VectorXd& lambda, long long copies, Eigen::VectorXd& sum) {
        if (!extra_ || copies == 0) return;
        gradient_.setZero();
        extra_->gradient(lambda, gradient_);
        row_ = gradient_.transpose();
        clipAndSum(row_, p_, clipped_);
        sum += static_cast<double>(copies) * clipped_;
    }

private:
    const ExtraUnit* extra_;
    const DpMixMinParams& p_;
    privacy::MechanismRng rng_;
    Eigen::VectorXd gradient_, clipped_;
    RowMatrix row_;
};

Status checkRunnable(const MixtureObjective& objective, const DpMixMinParams& p, long long units,
                     privacy::PrivacyUnit unit) {
    const bool user = unit == privacy::PrivacyUnit::User;
    if (p.unit != unit)
        return Error{std::string("parameters were built for ") + (user ? "example" : "user") +
                     "-level DP-MixMin: build them with " +
                     (user ? "PrivacyUnit::User and max-examples-per-user" : "PrivacyUnit::Example")};
    if (p.units != units)
        return Error{std::string("parameters were built for ") + std::to_string(p.units) +
                     (user ? " users" : " examples") + " but the data have " + std::to_string(units) +
                     ": rebuild them so that q refers to these data"};
    if (objective.sources() < 2) return Error{"objective has fewer than 2 sources: expected k >= 2"};
    if (!(p.q > 0.0 && p.q <= 1.0) || !(p.clipNorm > 0.0) || !(p.stepSize > 0.0) || p.steps < 1 ||
        p.trajectoryEvery < 1 || (p.noise == NoiseMode::Gaussian && !(p.sigma > 0.0)))
        return Error{
            "parameters were not produced by DpMixMinParamsBuilder::build (q, clip, eta, steps, sigma invalid)"};
    return std::nullopt;
}

// The noisy mirror-descent loop shared by both algorithms. `clippedSum(t, λ, sum)` must put the
// sum of the step's clipped per-unit gradients into `sum`.
template <typename ClippedSum>
DpMixMinResult runLoop(Eigen::Index k, const DpMixMinParams& p, ClippedSum&& clippedSum,
                       const ProgressCallback& progress, const CancellationToken& cancel) {
    privacy::MechanismRng noiseRng = streamFor(p, "noise");
    const bool noisy = p.noise == NoiseMode::Gaussian;
    const double noiseStd = noisy ? p.sigma * p.clipNorm : 0.0;
    const double expectedBatch = p.q * static_cast<double>(p.units);

    DpMixMinResult r;
    Eigen::VectorXd logLambda = uniformWeights(k).array().log().matrix();
    Eigen::VectorXd lambda = uniformWeights(k);
    Eigen::VectorXd sum(k), average = Eigen::VectorXd::Zero(k);
    r.trajectory.push_back({0, lambda});
    const long long reportEvery = std::max<long long>(1, p.steps / 100);

    for (long long t = 0; t < p.steps; ++t) {
        throwIfCancelled(cancel);
        clippedSum(t, lambda, sum);
        if (noisy)
            for (Eigen::Index i = 0; i < k; ++i) sum(i) += noiseStd * noiseRng.gaussian();
        sum /= expectedBatch;  // divide by the expected, not the realised, batch size (docs/ALGORITHMS.md A.3 step 3.4)
        mirrorStep(logLambda, sum, p.stepSize);
        lambda = weightsFromLog(logLambda);
        average += lambda;
        const long long done = t + 1;
        if (done % p.trajectoryEvery == 0 || done == p.steps) r.trajectory.push_back({done, lambda});
        if (done % reportEvery == 0 || done == p.steps)
            report(progress,
                   {"mixture", done, p.steps, "step " + std::to_string(done) + " of " + std::to_string(p.steps)});
    }
    r.lambdaLast = lambda;
    r.lambdaAverage = average / static_cast<double>(p.steps);
    r.released = p.release;
    r.lambda = p.release == ReleasedIterate::Last ? r.lambdaLast : r.lambdaAverage;
    r.noise = p.noise;
    r.sigma = noisy ? p.sigma : 0.0;
    r.delta = p.delta;
    r.steps = p.steps;
    return r;
}

Result<DpMixMinResult> finish(DpMixMinResult r, const DpMixMinParams& p, privacy::Ledger* ledger) {
    r.ledgerEntry = plannedLedgerEntry(p);
    if (p.noise == NoiseMode::Gaussian) {
        // The builder calibrated σ on the grid the ledger uses, so this cannot fail unless the
        // parameters were edited by hand; refuse to release rather than under-report ε.
        if (!(r.ledgerEntry.epsilon <= p.epsilon * (1.0 + 1e-9)))
            return Error{"sigma = " + privacy::formatNumber(p.sigma) + " gives epsilon " +
                         privacy::formatNumber(r.ledgerEntry.epsilon) + " above the target " +
                         privacy::formatNumber(p.epsilon) + ": the parameters were not calibrated by the builder"};
    }
    r.epsilon = r.ledgerEntry.epsilon;
    if (ledger) ledger->record(r.ledgerEntry);
    return r;
}

}  // namespace

privacy::LedgerEntry plannedLedgerEntry(const DpMixMinParams& p) {
    if (p.noise != NoiseMode::Gaussian)
        return privacy::nonPrivateEntry(
            "mixture", p.split,
            "zero-noise control run of DP-MixMin (clipping without Gaussian noise): no differential privacy guarantee");
    privacy::LedgerEntry e =
        privacy::gaussianEntry("mixture", p.split, p.unit, p.q, p.sigma, p.steps, p.delta, p.clipNorm, p.accountant);
    privacy::setRandomness(e, p.randomness.mode);
    return e;
}

Result<DpMixMinResult> runDpMixMin(const MixtureObjective& objective, const DpMixMinParams& p, privacy::Ledger* ledger,
                                   const ProgressCallback& progress, const CancellationToken& cancel,
                                   const ExtraUnit* extra) {
    if (auto e = checkRunnable(objective, p, objective.examples(), privacy::PrivacyUnit::Example)) return *e;
    privacy::MechanismRng samplingRng = streamFor(p, "sampling");
    std::vector<Index> batch;
    RowMatrix grads;
    CanaryUnit canary(extra, p, objective.sources());
    auto clippedSum = [&](long long, const Eigen::VectorXd& lambda, Eigen::VectorXd& sum) {
        poissonSample(objective.examples(), p.q, samplingRng, batch);
        objective.exampleGradients(lambda, batch, grads);
        clipAndSum(grads, p, sum);
        // Example level: each copy of the canary is a unit of its own.
        canary.addClipped(lambda, canary.sampledCopies(canary.examples()), sum);
    };
    return finish(runLoop(objective.sources(), p, clippedSum, progress, cancel), p, ledger);
}

Result<DpMixMinResult> runUserLevelDpMixMin(const MixtureObjective& objective, const UserGroups& users,
                                            const DpMixMinParams& p, privacy::Ledger* ledger,
                                            const ProgressCallback& progress, const CancellationToken& cancel,
                                            const UserStepObserver* observer, const ExtraUnit* extra) {
    if (users.examples() != objective.examples())
        return Error{"users: the user partition covers " + std::to_string(users.examples()) +
                     " examples but the objective has " + std::to_string(objective.examples())};
    if (auto e = checkRunnable(objective, p, users.users(), privacy::PrivacyUnit::User)) return *e;
    if (p.maxExamplesPerUser < 1) return Error{"max-examples-per-user must be >= 1 at user level"};

    privacy::MechanismRng samplingRng = streamFor(p, "sampling");
    const auto cap = static_cast<std::size_t>(p.maxExamplesPerUser);
    std::vector<Index> sampledUsers, chosen, allExamples, segmentEnd;
    RowMatrix exampleGrads, userGrads;
    CanaryUnit canary(extra, p, objective.sources());
    auto clippedSum = [&](long long t, const Eigen::VectorXd& lambda, Eigen::VectorXd& sum) {
        poissonSample(users.users(), p.q, samplingRng, sampledUsers);
        allExamples.clear();
        segmentEnd.clear();
        for (Index u : sampledUsers) {
            data::sampleWithoutReplacement(users.examplesOf(u), cap, samplingRng, chosen);
            if (observer && observer->onUser) observer->onUser(t, u, chosen);
            allExamples.insert(allExamples.end(), chosen.begin(), chosen.end());
            segmentEnd.push_back(static_cast<Index>(allExamples.size()));
        }
        objective.exampleGradients(lambda, allExamples, exampleGrads);
        // The user's gradient is the mean over the examples used (gradient of the user's mean loss).
        userGrads.resize(static_cast<Index>(sampledUsers.size()), objective.sources());
        Index start = 0;
        for (std::size_t r = 0; r < sampledUsers.size(); ++r) {
            const Index len = segmentEnd[r] - start;
            userGrads.row(static_cast<Index>(r)) = exampleGrads.middleRows(start, len).colwise().mean();
            start = segmentEnd[r];
        }
        clipAndSum(userGrads, p, sum);
        // User level: the canary user is one unit, whatever the number of its copies.
        canary.addClipped(lambda, canary.sampledCopies(canary.examples() > 0 ? 1 : 0), sum);
    };
    return finish(runLoop(objective.sources(), p, clippedSum, progress, cancel), p, ledger);
}

}  // namespace dpmix::mixmin
