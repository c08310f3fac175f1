#pragma once
// Internal (torch) header: the Gaussian noise of DP-SGD, drawn from the mechanism's secure stream.
// The same hardened sampler as privacy::MechanismRng::gaussian() — each value is the sum of four
// independent Box–Muller normals divided by 2 (docs/PRIVACY.md, "Secret randomness") — but only
// the uniforms come from the ChaCha20 stream, one by one; the logarithms, square roots and
// trigonometric functions run vectorised in ATen, so a step's noise costs little more than
// torch's own (non-secure) randn (docs/BENCHMARKS.md).
#include "engine/privacy/mechanism_random.h"

#include <ATen/ATen.h>

namespace dpmix::train::detail {

/// Standard-normal noise of shape `sizes` on the CPU, in `dtype` (computed in double). Every
/// value lies in [-privacy::kGaussianBound, privacy::kGaussianBound].
at::Tensor secureGaussian(privacy::MechanismRng& rng, at::IntArrayRef sizes, at::ScalarType dtype);

}  // namespace dpmix::train::detail
