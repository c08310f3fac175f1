#pragma once
// Internal header: the begin and end of a region of code compiled for one instruction set, for
// the kernels that are built once per set and choose by CPUID at run time (gaussian_kernel.cpp,
// conv_example_kernel.cpp; simd_level.h). Include every header a kernel file needs before its
// first region: a header included inside one would be compiled for that instruction set.
#define DPMIX_SIMD_PRAGMA(text) _Pragma(#text)
#if defined(__clang__)
#define DPMIX_SIMD_REGION_BEGIN(isa) \
    DPMIX_SIMD_PRAGMA(clang attribute push(__attribute__((target(isa))), apply_to = function))
#define DPMIX_SIMD_REGION_END DPMIX_SIMD_PRAGMA(clang attribute pop)
#else
#define DPMIX_SIMD_REGION_BEGIN(isa) DPMIX_SIMD_PRAGMA(GCC push_options) DPMIX_SIMD_PRAGMA(GCC target(isa))
#define DPMIX_SIMD_REGION_END DPMIX_SIMD_PRAGMA(GCC pop_options)
#endif
