#pragma once
// Internal (torch) header: the Dirichlet mechanism's per-example loss, exposed for tests.
#include "engine/privacy/mechanism_random.h"

#include <ATen/ATen.h>

namespace dpmix::train::detail {

/// −log p̃_y per example, p̃ ~ Dir(r·softmax(logits) + α), drawn as normalised Gamma variates
/// from the mechanism's secure stream; their derivative w.r.t. the concentration
/// (at::_standard_gamma_grad, the implicit reparameterisation gradient) gives the pathwise
/// gradient. logits (B, d), d ≥ 2; targets (B) long. Differentiable w.r.t. logits.
at::Tensor dirichletLossPerExample(const at::Tensor& logits, const at::Tensor& targets, double r, double alpha,
                                   privacy::MechanismRng& gammaDraws);

/// (B, 1) single-logit outputs become (B, 2) logits (0, z): softmax(0, z) = (1−σ(z), σ(z)).
at::Tensor asTwoClassLogits(const at::Tensor& logits);

}  // namespace dpmix::train::detail
