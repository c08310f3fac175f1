#pragma once
// Internal (torch) header: the Gaussian noise of DP-SGD, drawn from the mechanism's secure stream.
// The same hardened sampler as privacy::MechanismRng::gaussian() — each value is the sum of four
// independent Box–Muller normals divided by 2 (docs/PRIVACY.md, "Secret randomness") — in bulk:
// the output is cut into chunks of 16,384 values, each chunk reads its own run of key stream (at a
// block fixed by its position, so the values do not depend on the thread count) and turns it into
// uniforms and then normals with ATen's vectorised logarithms, square roots and sines on the same
// thread, while the chunk is in cache; chunks run on torch's intra-op threads
// (docs/BENCHMARKS.md has the cost).
#include "engine/privacy/mechanism_random.h"

#include <ATen/ATen.h>

namespace dpmix::train::detail {

/// Standard-normal noise of shape `sizes` on the CPU, in `dtype`. Double is computed in double
/// from 53-bit uniforms (every value in [-privacy::kGaussianBound, privacy::kGaussianBound]);
/// every other dtype in float32 from 32-bit uniforms, then converted (every value in
/// [-privacy::kGaussianBoundFloat, privacy::kGaussianBoundFloat]).
at::Tensor secureGaussian(privacy::MechanismRng& rng, at::IntArrayRef sizes, at::ScalarType dtype);

}  // namespace dpmix::train::detail
