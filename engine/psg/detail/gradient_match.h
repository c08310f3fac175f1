#pragma once
// Internal (torch) header: the pieces of one PSG matching step (docs/PSG.md, "Method"), exposed
// for the tests and the benchmark.
#include "engine/privacy/mechanism_random.h"
#include "engine/train/detail/network.h"

#include <ATen/ATen.h>

#include <vector>

namespace dpmix::psg::detail {

using at::Tensor;

/// The gradient-matching distance: for every pair of gradients of one weight tensor, viewed as
/// rows = its first dimension (a convolution's output channels, a linear layer's outputs),
/// Σ_rows (1 − ⟨g_r, h_r⟩ / (‖g_r‖·‖h_r‖ + 1e-6)); summed over tensors. Tensors of one dimension
/// (biases, normalisation weights) contribute 0. Per row it is scale-invariant, so how the DP
/// gradient is normalised (sum, or sum / expected batch) does not matter.
/// Differentiable in `synthetic`. Throws std::invalid_argument when the lists or shapes differ.
Tensor matchDistance(const std::vector<Tensor>& synthetic, const std::vector<Tensor>& real);

/// The private gradient of the real batch at the network's current parameters (the only use of
/// sensitive data): per-example cross-entropy gradients, each clipped to `clipNorm` by the
/// engine's vectorised clipping, summed, plus N(0, noiseStd²) per coordinate from `noise`, divided
/// by `denominator`. `images` may be undefined (an empty Poisson batch: noise only). Returns one
/// detached tensor per parameter, in parameters() order; leaves no gradient on the network.
std::vector<Tensor> privateRealGradient(train::detail::Network& net, const Tensor& images, const Tensor& labels,
                                        double clipNorm, double noiseStd, double denominator,
                                        privacy::MechanismRng& noise);

/// ∇θ of the mean cross-entropy of the set under the network, built with create_graph so that
/// a distance of it can be differentiated with respect to the set's pixels (double backward).
std::vector<Tensor> syntheticGradient(train::detail::Network& net, const Tensor& set, const Tensor& labels);

}  // namespace dpmix::psg::detail
