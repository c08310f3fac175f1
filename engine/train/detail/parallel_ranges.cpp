#include "engine/train/detail/parallel_ranges.h"

#include <algorithm>
#include <exception>
#include <mutex>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace dpmix::train::detail {

void parallelRanges(std::int64_t count, int threads, const std::function<void(std::int64_t, std::int64_t)>& body) {
    if (count <= 0) return;
    const std::int64_t parts = std::min<std::int64_t>(std::max(threads, 1), count);
#ifdef _OPENMP
    if (parts > 1 && !omp_in_parallel()) {
        std::exception_ptr failure;
        std::mutex failureLock;
#pragma omp parallel num_threads(static_cast <int>(parts))
        {
            // The team may be smaller than asked for (OMP_THREAD_LIMIT, nesting): split by its size.
            const std::int64_t team = omp_get_num_threads(), me = omp_get_thread_num();
            const std::int64_t begin = count * me / team, end = count * (me + 1) / team;
            try {
                if (begin < end) body(begin, end);
            } catch (...) {
                const std::lock_guard<std::mutex> hold(failureLock);
                if (!failure) failure = std::current_exception();
            }
        }
        if (failure) std::rethrow_exception(failure);
        return;
    }
#endif
    body(0, count);
}

bool parallelRangesAvailable() {
#ifdef _OPENMP
    return true;
#else
    return false;
#endif
}

}  // namespace dpmix::train::detail
