#include "engine/train/dp_sgd.h"

#include "engine/data/portable_random.h"
#include "engine/privacy/accountant.h"
#include "engine/privacy/mechanism_random.h"
#include "engine/train/detail/ghost_clipping.h"
#include "engine/train/detail/gradient_canaries.h"
#include "engine/train/detail/model_impl.h"
#include "engine/train/detail/optimizer.h"
#include "engine/train/detail/poisson_sampler.h"
#include "engine/train/gradient_canaries.h"

#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <vector>

namespace dpmix::train {
namespace {

// The clipped sum of one step's sampled units, written into .grad() by the caller's rule.
struct ClippedStep {
    double meanLoss = 0.0;
    long long units = 0;    // units in the batch
    long long clipped = 0;  // of which clipped
};

// σ for (ε, δ, q, T), or the caller's σ.
Result<double> noiseMultiplier(const DpSgdParams& params, double q, long long steps) {
    if (params.sigma) return *params.sigma;
    auto calibrated = privacy::calibrateSigma(params.accountant, params.epsilon, params.delta, q, steps);
    if (!calibrated) return Error{"DP-SGD: " + calibrated.error().message};
    return calibrated->sigma;
}

// The loop both units share: Poisson-sample `units` at rate q; `clip(batch)` puts the
// clipped sum of the sampled units' gradients into .grad(); then noise σC, divide by q·units, step.
// The ledger entry is recorded before the first step (a cancelled run has spent at most T steps).
// `canaries` (the white-box audit only; null otherwise): `units` counts the included canaries too,
// a sampled canary adds its gradient to the clipped sum before the noise, and the noisy sum is
// read back at the canaries' coordinates before the step.
template <typename ClipBatch>
Result<FinetuneResult> runDpSgd(Model& model, const DpSgdParams& params, std::int64_t units, privacy::PrivacyUnit unit,
                                ClipBatch&& clip, const ProgressCallback& progress, const CancellationToken& cancel,
                                privacy::Ledger& ledger, detail::GradientCanarySteps* canaries = nullptr) {
    auto& impl = model.impl();
    auto planned = plannedDpSgdEntry(params, units, unit);
    if (!planned) return planned.error();
    FinetuneResult result;
    result.entry = std::move(planned).value();
    result.steps = result.entry.steps;
    result.q = result.entry.q;
    result.noise = result.entry.sigma;
    const long long steps = result.steps;
    const double q = result.q;
    const double* sigma = &result.noise;
    ledger.record(result.entry);

    detail::Network& net = impl.network;
    detail::FrozenBlocks frozen(net, params.trainLastBlocks);
    std::vector<at::Tensor*> trainable = net.trainableParameters();
    detail::SgdOptimizer optimizer(trainable, params.learningRate, params.momentum);
    privacy::MechanismRng noiseGen(params.randomness, "noise");
    detail::PoissonSampler sampler(units, q, params.randomness);
    const double expectedBatch = q * static_cast<double>(units);
    long long sampled = 0, clipped = 0;
    result.stepLoss.reserve(static_cast<std::size_t>(steps));

    for (long long t = 0; t < steps; ++t) {
        throwIfCancelled(cancel);
        std::vector<std::int64_t> batch = sampler.next();
        detail::zeroGradients(trainable);  // no stale gradient can survive into this step
        if (canaries) canaries->takeSampledCanaries(batch);
        if (batch.empty()) {
            // An empty Poisson batch still releases noise: the mechanism runs every step.
            result.stepLoss.push_back(std::numeric_limits<double>::quiet_NaN());
        } else {
            const ClippedStep step = clip(batch);
            result.stepLoss.push_back(step.meanLoss);
            sampled += step.units;
            clipped += step.clipped;
        }
        if (canaries) canaries->addSampledCanaries();
        detail::privatiseGradients(trainable, *sigma * params.clipNorm, params.clipNorm, expectedBatch, noiseGen);
        if (canaries) canaries->observe(t, expectedBatch);
        optimizer.step();
        if (t % 10 == 0 || t + 1 == steps)
            report(progress, {"finetune", t + 1, steps, "DP-SGD loss " + std::to_string(result.stepLoss.back())});
    }
    result.clippedFraction = sampled > 0 ? static_cast<double>(clipped) / static_cast<double>(sampled) : 0.0;
    return result;
}

// Per-example losses of the given images under the model, recorded on `tape`.
at::Tensor batchLosses(Model::Impl& impl, const ImageView& images, std::span<const int> labels,
                       const std::vector<std::int64_t>& rows, detail::Tape& tape) {
    at::Tensor x = detail::gatherImages(images, rows, impl.device);
    std::vector<std::int64_t> y(rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) y[i] = labels[static_cast<std::size_t>(rows[i])];
    at::Tensor target = at::tensor(y, at::kLong).to(impl.device);
    at::Tensor logits = impl.network.forward(x, &tape);
    return impl.spec.outputs == 1 ? detail::binaryLossPerExample(logits, target.to(at::kFloat))
                                  : detail::multiclassLossPerExample(logits, target);
}

// One step's clipped sum over sampled examples (finetuneDpSgd and its white-box audit).
auto exampleClipper(Model::Impl& impl, const ImageView& images, std::span<const int> labels,
                    const DpSgdParams& params) {
    return [&impl, &images, labels, &params](const std::vector<std::int64_t>& batch) {
        detail::Tape tape;
        at::Tensor perExample = batchLosses(impl, images, labels, batch, tape);
        ClippedStep step{perExample.detach().mean().item<double>(), static_cast<long long>(batch.size()), 0};
        at::Tensor norms = detail::clipAndSumGradients(tape, perExample, params.clipNorm);
        step.clipped = norms.gt(params.clipNorm).sum().item<int64_t>();
        return step;
    };
}

}  // namespace

Result<privacy::LedgerEntry> plannedDpSgdEntry(const DpSgdParams& params, std::int64_t units,
                                               privacy::PrivacyUnit unit) {
    const double q = static_cast<double>(params.expectedBatchSize) / static_cast<double>(units);
    const long long steps =
        params.steps > 0 ? params.steps : stepsForEpochs(params.epochs, units, params.expectedBatchSize);
    auto sigma = noiseMultiplier(params, q, steps);
    if (!sigma) return sigma.error();
    privacy::LedgerEntry e = privacy::gaussianEntry("finetune", params.split, unit, q, *sigma, steps, params.delta,
                                                    params.clipNorm, params.accountant);
    privacy::setRandomness(e, params.randomness.mode);
    return e;
}

Result<FinetuneResult> finetuneDpSgd(Model& model, const ImageView& images, std::span<const int> labels,
                                     const DpSgdParams& params, privacy::Ledger& ledger,
                                     const ProgressCallback& progress, const CancellationToken& cancel) {
    auto& impl = model.impl();
    if (auto e = checkFinetuneInputs(impl.spec, images, labels, params.expectedBatchSize, params.trainLastBlocks))
        return *e;
    return runDpSgd(model, params, images.count, privacy::PrivacyUnit::Example,
                    exampleClipper(impl, images, labels, params), progress, cancel, ledger);
}

Result<FinetuneResult> finetuneDpSgdWithGradientCanaries(Model& model, const ImageView& images,
                                                         std::span<const int> labels, const DpSgdParams& params,
                                                         const GradientCanaries& canaries, privacy::Ledger& ledger,
                                                         const ProgressCallback& progress,
                                                         const CancellationToken& cancel) {
    auto& impl = model.impl();
    if (auto e = checkFinetuneInputs(impl.spec, images, labels, params.expectedBatchSize, params.trainLastBlocks))
        return *e;
    if (auto e = detail::checkGradientCanaries(impl.network, params.trainLastBlocks, canaries)) return *e;
    // The included canaries are examples to the mechanism: the sampler, q = B/(N + included), σ's
    // calibration and the ledger entry all count them (units()).
    detail::GradientCanarySteps steps(impl.network, canaries, images.count, params.clipNorm);
    return runDpSgd(model, params, steps.units(), privacy::PrivacyUnit::Example,
                    exampleClipper(impl, images, labels, params), progress, cancel, ledger, &steps);
}

std::vector<std::int64_t> spreadCanaryCoordinates(std::int64_t parameterCount, long long m, std::uint64_t seed) {
    if (m < 0 || m > parameterCount) return {};
    std::mt19937_64 gen(seed);
    std::unordered_set<std::int64_t> taken;
    std::vector<std::int64_t> out;
    out.reserve(static_cast<std::size_t>(m));
    while (static_cast<long long>(out.size()) < m) {
        const auto c = static_cast<std::int64_t>(data::uniformBelow(gen, static_cast<std::uint64_t>(parameterCount)));
        if (taken.insert(c).second) out.push_back(c);
    }
    return out;
}

Result<FinetuneResult> finetuneUserLevelDpSgd(Model& model, const ImageView& images, std::span<const int> labels,
                                              std::span<const std::int64_t> userOfImage, const DpSgdParams& params,
                                              privacy::Ledger& ledger, const ProgressCallback& progress,
                                              const CancellationToken& cancel) {
    auto& impl = model.impl();
    if (static_cast<std::int64_t>(userOfImage.size()) != images.count)
        return Error{"user-level DP-SGD: " + std::to_string(userOfImage.size()) + " user ids for " +
                     std::to_string(images.count) + " images; expected one user per image"};
    std::vector<std::vector<std::int64_t>> imagesOf;
    for (std::size_t i = 0; i < userOfImage.size(); ++i) {
        const std::int64_t u = userOfImage[i];
        if (u < 0 || u >= images.count)
            return Error{"user-level DP-SGD: user id " + std::to_string(u) + " of image " + std::to_string(i) +
                         " is out of range: expected users numbered 0..m-1"};
        if (static_cast<std::size_t>(u) >= imagesOf.size()) imagesOf.resize(static_cast<std::size_t>(u) + 1);
        imagesOf[static_cast<std::size_t>(u)].push_back(static_cast<std::int64_t>(i));
    }
    for (std::size_t u = 0; u < imagesOf.size(); ++u)
        if (imagesOf[u].empty())
            return Error{"user-level DP-SGD: user " + std::to_string(u) +
                         " owns no image; expected users numbered 0..m-1"};
    const auto users = static_cast<std::int64_t>(imagesOf.size());
    if (users == 0) return Error{"user-level DP-SGD: no users to fine-tune on"};
    if (params.expectedBatchSize > users)
        return Error{"expectedBatchSize = " + std::to_string(params.expectedBatchSize) + " users exceeds the " +
                     std::to_string(users) + " fine-tuning users: the sampling rate q = B/m must be <= 1"};
    if (auto e = checkFinetuneInputs(impl.spec, images, labels, params.expectedBatchSize, params.trainLastBlocks))
        return *e;

    // The images of a sampled user come from the mechanism's own stream (which images a user
    // contributed is as secret as whether the user was sampled).
    privacy::MechanismRng chooseRng(params.randomness, "user images");
    const auto cap = static_cast<std::size_t>(params.maxExamplesPerUser);
    std::vector<std::int64_t> chosen;
    auto clipUsers = [&](const std::vector<std::int64_t>& sampledUsers) {
        std::vector<std::int64_t> rows, rowUser;
        for (std::size_t r = 0; r < sampledUsers.size(); ++r) {
            data::sampleWithoutReplacement(imagesOf[static_cast<std::size_t>(sampledUsers[r])], cap, chooseRng, chosen);
            rows.insert(rows.end(), chosen.begin(), chosen.end());
            rowUser.insert(rowUser.end(), chosen.size(), static_cast<std::int64_t>(r));
        }
        detail::Tape tape;
        at::Tensor perExample = batchLosses(impl, images, labels, rows, tape);
        ClippedStep step{perExample.detach().mean().item<double>(), static_cast<long long>(sampledUsers.size()), 0};
        at::Tensor norms =
            detail::clipAndSumUserGradients(tape, perExample, at::tensor(rowUser, at::kLong),
                                            static_cast<std::int64_t>(sampledUsers.size()), params.clipNorm);
        step.clipped = norms.gt(params.clipNorm).sum().item<int64_t>();
        return step;
    };
    return runDpSgd(model, params, users, privacy::PrivacyUnit::User, clipUsers, progress, cancel, ledger);
}

}  // namespace dpmix::train
