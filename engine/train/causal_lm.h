#pragma once
// A small GPT-style causal transformer language model behind a torch-free handle (pimpl):
// token embedding + learned positional embedding → pre-LayerNorm blocks (causal multi-head
// self-attention, GELU MLP of width 4·D) → final LayerNorm → untied LM head (no bias).
// Built from the same Layer/Tape wrappers as the image models, so DP-SGD's vectorised
// per-example clipping covers every parameter (detail/transformer_layers.h).
#include "engine/core/builder_setter.h"
#include "engine/core/result.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace dpmix::train {

struct TransformerSpec {
    int vocabulary = 8000;  // token ids 0..vocabulary−1 (the tokenizer's vocabulary size)
    int layers = 2;         // transformer blocks
    int width = 128;        // D
    int heads = 4;          // must divide D
    int context = 64;       // T: positions the model sees at once

    /// Freezable units from input to output: [embeddings, block 1..layers, final LayerNorm + head].
    /// "The last two blocks and the head" (the paper's LM fine-tuning) is trainLastBlocks = 3.
    int blockCount() const { return layers + 2; }
};

/// Validating builder: every size >= 1, heads divide the width.
class TransformerSpecBuilder {
public:
    TransformerSpecBuilder& vocabulary(int v) { return core::setField(*this, s_.vocabulary, v); }
    TransformerSpecBuilder& layers(int v) { return core::setField(*this, s_.layers, v); }
    TransformerSpecBuilder& width(int v) { return core::setField(*this, s_.width, v); }
    TransformerSpecBuilder& heads(int v) { return core::setField(*this, s_.heads, v); }
    TransformerSpecBuilder& context(int v) { return core::setField(*this, s_.context, v); }
    Result<TransformerSpec> build() const;

private:
    TransformerSpec s_;
};

class CausalLm {
public:
    /// A new model, initialised from `seed` (Linear: PyTorch's U(±1/√in); token and positional
    /// embeddings: N(0, 0.02²) as in GPT-2; LayerNorm γ = 1, β = 0), its parameters on `device`
    /// (as Model::create: "cpu", "cuda", "cuda:1").
    static CausalLm create(const TransformerSpec& spec, std::uint64_t seed, const std::string& device);

    const TransformerSpec& spec() const;
    std::int64_t parameterCount() const;
    /// All parameters flattened in a fixed order (for storing in a project file).
    std::vector<float> parameters() const;
    /// Restores parameters(); an error (and no change) on a size mismatch.
    Status setParameters(const std::vector<float>& values);

    struct Impl;
    Impl& impl() const { return *impl_; }

private:
    explicit CausalLm(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
    std::shared_ptr<Impl> impl_;
};

}  // namespace dpmix::train
