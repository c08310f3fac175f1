#include "engine/train/detail/simd_level.h"

namespace dpmix::train::detail {

SimdLevel bestSimdLevel() {
#if defined(__x86_64__) || defined(__i386__)
    static const SimdLevel level = __builtin_cpu_supports("avx512f") ? SimdLevel::Avx512
                                   : __builtin_cpu_supports("avx2")  ? SimdLevel::Avx2
                                                                     : SimdLevel::Portable;
    return level;
#else
    return SimdLevel::Portable;
#endif
}

bool cpuHasFma() {
#if defined(__x86_64__) || defined(__i386__)
    static const bool fma = __builtin_cpu_supports("fma");
    return fma;
#else
    return false;
#endif
}

}  // namespace dpmix::train::detail
