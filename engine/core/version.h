#pragma once
#include <string>

namespace dpmix {
/// The product version (from CMake's project()), e.g. "0.1.0".
std::string versionString();
}  // namespace dpmix
