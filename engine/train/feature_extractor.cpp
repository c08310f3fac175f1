#include "engine/train/feature_extractor.h"

#include "engine/train/detail/model_impl.h"
#include "engine/train/detail/plain_training.h"

#include <algorithm>
#include <string>

namespace dpmix::train {

Result<Model> trainFeatureExtractor(const ImageView& images, std::span<const int> labels, int classes,
                                    const ModelSpec& architecture, const SupervisedParams& params,
                                    const ProgressCallback& progress, const CancellationToken& cancel) {
    if (auto e = checkImages("extractor training images", images)) return *e;
    if (classes < 2) return Error{"extractor training: " + std::to_string(classes) + " class(es), expected at least 2"};
    if (static_cast<std::int64_t>(labels.size()) != images.count)
        return Error{"extractor training: " + std::to_string(labels.size()) + " labels for " +
                     std::to_string(images.count) + " images"};
    for (std::size_t i = 0; i < labels.size(); ++i)
        if (labels[i] < 0 || labels[i] >= classes)
            return Error{"extractor training: label " + std::to_string(labels[i]) + " of image " + std::to_string(i) +
                         " is outside [0, " + std::to_string(classes) + ")"};
    ModelSpec spec = architecture;
    spec.outputs = classes;
    if (auto e = checkImageShape("extractor training images", images, spec.channels, spec.height, spec.width))
        return *e;

    std::vector<int64_t> wide(labels.begin(), labels.end());
    Model model = Model::create(spec, params.seed, params.device);
    auto& impl = model.impl();
    const at::Tensor targets = at::tensor(wide, at::kLong).to(impl.device);
    auto loss = [&](const at::Tensor& logits, const std::vector<int64_t>& rows) {
        const at::Tensor idx = at::tensor(rows, at::kLong).to(impl.device);
        return at::cross_entropy_loss(logits, targets.index_select(0, idx));
    };
    detail::trainSupervised(impl.network, impl.device, images, detail::trainingSubset(images.count, params), params,
                            loss, "extractor", progress, cancel);
    return model;
}

}  // namespace dpmix::train
