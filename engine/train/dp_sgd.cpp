#include "engine/train/dp_sgd.h"

#include "engine/data/portable_random.h"
#include "engine/privacy/accountant.h"
#include "engine/privacy/mechanism_random.h"
#include "engine/train/detail/ghost_clipping.h"
#include "engine/train/detail/gradient_canaries.h"
#include "engine/train/detail/model_impl.h"
#include "engine/train/detail/optimizer.h"
#include "engine/train/detail/poisson_sampler.h"
#include "engine/train/detail/rank_exchange.h"
#include "engine/train/gradient_canaries.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
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

// One step of one rank (detail/rank_exchange.h): the clipped sum over the sampled units it owns
// (`clip` keeps them), then the all-reduce that carries rank 0's noise; .grad() ends as the noisy
// sum over every rank divided by q·N. Returns the mean loss over every rank's sampled units.
template <typename ClipBatch>
double rankStep(ClipBatch& clip, const std::vector<std::int64_t>& batch, const std::vector<at::Tensor*>& trainable,
                double noiseStd, double clipNorm, double expectedBatch, std::optional<privacy::MechanismRng>& noise,
                detail::RankExchange& ranks, long long& sampled, long long& clipped) {
    const ClippedStep own = clip(batch);
    const auto units = static_cast<double>(own.units);
    std::array<double, 3> stats{own.units > 0 ? own.meanLoss * units : 0.0, units, static_cast<double>(own.clipped)};
    detail::sumNoisyGradientsAcrossRanks(trainable, noiseStd, clipNorm, expectedBatch, noise ? &*noise : nullptr, ranks,
                                         stats);
    sampled += std::llround(stats[1]);
    clipped += std::llround(stats[2]);
    return stats[1] > 0 ? stats[0] / stats[1] : std::numeric_limits<double>::quiet_NaN();
}

// The units of a sampled batch this process computes on: all of them, or across ranks those of
// its shard (unit u on rank u mod W).
std::vector<std::int64_t> ownUnits(const std::vector<std::int64_t>& batch, const detail::RankExchange* ranks) {
    if (!ranks) return batch;
    std::vector<std::int64_t> own;
    for (std::int64_t u : batch)
        if (ranks->owns(u)) own.push_back(u);
    return own;
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
                                privacy::Ledger& ledger, detail::GradientCanarySteps* canaries = nullptr,
                                detail::RankExchange* ranks = nullptr) {
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
    const bool drawsNoise = !ranks || ranks->drawsNoise();
    if (drawsNoise) ledger.record(result.entry);  // across ranks: once, by rank 0

    detail::Network& net = impl.network;
    detail::FrozenBlocks frozen(net, params.trainLastBlocks);
    std::vector<at::Tensor*> trainable = net.trainableParameters();
    detail::SgdOptimizer optimizer(trainable, params.learningRate, params.momentum);
    // Only the rank that adds the noise holds its stream (docs/PRIVACY.md, "Data-parallel DP-SGD").
    std::optional<privacy::MechanismRng> noiseGen;
    if (drawsNoise) noiseGen.emplace(params.randomness, "noise");
    detail::PoissonSampler sampler(units, q, params.randomness);
    const double expectedBatch = q * static_cast<double>(units);
    long long sampled = 0, clipped = 0;
    result.stepLoss.reserve(static_cast<std::size_t>(steps));

    for (long long t = 0; t < steps; ++t) {
        throwIfCancelled(cancel);
        std::vector<std::int64_t> batch = sampler.next();
        detail::zeroGradients(trainable);  // no stale gradient can survive into this step
        if (ranks) {
            result.stepLoss.push_back(rankStep(clip, batch, trainable, *sigma * params.clipNorm, params.clipNorm,
                                               expectedBatch, noiseGen, *ranks, sampled, clipped));
            optimizer.step();
            ranks->afterStep(t + 1, trainable, optimizer.momentumBuffers());
            if (t % 10 == 0 || t + 1 == steps)
                report(progress, {"finetune", t + 1, steps, "DP-SGD loss " + std::to_string(result.stepLoss.back())});
            continue;
        }
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
        detail::privatiseGradients(trainable, *sigma * params.clipNorm, params.clipNorm, expectedBatch, *noiseGen);
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
// Across ranks, only the sampled examples of this rank's shard (none: nothing computed), at their
// rows in the shard (`rowOf`: example → held row).
auto exampleClipper(Model::Impl& impl, const ImageView& images, std::span<const int> labels, const DpSgdParams& params,
                    const detail::RankExchange* ranks = nullptr, std::vector<std::int64_t> rowOf = {}) {
    return
        [&impl, &images, labels, &params, ranks, rowOf = std::move(rowOf)](const std::vector<std::int64_t>& sampled) {
            std::vector<std::int64_t> batch = ownUnits(sampled, ranks);
            if (batch.empty()) return ClippedStep{};
            if (ranks)
                for (std::int64_t& u : batch) u = rowOf[static_cast<std::size_t>(u)];
            detail::Tape tape;
            at::Tensor perExample = batchLosses(impl, images, labels, batch, tape);
            ClippedStep step{perExample.detach().mean().item<double>(), static_cast<long long>(batch.size()), 0};
            at::Tensor norms = detail::clipAndSumGradients(tape, perExample, params.clipNorm);
            step.clipped = norms.gt(params.clipNorm).sum().item<int64_t>();
            return step;
        };
}

// The images of each user 0..m−1, after the checks of finetuneUserLevelDpSgd (every user owns an
// image, q = B/m <= 1, the images fit the model).
Result<std::vector<std::vector<std::int64_t>>> imagesOfUsers(Model::Impl& impl, const ImageView& images,
                                                             std::span<const int> labels,
                                                             std::span<const std::int64_t> userOfImage,
                                                             const DpSgdParams& params) {
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
    return imagesOf;
}

// One step's clipped sum over sampled users: each contributes the mean gradient of at most
// maxExamplesPerUser of its images, clipped as one unit. Across ranks, the images of every sampled
// user are still drawn (in the batch's order, so the stream matches a 1-rank run) but only the
// users of this rank's shard are computed on.
auto userClipper(Model::Impl& impl, const ImageView& images, std::span<const int> labels, const DpSgdParams& params,
                 std::vector<std::vector<std::int64_t>> imagesOf, const detail::RankExchange* ranks = nullptr) {
    // The images of a sampled user come from the mechanism's own stream (which images a user
    // contributed is as secret as whether the user was sampled).
    return [&impl, &images, labels, &params, ranks, imagesOf = std::move(imagesOf),
            chooseRng = privacy::MechanismRng(params.randomness, "user images"),
            chosen = std::vector<std::int64_t>()](const std::vector<std::int64_t>& sampledUsers) mutable {
        const auto cap = static_cast<std::size_t>(params.maxExamplesPerUser);
        std::vector<std::int64_t> rows, rowUser;
        std::int64_t own = 0;
        for (const std::int64_t user : sampledUsers) {
            data::sampleWithoutReplacement(imagesOf[static_cast<std::size_t>(user)], cap, chooseRng, chosen);
            if (ranks && !ranks->owns(user)) continue;
            rows.insert(rows.end(), chosen.begin(), chosen.end());
            rowUser.insert(rowUser.end(), chosen.size(), own++);
        }
        if (own == 0) return ClippedStep{};
        detail::Tape tape;
        at::Tensor perExample = batchLosses(impl, images, labels, rows, tape);
        ClippedStep step{perExample.detach().mean().item<double>(), static_cast<long long>(own), 0};
        at::Tensor norms =
            detail::clipAndSumUserGradients(tape, perExample, at::tensor(rowUser, at::kLong), own, params.clipNorm);
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
    if (params.ranks > 1)
        e.assumptions += "; data-parallel over " + std::to_string(params.ranks) +
                         " ranks (c10d, Gloo): the Gaussian noise drawn once, by rank 0, and carried by the all-reduce "
                         "of the ranks' clipped sums; every rank and the network between them inside the data owner's "
                         "trust boundary (they exchange un-noised partial sums)";
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
    auto imagesOf = imagesOfUsers(impl, images, labels, userOfImage, params);
    if (!imagesOf) return imagesOf.error();
    const auto users = static_cast<std::int64_t>(imagesOf->size());
    return runDpSgd(model, params, users, privacy::PrivacyUnit::User,
                    userClipper(impl, images, labels, params, *imagesOf), progress, cancel, ledger);
}

namespace detail {

Result<FinetuneResult> finetuneDpSgdOnRank(Model& model, const ImageView& images, std::span<const int> labels,
                                           const ShardUnits& shard, const DpSgdParams& params, privacy::Ledger& ledger,
                                           RankExchange& ranks, const ProgressCallback& progress,
                                           const CancellationToken& cancel) {
    auto rows = shardRows(images, shard, params, ranks);
    if (!rows) return rows.error();
    auto& impl = model.impl();
    // q = B/units is checked against every rank's units above; the held images only need to fit.
    const int heldBatch = static_cast<int>(std::min<std::int64_t>(params.expectedBatchSize, images.count));
    if (auto e = checkFinetuneInputs(impl.spec, images, labels, heldBatch, params.trainLastBlocks)) return *e;
    if (!shard.userLevel())
        return runDpSgd(model, params, shard.units, privacy::PrivacyUnit::Example,
                        exampleClipper(impl, images, labels, params, &ranks, std::move(rows).value()), progress, cancel,
                        ledger, nullptr, &ranks);
    return runDpSgd(model, params, shard.units, privacy::PrivacyUnit::User,
                    userClipper(impl, images, labels, params, shardImagesOfUsers(shard), &ranks), progress, cancel,
                    ledger, nullptr, &ranks);
}

}  // namespace detail

}  // namespace dpmix::train
