#include "engine/data/file_bytes.h"

#include "engine/core/file_door.h"

#include <zlib.h>

#include <algorithm>

namespace dpmix::data {
namespace {

constexpr std::size_t kMaxDeflateRatio = 1032;                       // deflate's largest expansion
constexpr std::size_t kMaxDecompressedBytes = std::size_t(8) << 30;  // 8 GiB per data file

Result<std::string> gunzip(const std::string& path, const std::string& compressed) {
    z_stream stream{};
    if (inflateInit2(&stream, 15 + 32) != Z_OK)  // +32: accept gzip and zlib headers
        return Error{"file '" + path + "': cannot initialise zlib"};
    // The gzip trailer's ISIZE (uncompressed size mod 2^32) sizes the buffer in one go — but it is
    // only a claim of the file: deflate expands at most ~1032:1, so a larger claim is forged and
    // the buffer is bounded by what the compressed bytes can hold.
    const std::size_t canHold = compressed.size() * kMaxDeflateRatio + (1 << 16);
    std::size_t guess = compressed.size() * 4;
    if (compressed.size() >= 18) {
        const auto* tail = reinterpret_cast<const unsigned char*>(compressed.data() + compressed.size() - 4);
        guess = std::max<std::size_t>(guess / 4, std::size_t(tail[0]) | std::size_t(tail[1]) << 8 |
                                                     std::size_t(tail[2]) << 16 | std::size_t(tail[3]) << 24);
    }
    guess = std::min({guess, canHold, kMaxDecompressedBytes});
    std::string out;
    out.resize(std::max<std::size_t>(guess + 1, 1 << 16));  // +1: reaching the end is detected, not a resize
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
    stream.avail_in = static_cast<uInt>(compressed.size());
    std::size_t produced = 0;
    int rc = Z_OK;
    while (true) {
        if (produced == out.size()) {
            if (out.size() >= kMaxDecompressedBytes) {
                inflateEnd(&stream);
                return Error{"file '" + path + "': decompresses to more than " +
                             std::to_string(kMaxDecompressedBytes >> 30) + " GiB, the limit for one data file"};
            }
            out.resize(std::min(out.size() * 2, kMaxDecompressedBytes));
        }
        stream.next_out = reinterpret_cast<Bytef*>(out.data() + produced);
        stream.avail_out = static_cast<uInt>(std::min<std::size_t>(out.size() - produced, 1u << 30));
        const uInt before = stream.avail_out;
        rc = inflate(&stream, Z_NO_FLUSH);
        produced += before - stream.avail_out;
        if (rc == Z_STREAM_END) {
            // Concatenated gzip members (allowed by RFC 1952): continue with the next one.
            if (stream.avail_in > 0 && inflateReset(&stream) == Z_OK) continue;
            break;
        }
        if (rc == Z_BUF_ERROR && stream.avail_in == 0) {
            inflateEnd(&stream);
            return Error{"file '" + path + "': truncated gzip data (the compressed stream ends early)"};
        }
        if (rc != Z_OK && rc != Z_BUF_ERROR) {
            const std::string why = stream.msg ? stream.msg : "corrupt data";
            inflateEnd(&stream);
            return Error{"file '" + path + "': invalid gzip data (" + why + ")"};
        }
    }
    inflateEnd(&stream);
    out.resize(produced);
    return out;
}

}  // namespace

Result<std::string> readFileRaw(const std::string& path) {
    // The file system's door: a FIFO, device or socket (also behind a link), a loop of links or a
    // name too long is a clear error, and a file beyond the limit (a sparse 40 GB file) is refused
    // before anything is allocated.
    return files::readRegularFile(path, "a data file", kMaxDecompressedBytes);
}

Result<std::string> readFileMaybeGzip(const std::string& path) {
    auto raw = readFileRaw(path);
    if (!raw) return raw;
    const std::string& bytes = *raw;
    if (bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
        static_cast<unsigned char>(bytes[1]) == 0x8b)
        return gunzip(path, bytes);
    return raw;
}

}  // namespace dpmix::data
