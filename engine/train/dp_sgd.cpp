#include "engine/train/dp_sgd.h"

#include "engine/privacy/gaussian_accountant.h"
#include "engine/privacy/mechanism_random.h"
#include "engine/train/detail/ghost_clipping.h"
#include "engine/train/detail/model_impl.h"
#include "engine/train/detail/optimizer.h"
#include "engine/train/detail/poisson_sampler.h"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace dpmix::train {

Result<FinetuneResult> finetuneDpSgd(Model& model, const ImageView& images, std::span<const int> labels,
                                     const DpSgdParams& params, privacy::Ledger& ledger,
                                     const ProgressCallback& progress, const CancellationToken& cancel) {
    auto& impl = model.impl();
    const ModelSpec& spec = impl.spec;
    if (auto e = checkFinetuneInputs(spec, images, labels, params.expectedBatchSize, params.trainLastBlocks)) return *e;

    const std::int64_t n = images.count;
    const double q = static_cast<double>(params.expectedBatchSize) / static_cast<double>(n);
    const long long steps = params.steps > 0 ? params.steps : stepsForEpochs(params.epochs, n, params.expectedBatchSize);
    double sigma = 0.0;
    if (params.sigma) {
        sigma = *params.sigma;
    } else {
        try {
            sigma = privacy::calibrateGaussianSigma(params.epsilon, params.delta, q, steps).sigma;
        } catch (const std::domain_error& e) {
            return Error{"DP-SGD: no noise multiplier meets epsilon = " + std::to_string(params.epsilon) + " with q = " +
                         std::to_string(q) + " and " + std::to_string(steps) + " steps (" + e.what() + ")"};
        }
    }

    FinetuneResult result;
    result.steps = steps;
    result.q = q;
    result.noise = sigma;
    result.entry = privacy::gaussianEntry("finetune", params.split, privacy::PrivacyUnit::Example, q, sigma, steps,
                                          params.delta, params.clipNorm);
    privacy::setRandomness(result.entry, params.randomness.mode);
    ledger.record(result.entry);

    detail::Network& net = impl.network;
    detail::FrozenBlocks frozen(net, params.trainLastBlocks);
    std::vector<at::Tensor*> trainable = net.trainableParameters();
    detail::SgdOptimizer optimizer(trainable, params.learningRate, params.momentum);
    privacy::MechanismRng noiseGen(params.randomness, "noise");
    detail::PoissonSampler sampler(n, q, params.randomness);
    const bool binary = spec.outputs == 1;
    const double expectedBatch = q * static_cast<double>(n);
    long long sampled = 0, clipped = 0;
    result.stepLoss.reserve(static_cast<std::size_t>(steps));

    for (long long t = 0; t < steps; ++t) {
        throwIfCancelled(cancel);
        std::vector<std::int64_t> batch = sampler.next();
        detail::zeroGradients(trainable);  // no stale gradient can survive into this step
        if (batch.empty()) {
            // An empty Poisson batch still releases noise: the mechanism runs every step.
            result.stepLoss.push_back(std::numeric_limits<double>::quiet_NaN());
        } else {
            at::Tensor x = detail::gatherImages(images, batch, impl.device);
            std::vector<std::int64_t> y(batch.size());
            for (std::size_t i = 0; i < batch.size(); ++i) y[i] = labels[static_cast<std::size_t>(batch[i])];
            at::Tensor target = at::tensor(y, at::kLong).to(impl.device);
            detail::Tape tape;
            at::Tensor logits = net.forward(x, &tape);
            at::Tensor perExample = binary ? detail::binaryLossPerExample(logits, target.to(at::kFloat))
                                           : detail::multiclassLossPerExample(logits, target);
            result.stepLoss.push_back(perExample.detach().mean().item<double>());
            at::Tensor norms = detail::clipAndSumGradients(tape, perExample, params.clipNorm);
            sampled += static_cast<long long>(batch.size());
            clipped += norms.gt(params.clipNorm).sum().item<int64_t>();
        }
        detail::privatiseGradients(trainable, sigma * params.clipNorm, expectedBatch, noiseGen);
        optimizer.step();
        if (t % 10 == 0 || t + 1 == steps)
            report(progress, {"finetune", t + 1, steps, "DP-SGD loss " + std::to_string(result.stepLoss.back())});
    }
    result.clippedFraction = sampled > 0 ? static_cast<double>(clipped) / static_cast<double>(sampled) : 0.0;
    return result;
}

}  // namespace dpmix::train
