#include "engine/data/idx_file.h"

#include "engine/data/file_bytes.h"

#include <algorithm>
#include <cstdio>
#include <limits>

namespace dpmix::data {
namespace {

std::string hexByte(unsigned char b) {
    char text[8];
    std::snprintf(text, sizeof text, "0x%02x", b);
    return text;
}

// A text file with commas on its first line, given where an IDX file was expected: usually the
// CSV manifest of a folder of images (labels.csv), which the csv-images loader reads.
std::string csvHint(const std::string& bytes) {
    const std::string first = bytes.substr(0, std::min(bytes.find('\n'), std::size_t(4096)));
    if (first.find(',') == std::string::npos) return {};
    for (unsigned char c : first)
        if (c < 0x20 && c != '\t' && c != '\r') return {};
    return ": it looks like a CSV file (text with commas on its first line); a CSV manifest of images is read by "
           "the csv-images loader, not idx";
}

}  // namespace

Result<IdxArray> parseIdx(std::string bytes, const std::string& path) {
    const auto at = [&](std::size_t i) { return static_cast<unsigned char>(bytes[i]); };
    if (bytes.size() < 4)
        return Error{"IDX file '" + path + "': truncated header (" + std::to_string(bytes.size()) +
                     " bytes, expected at least 4)"};
    if (at(0) != 0 || at(1) != 0)
        return Error{"IDX file '" + path + "': wrong magic number (first bytes " + hexByte(at(0)) + " " +
                     hexByte(at(1)) + ", expected 0x00 0x00)" + csvHint(bytes)};
    if (at(2) != 0x08)
        return Error{"IDX file '" + path + "': data type " + hexByte(at(2)) +
                     " is not supported, expected 0x08 (unsigned byte)"};
    const std::size_t ndims = at(3);
    if (ndims < 1 || ndims > 4)
        return Error{"IDX file '" + path + "': " + std::to_string(ndims) + " dimensions, expected 1 (labels) to 4"};
    const std::size_t header = 4 + 4 * ndims;
    if (bytes.size() < header)
        return Error{"IDX file '" + path + "': truncated header (" + std::to_string(bytes.size()) +
                     " bytes, expected " + std::to_string(header) + ")"};
    IdxArray array;
    std::size_t count = 1;
    for (std::size_t d = 0; d < ndims; ++d) {
        const std::size_t o = 4 + 4 * d;
        const std::size_t dim = (std::size_t(at(o)) << 24) | (std::size_t(at(o + 1)) << 16) |
                                (std::size_t(at(o + 2)) << 8) | std::size_t(at(o + 3));
        array.dims.push_back(dim);
        // Dimensions are a claim of the file: their product must not wrap around.
        if (dim != 0 && count > std::numeric_limits<std::size_t>::max() / dim)
            return Error{"IDX file '" + path + "': dimensions overflow (their product does not fit in memory sizes)"};
        count *= dim;
    }
    const std::size_t have = bytes.size() - header;
    if (have < count)
        return Error{"IDX file '" + path + "': truncated data (header announces " + std::to_string(count) +
                     " bytes, file holds " + std::to_string(have) + ")"};
    if (have > count)
        return Error{"IDX file '" + path + "': " + std::to_string(have - count) + " unexpected bytes after the " +
                     std::to_string(count) + " announced by the header"};
    array.offset = header;
    array.file = std::move(bytes);
    return array;
}

Result<IdxArray> readIdxFile(const std::string& path) {
    auto bytes = readFileMaybeGzip(path);
    if (!bytes) return bytes.error();
    return parseIdx(std::move(bytes).value(), path);
}

}  // namespace dpmix::data
