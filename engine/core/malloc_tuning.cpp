#include "engine/core/malloc_tuning.h"

// A C library header first: it defines __GLIBC__, which the test below needs. (Testing it before
// any such include compiled this function to `return false` on glibc too, unnoticed for weeks.)
#include <cstddef>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace dpmix {

bool tuneMallocForTraining() {
#if defined(__GLIBC__)
    // 32 MiB is the largest mmap threshold glibc accepts on 64-bit (HEAP_MAX_SIZE / 2);
    // blocks below it are served from the heap and reused between steps. Keep up to
    // 512 MiB of freed heap instead of trimming it back to the OS after every step.
    constexpr int kMmapThreshold = 32 << 20;
    constexpr int kTrimThreshold = 512 << 20;
    const bool mmapOk = mallopt(M_MMAP_THRESHOLD, kMmapThreshold) == 1;
    const bool trimOk = mallopt(M_TRIM_THRESHOLD, kTrimThreshold) == 1;
    return mmapOk && trimOk;
#else
    return false;
#endif
}

}  // namespace dpmix
