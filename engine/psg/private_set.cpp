#include "engine/psg/private_set.h"

#include "engine/psg/detail/gradient_match.h"
#include "engine/train/detail/network.h"
#include "engine/train/detail/optimizer.h"
#include "engine/train/detail/poisson_sampler.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/csrc/autograd/autograd.h>

#include <cmath>
#include <stdexcept>
#include <string>

namespace dpmix::psg {
namespace {

using at::Tensor;

train::ModelSpec networkSpec(const PsgParams& params, int channels, int height, int width, int classes) {
    train::ModelSpec spec;
    spec.kind = train::ModelKind::ConvNet;
    spec.channels = channels;
    spec.height = height;
    spec.width = width;
    spec.outputs = classes;
    spec.convNetWidth = params.networkWidth;
    spec.convNetDepth = params.networkDepth;
    return spec;
}

// Class-major labels of S: spc copies of 0, then of 1, ...
std::vector<int> setLabels(int classes, int imagesPerClass) {
    std::vector<int> labels;
    labels.reserve(static_cast<std::size_t>(classes) * imagesPerClass);
    for (int c = 0; c < classes; ++c) labels.insert(labels.end(), static_cast<std::size_t>(imagesPerClass), c);
    return labels;
}

Tensor initialNormalisedSet(int classes, int channels, int height, int width, const PsgParams& params,
                            at::Generator& gen) {
    return at::randn({static_cast<int64_t>(classes) * params.imagesPerClass, channels, height, width}, gen, at::kFloat);
}

PrivateSet toPixelSpace(const Tensor& normalised, int classes, const PsgParams& params) {
    PrivateSet set;
    set.classes = classes;
    set.imagesPerClass = params.imagesPerClass;
    set.channels = static_cast<int>(normalised.size(1));
    set.height = static_cast<int>(normalised.size(2));
    set.width = static_cast<int>(normalised.size(3));
    const Tensor pixels =
        (normalised.detach().to(at::kCPU, at::kFloat) * params.pixelStd + params.pixelMean).contiguous();
    set.pixels.assign(pixels.data_ptr<float>(), pixels.data_ptr<float>() + pixels.numel());
    set.labels = setLabels(classes, params.imagesPerClass);
    return set;
}

Status checkInputs(const train::ImageView& images, std::span<const int> labels, int classes, const PsgParams& params) {
    if (auto e = train::checkImages("sensitive images", images)) return e;
    if (static_cast<std::int64_t>(labels.size()) != images.count)
        return Error{"psg: " + std::to_string(labels.size()) + " labels for " + std::to_string(images.count) +
                     " images: expected one class label per image"};
    if (classes < 2)
        return Error{"psg: " + std::to_string(classes) +
                     " class(es): expected a classification with at least 2 classes"};
    for (std::size_t i = 0; i < labels.size(); ++i)
        if (labels[i] < 0 || labels[i] >= classes)
            return Error{"psg: label " + std::to_string(labels[i]) + " of image " + std::to_string(i) +
                         " is out of range: expected a class in 0.." + std::to_string(classes - 1)};
    auto spec = train::ModelSpecBuilder()
                    .kind(train::ModelKind::ConvNet)
                    .input(images.channels, images.height, images.width)
                    .outputs(classes)
                    .convNet(params.networkWidth, params.networkDepth)
                    .build();
    if (!spec) return Error{"psg: " + spec.error().message};
    return std::nullopt;
}

// Trains the network on S (detached) for `epochs` passes in batches, plain SGD: the short
// trajectory along which the next round matches gradients.
void trainOnSet(train::detail::Network& net, const Tensor& set, const Tensor& labels, const PsgParams& params,
                int epochs, at::Generator& gen, const CancellationToken& cancel) {
    std::vector<Tensor*> weights = net.parameters();
    train::detail::SgdOptimizer optimizer(weights, params.networkLearningRate);
    const Tensor images = set.detach();
    const int64_t n = images.size(0);
    for (int e = 0; e < epochs; ++e) {
        const Tensor order = at::randperm(n, gen, at::TensorOptions().dtype(at::kLong)).to(images.device());
        for (int64_t start = 0; start < n; start += params.networkBatchSize) {
            throwIfCancelled(cancel);
            const Tensor rows = order.slice(0, start, std::min(n, start + params.networkBatchSize));
            train::detail::zeroGradients(weights);
            at::cross_entropy_loss(net.forward(images.index_select(0, rows), nullptr), labels.index_select(0, rows))
                .backward();
            optimizer.step();
        }
    }
    train::detail::zeroGradients(weights);
}

}  // namespace

PrivateSet initialPrivateSet(int classes, int channels, int height, int width, const PsgParams& params) {
    at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(params.seed);
    return toPixelSpace(initialNormalisedSet(classes, channels, height, width, params, gen), classes, params);
}

Result<PsgResult> generatePrivateSet(const train::ImageView& images, std::span<const int> labels, int classes,
                                     const PsgParams& params, privacy::Ledger& ledger, const PsgControl& control) {
    if (auto e = checkInputs(images, labels, classes, params)) return *e;
    at::Device device = at::kCPU;
    try {
        device = train::detail::deviceNamed(params.device);
    } catch (const std::invalid_argument& e) {
        return Error{e.what(), "device"};
    }
    auto planned = plannedPsgEntry(params, images.count);
    if (!planned) return planned.error();
    PsgResult result;
    result.entry = std::move(planned).value();
    ledger.record(result.entry);

    // Public randomness (S's start, the networks, the order of S): seeded, data-independent.
    at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(params.seed);
    Tensor set = initialNormalisedSet(classes, images.channels, images.height, images.width, params, gen)
                     .to(device)
                     .set_requires_grad(true);
    const std::vector<int> labelsOfSet = setLabels(classes, params.imagesPerClass);
    const Tensor setTargets =
        at::tensor(std::vector<int64_t>(labelsOfSet.begin(), labelsOfSet.end()), at::kLong).to(device);
    std::vector<Tensor*> setParams{&set};
    train::detail::SgdOptimizer setOptimizer(setParams, params.imageLearningRate, params.imageMomentum);

    // The mechanism: secret (or deliberately seeded) Poisson sampling and Gaussian noise.
    privacy::MechanismRng noise(params.randomness, "noise");
    train::detail::PoissonSampler sampler(images.count, result.entry.q, params.randomness);
    const double expectedBatch = result.entry.q * static_cast<double>(images.count);
    const double noiseStd = result.entry.sigma * params.clipNorm;

    const train::ModelSpec spec = networkSpec(params, images.channels, images.height, images.width, classes);
    const PsgLoops loops = params.loops();
    const long long totalSteps = params.compositions();
    for (int it = 0; it < params.iterations; ++it) {
        train::detail::Network net = train::detail::buildNetworkOn(spec, gen, device);
        double lossSum = 0.0;
        int lossCount = 0;
        for (int round = 0; round < loops.outer; ++round) {
            for (int b = 0; b < params.batchLoop; ++b) {
                throwIfCancelled(control.cancel);
                const std::vector<std::int64_t> rows = sampler.next();
                Tensor realImages, realLabels;
                if (!rows.empty()) {
                    realImages =
                        (train::detail::gatherImages(images, rows, device) - params.pixelMean) / params.pixelStd;
                    std::vector<int64_t> y(rows.size());
                    for (std::size_t i = 0; i < rows.size(); ++i) y[i] = labels[static_cast<std::size_t>(rows[i])];
                    realLabels = at::tensor(y, at::kLong).to(device);
                }
                const std::vector<Tensor> real = detail::privateRealGradient(
                    net, realImages, realLabels, params.clipNorm, noiseStd, expectedBatch, noise);
                ++result.dpGradientSteps;
                const Tensor distance = detail::matchDistance(detail::syntheticGradient(net, set, setTargets), real);
                set.mutable_grad() = torch::autograd::grad({distance}, {set})[0];
                setOptimizer.step();
                lossSum += distance.item<double>();
                ++lossCount;
                report(control.progress,
                       {"psg", result.dpGradientSteps, totalSteps,
                        "iteration " + std::to_string(it + 1) + "/" + std::to_string(params.iterations) +
                            ", matching distance " + std::to_string(lossSum / lossCount)});
            }
            if (round + 1 < loops.outer) trainOnSet(net, set, setTargets, params, loops.inner, gen, control.cancel);
        }
        result.matchLoss.push_back(lossCount > 0 ? lossSum / lossCount : 0.0);
        if (control.snapshot && control.snapshotEvery > 0 && ((it + 1) % control.snapshotEvery == 0))
            control.snapshot(toPixelSpace(set, classes, params), it + 1);
    }
    result.set = toPixelSpace(set, classes, params);
    return result;
}

}  // namespace dpmix::psg
