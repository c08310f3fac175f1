#include "engine/core/file_size_limit.h"

#include <csignal>

namespace dpmix {

void reportFileSizeLimitAsError() {
#ifdef SIGXFSZ
    std::signal(SIGXFSZ, SIG_IGN);
#endif
}

}  // namespace dpmix
