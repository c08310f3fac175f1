#pragma once
// Internal (torch) header: vectorised per-example gradient clipping.
//
// Given a forward pass recorded on a Tape and the per-example losses ℓ_b, one backward pass
// (autograd for d Σℓ / d output of each recorded layer, no parameter gradients) yields, per
// layer, the inputs a and output gradients g. From them each layer computes its per-example
// squared gradient norms (rank-one product, Gram trick or materialised gradients, whichever
// is cheaper), the norms are summed over layers, and the clipped sum
//     Σ_b min(1, C / ‖∇ℓ_b‖) ∇ℓ_b
// is formed by reweighting g ("book-keeping", Bu et al. 2023) — no loop over examples and no
// second backward pass. Li et al. 2022 ("ghost clipping") for the Gram trick.
#include "engine/privacy/mechanism_random.h"
#include "engine/train/detail/layers.h"

namespace dpmix::train::detail {

/// Writes the clipped gradient sum into .grad() of every parameter of every recorded layer
/// (overwriting it) and returns the unclipped per-example gradient norms, shape (B).
/// `clipNorm` = +inf gives the plain per-example-sum gradient (for tests).
/// Throws std::logic_error if a layer was applied more than once in the pass (weight sharing
/// makes per-layer norms non-additive; none of our models does it).
Tensor clipAndSumGradients(Tape& tape, const Tensor& perExampleLoss, double clipNorm);

/// User-level clipping: rows of the batch belong to users (`userOfRow`, long (B), values in
/// [0, users)). User u's gradient is the mean of its rows' gradients, ḡ_u = (1/|u|) Σ_{b∈u} ∇ℓ_b
/// (the gradient of the user's mean loss); the clipped sum Σ_u min(1, C/‖ḡ_u‖) ḡ_u is written
/// into .grad() of every recorded layer's parameters, and the unclipped per-user norms, shape
/// (users), are returned. Every user in [0, users) must have at least one row. A user with a
/// non-finite gradient in any row contributes nothing (as clipAndSumGradients does per example;
/// its norm is returned as NaN).
/// No per-example gradients are materialised where a layer allows it: each layer gives ‖Σ_{b∈u} ∇ℓ_b‖²
/// from its inputs a and output gradients g (TrainableLayer::perUserSquaredNorms: the Gram trick
/// Σ_{b,b'∈u} ⟨a_b a_b'ᵀ, g_b g_b'ᵀ⟩ on the users' rows grouped (UserRows), or the per-user sums
/// materialised, users × P numbers — whichever a flop count says is cheaper;
/// normalisation layers and other small per-example gradients are summed within users), and the
/// clipped sum is formed by book-keeping: row b's output gradient weighted by factor_u/|u| of its
/// user, one weighted product per layer.
Tensor clipAndSumUserGradients(Tape& tape, const Tensor& perExampleLoss, const Tensor& userOfRow, int64_t users,
                               double clipNorm);

/// The Gaussian mechanism on the clipped sum: grad ← (grad + N(0, noiseStd² I)) / denominator
/// for every parameter in `params` (a missing gradient counts as zero: noise is still added).
/// DP-SGD passes noiseStd = σC and denominator = q·N (the expected batch, as Opacus does).
/// The noise comes from the mechanism's noise stream (drawn in bulk on the CPU, then moved to
/// the parameter's device). `sensitivity` is the clipped sum's L2 sensitivity (C): the float32
/// sampler bounds its noise at 9.42 standard deviations, which adds about P(Z > 9.42 − 1/z) to δ
/// per step (z = noiseStd / sensitivity; docs/PRIVACY.md, "Gaussian sampling"), so a float32
/// gradient gets float32 noise only where z ≥ kMinFloatNoiseMultiplier — then below 1.9·10⁻¹⁷ per
/// step — and the double sampler's noise (bound 17.14) otherwise.
inline constexpr double kMinFloatNoiseMultiplier = 1.0;
void privatiseGradients(const std::vector<Tensor*>& params, double noiseStd, double sensitivity, double denominator,
                        privacy::MechanismRng& noise);

/// Per-example losses, shape (B): binary (logits (B,1), targets (B) in [0,1]) by BCE with
/// logits; multi-class (logits (B,K), targets (B) long) by cross-entropy.
Tensor binaryLossPerExample(const Tensor& logits, const Tensor& targets);
Tensor multiclassLossPerExample(const Tensor& logits, const Tensor& targets);

}  // namespace dpmix::train::detail
