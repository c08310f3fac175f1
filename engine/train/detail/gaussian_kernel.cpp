#include "engine/train/detail/gaussian_kernel.h"

// Everything this file includes comes before the target regions below: a header included inside
// one would be compiled for that instruction set.
#include <cmath>
#include <cstdint>

#include "engine/train/detail/simd_regions.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define DPMIX_KERNEL_X86 1
#endif

// No fused multiply-add anywhere in this file: it would round differently from the separate
// multiply and add of the portable build (GCC contracts in C++ whatever the standard mode).
#if defined(__clang__)
#pragma clang fp contract(off)
#else
#pragma GCC optimize("fp-contract=off")
#endif

namespace dpmix::train::detail {
namespace {

// The baseline build: 4 lanes (SSE2 on x86-64, NEON on ARM64, scalar code elsewhere).
namespace portable {
constexpr int W = 4;
typedef float V __attribute__((vector_size(16)));
typedef std::int32_t I __attribute__((vector_size(16)));
typedef std::uint32_t U __attribute__((vector_size(16)));
#ifdef DPMIX_KERNEL_X86
inline V vsqrt(V v) { return (V)_mm_sqrt_ps((__m128)v); }
#else
inline V vsqrt(V v) {
    for (int i = 0; i < W; ++i) v[i] = std::sqrt(v[i]);  // correctly rounded, as the vector instructions
    return v;
}
#endif
#include "engine/train/detail/gaussian_kernel_body.h"
}  // namespace portable

#ifdef DPMIX_KERNEL_X86
// AVX2 (8 lanes) and AVX-512F (16 lanes), chosen at run time.
DPMIX_SIMD_REGION_BEGIN("avx2")
namespace avx2 {
constexpr int W = 8;
typedef float V __attribute__((vector_size(32)));
typedef std::int32_t I __attribute__((vector_size(32)));
typedef std::uint32_t U __attribute__((vector_size(32)));
inline V vsqrt(V v) { return (V)_mm256_sqrt_ps((__m256)v); }
#include "engine/train/detail/gaussian_kernel_body.h"
}  // namespace avx2
DPMIX_SIMD_REGION_END
DPMIX_SIMD_REGION_BEGIN("avx512f")
namespace avx512 {
constexpr int W = 16;
typedef float V __attribute__((vector_size(64)));
typedef std::int32_t I __attribute__((vector_size(64)));
typedef std::uint32_t U __attribute__((vector_size(64)));
inline V vsqrt(V v) { return (V)_mm512_maskz_sqrt_ps(static_cast<__mmask16>(0xFFFF), (__m512)v); }
#include "engine/train/detail/gaussian_kernel_body.h"
}  // namespace avx512
DPMIX_SIMD_REGION_END
#endif

}  // namespace

void gaussianFromWords(SimdLevel level, const std::uint32_t* words, std::int64_t n, std::int64_t count, float* out) {
#ifdef DPMIX_KERNEL_X86
    if (level == SimdLevel::Avx512) return avx512::gaussianFromWords(words, n, count, out);
    if (level == SimdLevel::Avx2) return avx2::gaussianFromWords(words, n, count, out);
#endif
    (void)level;
    portable::gaussianFromWords(words, n, count, out);
}

void gaussianFromWords(const std::uint32_t* words, std::int64_t n, std::int64_t count, float* out) {
    gaussianFromWords(bestSimdLevel(), words, n, count, out);
}

void kernelMinusLog(SimdLevel level, const float* in, std::int64_t count, float* out) {
#ifdef DPMIX_KERNEL_X86
    if (level == SimdLevel::Avx512) return avx512::minusLogLanes(in, count, out);
    if (level == SimdLevel::Avx2) return avx2::minusLogLanes(in, count, out);
#endif
    (void)level;
    portable::minusLogLanes(in, count, out);
}

void kernelSin(SimdLevel level, const float* in, std::int64_t count, float* out) {
#ifdef DPMIX_KERNEL_X86
    if (level == SimdLevel::Avx512) return avx512::sinLanes(in, count, out);
    if (level == SimdLevel::Avx2) return avx2::sinLanes(in, count, out);
#endif
    (void)level;
    portable::sinLanes(in, count, out);
}

}  // namespace dpmix::train::detail
