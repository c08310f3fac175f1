#pragma once
// Internal (torch) header: the layers of the small GPT-style causal language model, on the same
// Layer/Tape design as layers.h, so DP-SGD's vectorised per-example clipping covers them:
//   LayerNorm           trainable, per-example norms with a sequence dimension
//   PositionalEmbedding trainable, learned absolute positions added to the token embedding
//   CausalSelfAttention container of two Linear layers (fused q,k,v and the output projection)
//   TransformerBlock    pre-LayerNorm block: x + attn(ln1(x)), then x + mlp(ln2(x)), GELU MLP
// The attention itself has no parameters: only its Linear layers record on the Tape, and their
// 3-D per-example norms use the Gram trick or materialisation, whichever is cheaper (layers.cpp).
#include "engine/train/detail/layers.h"

namespace dpmix::train::detail {

/// LayerNorm over the last dimension of (B, D) or (B, T, D), with a per-feature affine map.
/// Init: γ = 1, β = 0. Per-example: ∇γ_b = Σ_t g_bt ⊙ x̂_bt, ∇β_b = Σ_t g_bt (materialised:
/// only 2·D numbers per example).
class LayerNorm : public TrainableLayer {
public:
    LayerNorm(int64_t dim, const InitOptions& init, double eps = 1e-5);
    Tensor forward(const Tensor& x, Tape* tape) override;
    std::vector<Tensor*> parameters() override;
    Tensor perExampleSquaredNorms(Capture& capture, const Tensor& gradOutput) override;
    std::vector<Tensor> weightedGradients(Capture& capture, const Tensor& gradOutput, const Tensor& weights) override;
    std::vector<Tensor> perExampleGradients(Capture& capture, const Tensor& gradOutput) override;
    std::string name() const override { return "LayerNorm"; }
    Tensor weight, bias;
    double eps;
};

/// x + P[0:T] for x of shape (B, T, D), T ≤ the table's length. Init: N(0, 0.02²) (GPT-2).
/// Example b's gradient is its own output gradient g_b in rows 0..T−1 (zero below), so
/// ‖∇P_b‖² = Σ_t ‖g_bt‖².
class PositionalEmbedding : public TrainableLayer {
public:
    PositionalEmbedding(int64_t positions, int64_t dim, const InitOptions& init);
    Tensor forward(const Tensor& x, Tape* tape) override;
    std::vector<Tensor*> parameters() override;
    Tensor perExampleSquaredNorms(Capture& capture, const Tensor& gradOutput) override;
    std::vector<Tensor> weightedGradients(Capture& capture, const Tensor& gradOutput, const Tensor& weights) override;
    std::vector<Tensor> perExampleGradients(Capture& capture, const Tensor& gradOutput) override;
    std::string name() const override { return "PositionalEmbedding"; }
    Tensor weight;
};

/// Multi-head causal self-attention on (B, T, D): position t attends to positions ≤ t only.
class CausalSelfAttention : public Layer {
public:
    CausalSelfAttention(int64_t dim, int64_t heads, const InitOptions& init);
    Tensor forward(const Tensor& x, Tape* tape) override;
    std::vector<Tensor*> parameters() override;
    void setFrozen(bool frozen) override;
    std::vector<Layer*> children() override;
    std::string name() const override { return "CausalSelfAttention"; }

private:
    int64_t heads_;
    std::shared_ptr<Linear> qkv_, proj_;
};

class Gelu : public Layer {
public:
    Tensor forward(const Tensor& x, Tape*) override;
    std::string name() const override { return "GELU"; }
};

/// The pre-LayerNorm transformer block: h = x + attn(ln1(x)); out = h + fc2(gelu(fc1(ln2(h)))),
/// MLP width 4·D.
class TransformerBlock : public Layer {
public:
    TransformerBlock(int64_t dim, int64_t heads, const InitOptions& init);
    Tensor forward(const Tensor& x, Tape* tape) override;
    std::vector<Tensor*> parameters() override;
    void setFrozen(bool frozen) override;
    std::vector<Layer*> children() override;
    std::string name() const override { return "TransformerBlock"; }

private:
    std::shared_ptr<LayerNorm> ln1_, ln2_;
    std::shared_ptr<CausalSelfAttention> attention_;
    std::shared_ptr<Sequential> mlp_;
};

}  // namespace dpmix::train::detail
