// The causal language model's layers (see transformer_layers.h) and their per-example algebra.
// Notation as in layers.cpp: a = what a parameter multiplies, g = d(Σ_b ℓ_b)/d output.
#include "engine/train/detail/transformer_layers.h"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace dpmix::train::detail {

namespace {

// Σ_b w_b · perExample_b, reshaped to `like`.
Tensor weightedRows(const Tensor& w, const Tensor& perExample, const Tensor& like) {
    const int64_t b = perExample.size(0);
    return w.unsqueeze(0).mm(perExample.reshape({b, -1})).reshape(like.sizes());
}

}  // namespace

// ---- LayerNorm ---------------------------------------------------------------------------------

LayerNorm::LayerNorm(int64_t dim, const InitOptions& init, double e) : eps(e) {
    weight = at::ones({dim}, init.tensor).set_requires_grad(true);
    bias = at::zeros({dim}, init.tensor).set_requires_grad(true);
}

Tensor LayerNorm::forward(const Tensor& x, Tape* tape) {
    // As GroupNorm in layers.cpp: normalise without the affine map, then apply γ, β ourselves so
    // they act on x̂ like a diagonal linear layer whose input the Tape can record.
    Tensor xhat = at::layer_norm(x, {x.size(-1)}, {}, {}, eps);
    return record(tape, xhat, xhat * weight + bias);
}

std::vector<Tensor*> LayerNorm::parameters() { return {&weight, &bias}; }

Tensor LayerNorm::perExampleSquaredNorms(Capture& c, const Tensor& gradOutput) {
    const int64_t b = gradOutput.size(0), d = weight.size(0);
    Tensor g = gradOutput.reshape({b, -1, d});
    Tensor gw = (g * c.input.reshape({b, -1, d})).sum(1);  // ∇γ_b, (B, D)
    Tensor gb = g.sum(1);                                  // ∇β_b, (B, D)
    c.perExampleGrads = {gw, gb};
    return gw.pow(2).sum(1) + gb.pow(2).sum(1);
}

std::vector<Tensor> LayerNorm::weightedGradients(Capture& c, const Tensor&, const Tensor& w) {
    return {weightedRows(w, c.perExampleGrads.at(0), weight), weightedRows(w, c.perExampleGrads.at(1), bias)};
}

std::vector<Tensor> LayerNorm::perExampleGradients(Capture& c, const Tensor& gradOutput) {
    const int64_t b = gradOutput.size(0), d = weight.size(0);
    Tensor g = gradOutput.reshape({b, -1, d});
    return {(g * c.input.reshape({b, -1, d})).sum(1), g.sum(1)};
}

// ---- PositionalEmbedding -----------------------------------------------------------------------

PositionalEmbedding::PositionalEmbedding(int64_t positions, int64_t dim, const InitOptions& init) {
    if (init.generator == nullptr) throw std::invalid_argument("layer initialisation needs an explicit generator");
    weight = at::empty({positions, dim}, init.tensor);
    weight.normal_(0.0, 0.02, *init.generator);
    weight.set_requires_grad(true);
}

Tensor PositionalEmbedding::forward(const Tensor& x, Tape* tape) {
    const int64_t t = x.size(1);
    if (t > weight.size(0))
        throw std::invalid_argument("PositionalEmbedding: sequence of " + std::to_string(t) +
                                    " positions exceeds the context of " + std::to_string(weight.size(0)));
    return record(tape, x, x + weight.narrow(0, 0, t).unsqueeze(0));
}

std::vector<Tensor*> PositionalEmbedding::parameters() { return {&weight}; }

Tensor PositionalEmbedding::perExampleSquaredNorms(Capture&, const Tensor& gradOutput) {
    return gradOutput.pow(2).flatten(1).sum(1);
}

std::vector<Tensor> PositionalEmbedding::weightedGradients(Capture&, const Tensor& gradOutput, const Tensor& w) {
    const int64_t b = gradOutput.size(0), t = gradOutput.size(1), d = gradOutput.size(2);
    Tensor grad = at::zeros_like(weight);
    grad.narrow(0, 0, t).copy_(w.unsqueeze(0).mm(gradOutput.reshape({b, t * d})).reshape({t, d}));
    return {grad};
}

std::vector<Tensor> PositionalEmbedding::perExampleGradients(Capture&, const Tensor& gradOutput) {
    const int64_t b = gradOutput.size(0), t = gradOutput.size(1), d = gradOutput.size(2);
    Tensor grad = at::zeros({b, weight.size(0), d}, gradOutput.options());
    grad.narrow(1, 0, t).copy_(gradOutput);  // rows below T stay zero
    return {grad.reshape({b, -1})};
}

// ---- CausalSelfAttention -----------------------------------------------------------------------

CausalSelfAttention::CausalSelfAttention(int64_t dim, int64_t heads, const InitOptions& init)
    : heads_(heads),
      qkv_(std::make_shared<Linear>(dim, 3 * dim, init)),
      proj_(std::make_shared<Linear>(dim, dim, init)) {
    if (heads < 1 || dim % heads != 0)
        throw std::invalid_argument("CausalSelfAttention: width " + std::to_string(dim) + " is not divisible by " +
                                    std::to_string(heads) + " heads");
}

Tensor CausalSelfAttention::forward(const Tensor& x, Tape* tape) {
    const int64_t b = x.size(0), t = x.size(1), d = x.size(2), hd = d / heads_;
    Tensor qkv = qkv_->forward(x, tape).reshape({b, t, 3, heads_, hd}).permute({2, 0, 3, 1, 4});  // (3, B, H, T, hd)
    Tensor q = qkv[0], k = qkv[1], v = qkv[2];
    Tensor scores = at::matmul(q, k.transpose(-2, -1)) / std::sqrt(static_cast<double>(hd));  // (B, H, T, T)
    // Position t sees s ≤ t only: everything above the diagonal gets −∞ before the softmax.
    Tensor future = at::ones({t, t}, x.options().dtype(at::kBool)).triu(1);
    scores = scores.masked_fill(future, -std::numeric_limits<double>::infinity());
    Tensor attended = at::matmul(at::softmax(scores, -1), v);  // (B, H, T, hd)
    return proj_->forward(attended.transpose(1, 2).reshape({b, t, d}), tape);
}

std::vector<Tensor*> CausalSelfAttention::parameters() {
    std::vector<Tensor*> out = qkv_->parameters();
    for (Tensor* p : proj_->parameters()) out.push_back(p);
    return out;
}

void CausalSelfAttention::setFrozen(bool frozen) {
    qkv_->setFrozen(frozen);
    proj_->setFrozen(frozen);
}

std::vector<Layer*> CausalSelfAttention::children() { return {qkv_.get(), proj_.get()}; }

// ---- GELU and the block ------------------------------------------------------------------------

Tensor Gelu::forward(const Tensor& x, Tape*) { return at::gelu(x); }

TransformerBlock::TransformerBlock(int64_t dim, int64_t heads, const InitOptions& init)
    : ln1_(std::make_shared<LayerNorm>(dim, init)),
      ln2_(std::make_shared<LayerNorm>(dim, init)),
      attention_(std::make_shared<CausalSelfAttention>(dim, heads, init)),
      mlp_(std::make_shared<Sequential>(std::vector<LayerPtr>{std::make_shared<Linear>(dim, 4 * dim, init),
                                                              std::make_shared<Gelu>(),
                                                              std::make_shared<Linear>(4 * dim, dim, init)})) {}

Tensor TransformerBlock::forward(const Tensor& x, Tape* tape) {
    Tensor h = x + attention_->forward(ln1_->forward(x, tape), tape);
    return h + mlp_->forward(ln2_->forward(h, tape), tape);
}

std::vector<Tensor*> TransformerBlock::parameters() {
    std::vector<Tensor*> out;
    for (Layer* child : children())
        for (Tensor* p : child->parameters()) out.push_back(p);
    return out;
}

void TransformerBlock::setFrozen(bool frozen) {
    for (Layer* child : children()) child->setFrozen(frozen);
}

std::vector<Layer*> TransformerBlock::children() { return {ln1_.get(), attention_.get(), ln2_.get(), mlp_.get()}; }

}  // namespace dpmix::train::detail
