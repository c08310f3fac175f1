#include "engine/train/proxy.h"

#include "engine/train/detail/model_impl.h"
#include "engine/train/detail/plain_training.h"

namespace dpmix::train {

namespace {

// Logit differences z_i1 − z_i0 per source: (B, 2k) → (B, k).
at::Tensor sourceLogits(const at::Tensor& logits, int sources) {
    at::Tensor pairs = logits.reshape({logits.size(0), sources, 2});
    return pairs.select(2, 1) - pairs.select(2, 0);
}

}  // namespace

namespace {

Result<Model> trainProxyImpl(const ImageView& images, std::span<const float> labels,
                             std::span<const unsigned char> defined, int sources, const ModelSpec& architecture,
                             const SupervisedParams& params, const ProgressCallback& progress,
                             const CancellationToken& cancel) {
    if (auto e = checkImages("proxy training images", images)) return *e;
    if (auto e = checkSourceLabels("proxy training labels", labels, images.count, sources)) return *e;
    ModelSpec spec = architecture;
    spec.outputs = 2 * sources;
    if (auto e = checkImageShape("proxy training images", images, spec.channels, spec.height, spec.width)) return *e;

    // Binary targets with uncertain (−1) mapped to 0, held as one tensor indexed per batch.
    at::Tensor targets = at::from_blob(const_cast<float*>(labels.data()), {images.count, sources}, at::kFloat)
                             .clamp_min(0.0)
                             .gt(0.5)
                             .to(at::kFloat);
    Model model = Model::create(spec, params.seed, params.device);
    auto& impl = model.impl();
    targets = targets.to(impl.device);
    at::Tensor mask;  // undefined: every label is defined (one source)
    if (!defined.empty())
        mask = at::from_blob(const_cast<unsigned char*>(defined.data()), {images.count, sources}, at::kByte)
                   .to(at::kFloat)
                   .to(impl.device);
    auto loss = [&](const at::Tensor& logits, const std::vector<int64_t>& rows) {
        at::Tensor idx = at::tensor(rows, at::kLong).to(impl.device);
        // Σ_i CE of source i's two-way softmax = Σ_i BCE(σ(z_i1 − z_i0), y_i); mean over the batch.
        // With a mask, the undefined pairs weigh 0.
        c10::optional<at::Tensor> weight;
        if (mask.defined()) weight = mask.index_select(0, idx);
        return at::binary_cross_entropy_with_logits(sourceLogits(logits, sources), targets.index_select(0, idx), weight,
                                                    {}, at::Reduction::Sum) /
               static_cast<double>(rows.size());
    };
    detail::trainSupervised(impl.network, impl.device, images, detail::trainingSubset(images.count, params), params,
                            loss, "proxy", progress, cancel);
    return model;
}

}  // namespace

Result<Model> trainProxy(const ImageView& images, std::span<const float> labels, int sources,
                         const ModelSpec& architecture, const SupervisedParams& params,
                         const ProgressCallback& progress, const CancellationToken& cancel) {
    return trainProxyImpl(images, labels, {}, sources, architecture, params, progress, cancel);
}

Result<Model> trainMaskedProxy(const ImageView& images, std::span<const float> labels,
                               std::span<const unsigned char> defined, int sources, const ModelSpec& architecture,
                               const SupervisedParams& params, const ProgressCallback& progress,
                               const CancellationToken& cancel) {
    if (sources <= 0 || images.count < 0 ||
        defined.size() != static_cast<std::size_t>(images.count) * static_cast<std::size_t>(sources))
        return Error{"proxy training: the label mask has " + std::to_string(defined.size()) + " entries, expected " +
                     std::to_string(images.count) + " x " + std::to_string(sources)};
    for (std::int64_t j = 0; j < images.count; ++j) {
        bool any = false;
        for (int i = 0; i < sources; ++i) any = any || defined[static_cast<std::size_t>(j * sources + i)] != 0;
        if (!any)
            return Error{"proxy training: image " + std::to_string(j) +
                         " has no defined label (every image belongs "
                         "to a source with at least one component)"};
    }
    return trainProxyImpl(images, labels, defined, sources, architecture, params, progress, cancel);
}

Result<std::vector<double>> predictProxy(const Model& proxy, const ImageView& images) {
    const ModelSpec& spec = proxy.spec();
    if (spec.outputs % 2 != 0)
        return Error{"proxy: the model has " + std::to_string(spec.outputs) +
                     " outputs, expected 2 per source (a model made by trainProxy)"};
    if (auto e = checkImages("proxy input images", images)) return *e;
    if (auto e = checkImageShape("proxy input images", images, spec.channels, spec.height, spec.width)) return *e;
    auto& impl = proxy.impl();
    at::Tensor p = at::sigmoid(sourceLogits(detail::predictLogits(impl.network, images, impl.device), spec.outputs / 2))
                       .to(at::kDouble)
                       .contiguous();
    return std::vector<double>(p.data_ptr<double>(), p.data_ptr<double>() + p.numel());
}

}  // namespace dpmix::train
