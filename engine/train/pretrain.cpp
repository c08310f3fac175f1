#include "engine/train/pretrain.h"

#include "engine/privacy/parameters.h"
#include "engine/train/detail/model_impl.h"
#include "engine/train/detail/plain_training.h"
#include "engine/train/evaluation.h"

#include <algorithm>
#include <cmath>

namespace dpmix::train {

std::vector<float> mixtureTargets(std::span<const float> labels, int sources, std::span<const double> lambda) {
    const std::size_t n = labels.size() / static_cast<std::size_t>(sources);
    std::vector<float> t(n, 0.0f);
    for (std::size_t j = 0; j < n; ++j) {
        double sum = 0.0;
        for (int i = 0; i < sources; ++i) {
            const float y = labels[j * static_cast<std::size_t>(sources) + static_cast<std::size_t>(i)];
            sum += lambda[static_cast<std::size_t>(i)] * (y > 0.0f ? y : 0.0f);
        }
        t[j] = static_cast<float>(sum);
    }
    return t;
}

namespace {

Status checkPretrainingInputs(const ImageView& images, std::span<const float> labels, int sources,
                              std::span<const double> lambda, const ModelSpec& architecture) {
    if (auto e = checkImages("pretraining images", images)) return e;
    if (auto e = checkSourceLabels("pretraining labels", labels, images.count, sources)) return e;
    if (auto e = checkImageShape("pretraining images", images, architecture.channels, architecture.height,
                                 architecture.width))
        return e;
    if (architecture.outputs != 1)
        return Error{"pretraining: the model has " + std::to_string(architecture.outputs) +
                     " outputs, expected 1 (a single logit for the mixture target)"};
    if (static_cast<int>(lambda.size()) != sources)
        return Error{"pretraining: lambda has " + std::to_string(lambda.size()) +
                     " weights, expected one per source (" + std::to_string(sources) + ")"};
    double total = 0.0;
    for (std::size_t i = 0; i < lambda.size(); ++i) {
        if (!(lambda[i] >= 0.0 && std::isfinite(lambda[i])))
            return Error{"pretraining: lambda[" + std::to_string(i) + "] = " + privacy::formatNumber(lambda[i]) +
                         " is out of range: mixture weights must be finite and >= 0"};
        total += lambda[i];
    }
    if (std::abs(total - 1.0) > 1e-6)
        return Error{"pretraining: lambda sums to " + privacy::formatNumber(total) +
                     ", expected mixture weights on the simplex (sum 1)"};
    return std::nullopt;
}

// BCE on the soft targets, weighted per image when `weights` is given (several sources).
Model pretrainOnTargets(const ImageView& images, const std::vector<float>& t, const std::vector<float>* weights,
                        const ModelSpec& architecture, const SupervisedParams& params, const ProgressCallback& progress,
                        const CancellationToken& cancel) {
    Model model = Model::create(architecture, params.seed, params.device);
    auto& impl = model.impl();
    at::Tensor targets = at::tensor(t, at::kFloat).to(impl.device);
    at::Tensor imageWeights;
    if (weights) imageWeights = at::tensor(*weights, at::kFloat).to(impl.device);
    auto loss = [&](const at::Tensor& logits, const std::vector<int64_t>& rows) {
        at::Tensor idx = at::tensor(rows, at::kLong).to(impl.device);
        if (!imageWeights.defined())
            return at::binary_cross_entropy_with_logits(logits.reshape({-1}), targets.index_select(0, idx));
        return at::binary_cross_entropy_with_logits(logits.reshape({-1}), targets.index_select(0, idx),
                                                    imageWeights.index_select(0, idx));
    };
    detail::trainSupervised(impl.network, impl.device, images, detail::trainingSubset(images.count, params), params,
                            loss, "pretrain", progress, cancel);
    return model;
}

}  // namespace

Result<Model> pretrainOnMixture(const ImageView& images, std::span<const float> labels, int sources,
                                std::span<const double> lambda, const ModelSpec& architecture,
                                const SupervisedParams& params, const ProgressCallback& progress,
                                const CancellationToken& cancel) {
    if (auto e = checkPretrainingInputs(images, labels, sources, lambda, architecture)) return *e;
    return pretrainOnTargets(images, mixtureTargets(labels, sources, lambda), nullptr, architecture, params, progress,
                             cancel);
}

Result<WeightedTargets> sourceMixtureTargets(std::span<const float> labels, int components,
                                             std::span<const std::size_t> componentSource,
                                             std::span<const std::size_t> imageSource, std::span<const double> lambda) {
    const auto k = static_cast<std::size_t>(components);
    const std::size_t n = imageSource.size();
    if (components <= 0 || componentSource.size() != k || lambda.size() != k || labels.size() != n * k)
        return Error{"pretraining: " + std::to_string(componentSource.size()) + " component sources, " +
                     std::to_string(lambda.size()) + " weights and " + std::to_string(labels.size()) +
                     " labels do not fit " + std::to_string(n) + " images x " + std::to_string(k) + " components"};
    std::size_t sources = 0;
    for (auto s : componentSource) sources = std::max(sources, s + 1);
    for (auto s : imageSource)
        if (s >= sources)
            return Error{"pretraining: an image belongs to source " + std::to_string(s) + ", which has no component"};
    std::vector<double> mass(sources, 0.0);
    std::vector<std::size_t> count(sources, 0);
    for (std::size_t c = 0; c < k; ++c) mass[componentSource[c]] += lambda[c];
    for (auto s : imageSource) ++count[s];
    WeightedTargets out;
    out.targets.assign(n, 0.0f);
    out.weights.assign(n, 0.0f);
    for (std::size_t j = 0; j < n; ++j) {
        const std::size_t s = imageSource[j];
        if (!(mass[s] > 0.0)) continue;  // no λ mass: the mixture never draws this image
        double sum = 0.0;
        for (std::size_t c = 0; c < k; ++c)
            if (componentSource[c] == s) {
                const float y = labels[j * k + c];
                sum += lambda[c] * (y > 0.0f ? y : 0.0f);
            }
        out.targets[j] = static_cast<float>(std::min(1.0, sum / mass[s]));
        out.weights[j] = static_cast<float>(mass[s] * static_cast<double>(n) / static_cast<double>(count[s]));
    }
    return out;
}

Result<Model> pretrainOnSourceMixture(const ImageView& images, std::span<const float> labels, int components,
                                      std::span<const std::size_t> componentSource,
                                      std::span<const std::size_t> imageSource, std::span<const double> lambda,
                                      const ModelSpec& architecture, const SupervisedParams& params,
                                      const ProgressCallback& progress, const CancellationToken& cancel) {
    if (auto e = checkPretrainingInputs(images, labels, components, lambda, architecture)) return *e;
    if (imageSource.size() != static_cast<std::size_t>(images.count))
        return Error{"pretraining: " + std::to_string(imageSource.size()) + " image sources for " +
                     std::to_string(images.count) + " images"};
    auto weighted = sourceMixtureTargets(labels, components, componentSource, imageSource, lambda);
    if (!weighted) return weighted.error();
    return pretrainOnTargets(images, weighted->targets, &weighted->weights, architecture, params, progress, cancel);
}

Result<std::string> pretrainingCollapse(const Model& model, const ImageView& images, std::int64_t maxImages) {
    const std::int64_t count = std::min(images.count, std::max<std::int64_t>(1, maxImages));
    if (count <= 0) return std::string();
    const auto size = static_cast<std::size_t>(images.imageSize());
    std::vector<float> pixels;
    pixels.reserve(static_cast<std::size_t>(count) * size);
    for (std::int64_t i = 0; i < count; ++i) {
        const auto row = static_cast<std::size_t>(i * images.count / count);  // evenly spaced
        pixels.insert(pixels.end(), images.pixels.begin() + static_cast<std::ptrdiff_t>(row * size),
                      images.pixels.begin() + static_cast<std::ptrdiff_t>((row + 1) * size));
    }
    auto logits = model.logits({pixels, count, images.channels, images.height, images.width});
    if (!logits) return Error{"pretraining check: " + logits.error().message};
    return collapsedOutputs(*logits);
}

}  // namespace dpmix::train
