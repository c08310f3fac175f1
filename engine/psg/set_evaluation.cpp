#include "engine/psg/set_evaluation.h"

#include "engine/train/detail/network.h"
#include "engine/train/detail/optimizer.h"
#include "engine/train/finetune.h"

#include <ATen/CPUGeneratorImpl.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace dpmix::psg {
namespace {

using at::Tensor;

std::vector<float> normalised(const train::ImageView& images, double mean, double std) {
    std::vector<float> out(images.pixels.size());
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<float>((images.pixels[i] - mean) / std);
    return out;
}

double accuracyFromLogits(const Tensor& logits, std::span<const int> labels) {
    const Tensor predicted = logits.argmax(1).to(at::kCPU).contiguous();
    const int64_t* p = predicted.data_ptr<int64_t>();
    std::int64_t right = 0;
    for (std::size_t i = 0; i < labels.size(); ++i) right += (p[i] == labels[i]) ? 1 : 0;
    return labels.empty() ? 0.0 : static_cast<double>(right) / static_cast<double>(labels.size());
}

}  // namespace

Result<double> accuracyAfterTrainingOn(const train::ModelSpec& spec, const train::ImageView& trainImages,
                                       std::span<const int> trainLabels, const train::ImageView& testImages,
                                       std::span<const int> testLabels, const SetTrainingParams& params,
                                       const CancellationToken& cancel) {
    if (auto e = train::checkFinetuneInputs(spec, trainImages, trainLabels, 1, 0)) return *e;
    if (auto e = train::checkImageShape("test images", testImages, spec.channels, spec.height, spec.width)) return *e;
    if (auto e = train::checkFinetuneLabels(testLabels, testImages.count, spec.outputs)) return *e;
    if (params.epochs < 1 || params.batchSize < 1)
        return Error{"set evaluation: epochs = " + std::to_string(params.epochs) +
                     ", batch = " + std::to_string(params.batchSize) + ": expected both >= 1"};

    at::Device device = at::kCPU;
    try {
        device = train::detail::deviceNamed(params.device);
    } catch (const std::invalid_argument& e) {
        return Error{e.what(), "device"};
    }
    at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(params.seed);
    train::detail::Network net = train::detail::buildNetworkOn(spec, gen, device);
    const std::vector<float> trainPixels = normalised(trainImages, params.pixelMean, params.pixelStd);
    const Tensor x =
        at::from_blob(const_cast<float*>(trainPixels.data()),
                      {trainImages.count, trainImages.channels, trainImages.height, trainImages.width}, at::kFloat)
            .to(device);
    const Tensor y = at::tensor(std::vector<int64_t>(trainLabels.begin(), trainLabels.end()), at::kLong).to(device);
    std::vector<Tensor*> weights = net.parameters();
    train::detail::SgdOptimizer optimizer(weights, params.learningRate, params.momentum, params.weightDecay);
    const int64_t n = trainImages.count;
    for (int epoch = 0; epoch < params.epochs; ++epoch) {
        if (epoch == params.epochs / 2) optimizer.setLearningRate(params.learningRate * 0.1);
        const Tensor order = at::randperm(n, gen, at::TensorOptions().dtype(at::kLong)).to(device);
        for (int64_t start = 0; start < n; start += params.batchSize) {
            throwIfCancelled(cancel);
            const Tensor rows = order.slice(0, start, std::min(n, start + params.batchSize));
            train::detail::zeroGradients(weights);
            at::cross_entropy_loss(net.forward(x.index_select(0, rows), nullptr), y.index_select(0, rows)).backward();
            optimizer.step();
        }
    }
    const std::vector<float> testPixels = normalised(testImages, params.pixelMean, params.pixelStd);
    const train::ImageView testView{testPixels, testImages.count, testImages.channels, testImages.height,
                                    testImages.width};
    return accuracyFromLogits(train::detail::predictLogits(net, testView, device), testLabels);
}

Result<double> accuracyOf(const train::Model& model, const train::ImageView& testImages,
                          std::span<const int> testLabels) {
    if (auto e = train::checkFinetuneLabels(testLabels, testImages.count, model.spec().outputs)) return *e;
    auto logits = model.logits(testImages);
    if (!logits) return logits.error();
    const Tensor l =
        at::from_blob(const_cast<float*>(logits->data()), {testImages.count, model.spec().outputs}, at::kFloat);
    return accuracyFromLogits(l, testLabels);
}

}  // namespace dpmix::psg
