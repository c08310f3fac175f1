#pragma once
// Internal header: the float32 hardened Gaussian sampler of DP-SGD's noise (secure_noise.cpp) as
// one vectorised pass over a chunk of key stream — no torch. Each output is (z1 + z2 + z3 + z4)/2
// of four Box–Muller normals, the two of pair j and the two of pair n + j; a pair's two normals
// R cos θ and R sin θ (R = sqrt(-2 ln u1)) are summed as R (cos θ + sin θ) = √2 R sin(θ + π/4),
// the same number. The logarithm and sine are Cephes's single-precision ones (S. Moshier; as in
// Eigen and sse_mathfun) on IEEE operations only — no fused multiply-add, no table — so the
// portable, AVX2 and AVX-512 builds of the kernel give the same bits (tst_secure_noise checks it),
// and a seeded run draws the same noise on every machine.
#include <cstdint>

#include "engine/train/detail/simd_level.h"

namespace dpmix::train::detail {

/// Standard-normal float32 values out[0, count) of a chunk of n outputs (n a multiple of 16,
/// count ≤ n) from its 4n key-stream words: words j and n + j are the radius uniforms of the
/// output's two pairs, u1 = (w + 1) · 2^-32 on [2^-32, 1]; words 2n + j and 3n + j their angles,
/// θ = 2π (w >> 8) · 2^-24. Every value lies within ±privacy::kGaussianBoundFloat.
void gaussianFromWords(const std::uint32_t* words, std::int64_t n, std::int64_t count, float* out);
void gaussianFromWords(SimdLevel level, const std::uint32_t* words, std::int64_t n, std::int64_t count, float* out);

/// The kernel's own -ln u and sin x, lane by lane at `level` (for the accuracy tests): out[i] =
/// -ln(in[i]) for in[i] in [2^-32, 1], or sin(in[i]) for in[i] in [0, 8]; count a multiple of 16.
void kernelMinusLog(SimdLevel level, const float* in, std::int64_t count, float* out);
void kernelSin(SimdLevel level, const float* in, std::int64_t count, float* out);

}  // namespace dpmix::train::detail
