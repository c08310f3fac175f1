#include "engine/runtime/blas_probe.h"

#include <link.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <vector>

namespace dpmix::runtime {
namespace {

int collect(struct dl_phdr_info* info, size_t, void* data) {
    auto* names = static_cast<std::vector<std::string>*>(data);
    if (info->dlpi_name && *info->dlpi_name) names->emplace_back(info->dlpi_name);
    return 0;
}

std::string resolved(const std::string& path) {
    char buf[PATH_MAX];
    if (realpath(path.c_str(), buf)) return buf;
    return path;
}

bool contains(const std::string& s, const char* needle) { return s.find(needle) != std::string::npos; }

}  // namespace

BlasLibrary loadedBlas() {
    std::vector<std::string> names;
    dl_iterate_phdr(collect, &names);
    BlasLibrary found{"unknown", ""};
    for (const auto& n : names) {
        const std::string real = resolved(n);
        std::string lower = real;
        std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
        if (contains(lower, "openblas")) return {"OpenBLAS", real};
        if (contains(lower, "libmkl")) return {"MKL", real};
        if (contains(lower, "blis"))
            found = {"BLIS", real};
        else if (contains(lower, "atlas"))
            found = {"ATLAS", real};
        else if (contains(lower, "/blas/libblas") || contains(lower, "libblas.so")) {
            if (found.name == "unknown") found = {"reference BLAS", real};
        }
    }
    return found;
}

}  // namespace dpmix::runtime
