#pragma once
#include <string>

namespace dpmix::runtime {

/// Which BLAS the process has loaded: the resolved path of the libblas/openblas shared
/// object, and a short name ("OpenBLAS", "reference BLAS", "MKL", "unknown").
struct BlasLibrary {
    std::string name;
    std::string path;
};

/// Looks at the shared objects mapped into this process (call after a torch matmul so the
/// lazily-loaded BLAS is in). Debian's torch calls whatever libblas.so.3 the alternatives
/// system points at; the reference BLAS there is ~10x slower than OpenBLAS, which
/// scripts/setup.sh installs (libopenblas0-pthread) and `dpmix doctor` checks for.
BlasLibrary loadedBlas();

}  // namespace dpmix::runtime
