#include "engine/train/detail/conv_example_kernel.h"

// Everything this file includes comes before the target regions below: a header included inside
// one would be compiled for that instruction set.
#include <cstddef>
#include <cstdint>

#include "engine/train/detail/simd_regions.h"

#if defined(__x86_64__) || defined(__i386__)
#define DPMIX_CONV_KERNEL_X86 1
#endif

namespace dpmix::train::detail {
namespace {

// The baseline build: 4 lanes (SSE2 on x86-64, NEON on ARM64, scalar code elsewhere).
namespace portable {
constexpr int W = 4;
typedef float V __attribute__((vector_size(16)));
typedef std::int32_t I __attribute__((vector_size(16)));
#include "engine/train/detail/conv_example_kernel_body.h"
}  // namespace portable

#ifdef DPMIX_CONV_KERNEL_X86
// AVX2 with FMA (8 lanes) and AVX-512F (16 lanes), chosen at run time.
DPMIX_SIMD_REGION_BEGIN("avx2,fma")
namespace avx2 {
constexpr int W = 8;
typedef float V __attribute__((vector_size(32)));
typedef std::int32_t I __attribute__((vector_size(32)));
#include "engine/train/detail/conv_example_kernel_body.h"
}  // namespace avx2
DPMIX_SIMD_REGION_END
DPMIX_SIMD_REGION_BEGIN("avx512f,fma")
namespace avx512 {
constexpr int W = 16;
typedef float V __attribute__((vector_size(64)));
typedef std::int32_t I __attribute__((vector_size(64)));
#include "engine/train/detail/conv_example_kernel_body.h"
}  // namespace avx512
DPMIX_SIMD_REGION_END
#endif

int lanes(SimdLevel level) {
    switch (level) {
        case SimdLevel::Avx512: return 16;
        case SimdLevel::Avx2: return 8;
        case SimdLevel::Portable: break;
    }
    return 4;
}

bool levelRunsHere(SimdLevel level) {
    const SimdLevel best = bestSimdLevel();
    if (level == SimdLevel::Avx512) return best == SimdLevel::Avx512;
    if (level == SimdLevel::Avx2) return best != SimdLevel::Portable && cpuHasFma();
    return true;
}

}  // namespace

bool convExampleKernelFits(SimdLevel level, const ConvExampleShape& s) {
    if (s.kernel != 3 && s.kernel != 5) return false;
    if (s.channels < 1 || s.outChannels < 1 || s.padding < 0 || s.outHeight() < 1) return false;
    return s.outWidth() >= lanes(level);
}

bool convExampleKernelLevel(const ConvExampleShape& shape, SimdLevel* level) {
    for (SimdLevel candidate : {SimdLevel::Avx512, SimdLevel::Avx2, SimdLevel::Portable}) {
        if (levelRunsHere(candidate) && convExampleKernelFits(candidate, shape)) {
            *level = candidate;
            return true;
        }
    }
    return false;
}

std::int64_t convExampleScratchFloats(const ConvExampleShape& s) {
    return s.channels * (s.height + 2 * s.padding) * (s.width + 2 * s.padding);
}

void convExampleGradients(SimdLevel level, const ConvExampleShape& shape, const float* x, const float* g,
                          float* scratch, float* weightGrad, float* biasGrad) {
#ifdef DPMIX_CONV_KERNEL_X86
    if (level == SimdLevel::Avx512) return avx512::exampleGradients(shape, x, g, scratch, weightGrad, biasGrad);
    if (level == SimdLevel::Avx2) return avx2::exampleGradients(shape, x, g, scratch, weightGrad, biasGrad);
#endif
    (void)level;
    portable::exampleGradients(shape, x, g, scratch, weightGrad, biasGrad);
}

}  // namespace dpmix::train::detail
