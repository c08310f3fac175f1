#pragma once
// IDX files (the MNIST format): big-endian header, magic 00 00 <type> <ndims>, then dims, then data.
// Only unsigned-byte data (type 0x08) is accepted, which is what MNIST-style sets use.
#include "engine/core/result.h"

#include <cstddef>
#include <string>
#include <vector>

namespace dpmix::data {

struct IdxArray {
    std::vector<std::size_t> dims;  // e.g. {60000, 28, 28} or {60000}
    std::string file;               // the whole decoded file (kept to avoid copying 47 MB)
    std::size_t offset = 0;         // where the product(dims) data bytes start in `file`
    const unsigned char* data() const { return reinterpret_cast<const unsigned char*>(file.data()) + offset; }
};

/// Parses an IDX file (raw or gzip). Errors name the file and what was expected.
Result<IdxArray> readIdxFile(const std::string& path);
/// Parses IDX bytes already in memory; `path` only names the source in errors.
Result<IdxArray> parseIdx(std::string bytes, const std::string& path);

}  // namespace dpmix::data
