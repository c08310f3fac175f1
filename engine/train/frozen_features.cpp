#include "engine/train/frozen_features.h"

#include "engine/train/detail/model_impl.h"

#include <algorithm>

namespace dpmix::train {

Result<FrozenFeatures> frozenExtractorFeatures(const Model& model, const ImageView& images) {
    if (auto e = checkImages("images", images)) return *e;
    const ModelSpec& spec = model.spec();
    if (auto e = checkImageShape("images", images, spec.channels, spec.height, spec.width)) return *e;
    auto& impl = model.impl();
    const auto& blocks = impl.network.blocks();
    if (blocks.size() < 2)
        return Error{"the " + toString(spec.kind) + " model has " + std::to_string(blocks.size()) +
                     " block(s): a frozen feature extractor needs the blocks before the last"};
    at::NoGradGuard noGrad;
    constexpr std::int64_t kBatch = 512;
    FrozenFeatures out;
    out.rows = images.count;
    std::vector<std::int64_t> idx;
    for (std::int64_t start = 0; start < images.count; start += kBatch) {
        idx.clear();
        for (std::int64_t i = start; i < std::min(images.count, start + kBatch); ++i) idx.push_back(i);
        detail::Tensor h = detail::gatherImages(images, idx, impl.device);
        for (std::size_t b = 0; b + 1 < blocks.size(); ++b) h = blocks[b]->forward(h, nullptr);
        h = h.reshape({static_cast<std::int64_t>(idx.size()), -1}).to(at::kCPU, at::kFloat).contiguous();
        if (out.dim == 0) {
            out.dim = h.size(1);
            out.values.reserve(static_cast<std::size_t>(out.rows * out.dim));
        }
        out.values.insert(out.values.end(), h.data_ptr<float>(), h.data_ptr<float>() + h.numel());
    }
    return out;
}

}  // namespace dpmix::train
