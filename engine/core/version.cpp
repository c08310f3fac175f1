#include "engine/core/version.h"

namespace dpmix {
std::string versionString() { return DPMIX_VERSION_STRING; }
}  // namespace dpmix
