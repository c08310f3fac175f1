#pragma once
// Internal (torch) header: the Dirichlet mechanism's per-example loss, exposed for tests.
#include <ATen/ATen.h>

namespace dpmix::train::detail {

/// −log p̃_y per example, p̃ ~ Dir(r·softmax(logits) + α), drawn as normalised Gamma variates
/// (at::_standard_gamma, whose derivative w.r.t. the concentration gives the pathwise
/// gradient). logits (B, d), d ≥ 2; targets (B) long. Differentiable w.r.t. logits.
at::Tensor dirichletLossPerExample(const at::Tensor& logits, const at::Tensor& targets, double r, double alpha,
                                   at::Generator& generator);

/// (B, 1) single-logit outputs become (B, 2) logits (0, z): softmax(0, z) = (1−σ(z), σ(z)).
at::Tensor asTwoClassLogits(const at::Tensor& logits);

}  // namespace dpmix::train::detail
