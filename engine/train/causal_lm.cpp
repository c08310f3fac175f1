// The causal transformer LM: spec validation, construction, parameter I/O, window batches.
#include "engine/train/detail/causal_lm_impl.h"
#include "engine/train/detail/transformer_layers.h"

#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace dpmix::train {

Result<TransformerSpec> TransformerSpecBuilder::build() const {
    for (auto [field, v] :
         {std::pair{"vocabulary", s_.vocabulary}, std::pair{"layers", s_.layers}, std::pair{"width", s_.width},
          std::pair{"heads", s_.heads}, std::pair{"context", s_.context}})
        if (v < 1)
            return Error{std::string("transformer ") + field + " = " + std::to_string(v) +
                         " is out of range: expected an integer >= 1"};
    if (s_.width % s_.heads != 0)
        return Error{"transformer heads = " + std::to_string(s_.heads) + " does not divide width = " +
                     std::to_string(s_.width) + ": expected width to be a multiple of heads"};
    return s_;
}

namespace detail {

Network buildCausalLm(const TransformerSpec& spec, at::Generator& generator, at::TensorOptions options) {
    InitOptions init{options, &generator};
    auto tokens = std::make_shared<Embedding>(spec.vocabulary, spec.width, init);
    {
        // GPT-2's N(0, 0.02²) instead of Embedding's N(0, 1): unit-variance embeddings would
        // swamp the residual stream of a freshly initialised model.
        at::NoGradGuard noGrad;
        tokens->weight.mul_(0.02);
    }
    std::vector<LayerPtr> blocks;
    blocks.push_back(std::make_shared<Sequential>(
        std::vector<LayerPtr>{tokens, std::make_shared<PositionalEmbedding>(spec.context, spec.width, init)}));
    for (int l = 0; l < spec.layers; ++l)
        blocks.push_back(std::make_shared<TransformerBlock>(spec.width, spec.heads, init));
    blocks.push_back(std::make_shared<Sequential>(
        std::vector<LayerPtr>{std::make_shared<LayerNorm>(spec.width, init),
                              std::make_shared<Linear>(spec.width, spec.vocabulary, init, false)}));
    return Network(std::move(blocks));
}

WindowBatch makeWindows(const std::vector<std::span<const std::int32_t>>& streams,
                        const std::vector<std::int64_t>& starts, int context, at::Device device) {
    const auto b = static_cast<std::int64_t>(streams.size());
    Tensor inputs = at::zeros({b, context}, at::kLong), targets = at::zeros({b, context}, at::kLong);
    Tensor mask = at::zeros({b, context}, at::kFloat);
    auto in = inputs.accessor<std::int64_t, 2>();
    auto out = targets.accessor<std::int64_t, 2>();
    auto m = mask.accessor<float, 2>();
    for (std::int64_t r = 0; r < b; ++r) {
        const auto& s = streams[static_cast<std::size_t>(r)];
        const std::int64_t start = starts[static_cast<std::size_t>(r)];
        const std::int64_t available = static_cast<std::int64_t>(s.size()) - start;  // tokens from start on
        for (std::int64_t t = 0; t < context && t < available; ++t) {
            in[r][t] = s[static_cast<std::size_t>(start + t)];
            if (t + 1 < available) {
                out[r][t] = s[static_cast<std::size_t>(start + t + 1)];
                m[r][t] = 1.0f;
            }
        }
    }
    return {inputs.to(device), targets.to(device), mask.to(device)};
}

Tensor windowLoss(const Tensor& logits, const WindowBatch& batch) {
    const int64_t b = logits.size(0), t = logits.size(1), v = logits.size(2);
    Tensor nll = at::nll_loss(at::log_softmax(logits.reshape({b * t, v}), 1), batch.targets.reshape({-1}), {},
                              at::Reduction::None)
                     .reshape({b, t});
    Tensor mask = batch.mask.to(nll.scalar_type());
    return (nll * mask).sum(1) / mask.sum(1).clamp_min(1.0);
}

}  // namespace detail

CausalLm CausalLm::create(const TransformerSpec& spec, std::uint64_t seed, const std::string& device) {
    auto impl = std::make_shared<Impl>();
    impl->spec = spec;
    at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(seed);
    impl->network = detail::buildCausalLm(spec, gen);
    impl->device = detail::deviceNamed(device);
    if (!impl->device.is_cpu()) {
        at::NoGradGuard noGrad;
        for (at::Tensor* p : impl->network.parameters()) *p = p->to(impl->device).set_requires_grad(true);
    }
    return CausalLm(std::move(impl));
}

const TransformerSpec& CausalLm::spec() const { return impl_->spec; }

std::int64_t CausalLm::parameterCount() const { return impl_->network.parameterCount(); }

std::vector<float> CausalLm::parameters() const { return impl_->network.flatParameters(); }

Status CausalLm::setParameters(const std::vector<float>& values) {
    if (static_cast<std::int64_t>(values.size()) != parameterCount())
        return Error{"language model parameters: got " + std::to_string(values.size()) + " values, the model has " +
                     std::to_string(parameterCount())};
    impl_->network.loadFlatParameters(values);
    return std::nullopt;
}

}  // namespace dpmix::train
