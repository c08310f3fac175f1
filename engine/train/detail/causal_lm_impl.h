#pragma once
// Internal (torch) header: what a CausalLm handle holds, the network builder, and the window
// batches every LM trainer uses.
#include "engine/train/causal_lm.h"
#include "engine/train/detail/network.h"

#include <cstdint>
#include <span>
#include <vector>

namespace dpmix::train {

struct CausalLm::Impl {
    TransformerSpec spec;
    detail::Network network;
    at::Device device = at::kCPU;
};

namespace detail {

/// Blocks: [Embedding + PositionalEmbedding, TransformerBlock × layers, LayerNorm + Linear head].
Network buildCausalLm(const TransformerSpec& spec, at::Generator& generator,
                      at::TensorOptions options = at::TensorOptions().dtype(at::kFloat));

/// Next-token windows: inputs (B, T) and targets (B, T) as long, mask (B, T) 1 where the target
/// is a real token, 0 on padding (a stream shorter than T+1 is padded with token 0 at the end;
/// causal attention keeps the padding from affecting earlier positions).
struct WindowBatch {
    Tensor inputs, targets, mask;
};

/// Window b: tokens starts[b] .. starts[b]+T of streams[b] (fewer at the end of a short stream).
WindowBatch makeWindows(const std::vector<std::span<const std::int32_t>>& streams,
                        const std::vector<std::int64_t>& starts, int context, at::Device device);

/// Per-window loss ℓ_b = mean over the window's real targets of −log p(target | prefix), (B).
Tensor windowLoss(const Tensor& logits, const WindowBatch& batch);

}  // namespace detail
}  // namespace dpmix::train
