#include "engine/train/pretrain.h"

#include "engine/privacy/parameters.h"
#include "engine/train/detail/model_impl.h"
#include "engine/train/detail/plain_training.h"

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

Result<Model> pretrainOnMixture(const ImageView& images, std::span<const float> labels, int sources,
                                std::span<const double> lambda, const ModelSpec& architecture,
                                const SupervisedParams& params, const ProgressCallback& progress,
                                const CancellationToken& cancel) {
    if (auto e = checkImages("pretraining images", images)) return *e;
    if (auto e = checkSourceLabels("pretraining labels", labels, images.count, sources)) return *e;
    if (auto e = checkImageShape("pretraining images", images, architecture.channels, architecture.height,
                                 architecture.width))
        return *e;
    if (architecture.outputs != 1)
        return Error{"pretraining: the model has " + std::to_string(architecture.outputs) +
                     " outputs, expected 1 (a single logit for the mixture target)"};
    if (static_cast<int>(lambda.size()) != sources)
        return Error{"pretraining: lambda has " + std::to_string(lambda.size()) + " weights, expected one per source (" +
                     std::to_string(sources) + ")"};
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

    Model model = Model::create(architecture, params.seed);
    auto& impl = model.impl();
    std::vector<float> t = mixtureTargets(labels, sources, lambda);
    at::Tensor targets = at::tensor(t, at::kFloat).to(impl.device);
    auto loss = [&](const at::Tensor& logits, const std::vector<int64_t>& rows) {
        at::Tensor idx = at::tensor(rows, at::kLong).to(impl.device);
        return at::binary_cross_entropy_with_logits(logits.reshape({-1}), targets.index_select(0, idx));
    };
    detail::trainSupervised(impl.network, impl.device, images, detail::trainingSubset(images.count, params), params,
                            loss, "pretrain", progress, cancel);
    return model;
}

}  // namespace dpmix::train
