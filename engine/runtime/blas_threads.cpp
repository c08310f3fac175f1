#include "engine/runtime/blas_threads.h"

#include <cstdlib>

#if defined(__linux__)
#include <unistd.h>
#endif

namespace dpmix::runtime {

void relaunchWithQuietBlasThreads(char** argv) {
#if defined(__linux__)
    if (argv == nullptr || argv[0] == nullptr || std::getenv(kBlasThreadTimeoutVariable) != nullptr) return;
    if (setenv(kBlasThreadTimeoutVariable, kBlasThreadTimeoutValue, 0) != 0) return;
    execv("/proc/self/exe", argv);
    // Still here: the restart failed. Undo, so no child believes this process had it.
    unsetenv(kBlasThreadTimeoutVariable);
#else
    (void)argv;
#endif
}

const char* blasThreadTimeout() {
    const char* value = std::getenv(kBlasThreadTimeoutVariable);
    return value == nullptr ? "" : value;
}

}  // namespace dpmix::runtime
