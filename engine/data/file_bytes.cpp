#include "engine/data/file_bytes.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace dpmix::data {
namespace {

constexpr std::size_t kMaxDeflateRatio = 1032;                      // deflate's largest expansion
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
    namespace fs = std::filesystem;
    std::error_code ec;
    // status() follows symbolic links: a loop, a path too long or a missing parent is an error
    // code here, never an exception.
    const fs::file_status st = fs::status(path, ec);
    if (ec && ec != std::errc::no_such_file_or_directory)
        return Error{"cannot open file '" + path + "': " + ec.message()};
    if (!fs::exists(st)) return Error{"file '" + path + "' does not exist"};
    if (fs::is_directory(st)) return Error{"'" + path + "' is a folder, expected a file"};
    // A FIFO, socket or device would block or never end: only regular files are data.
    if (!fs::is_regular_file(st))
        return Error{"'" + path + "' is not a regular file (a pipe, socket or device): expected a data file"};
    std::ifstream in(path, std::ios::binary);
    if (!in) return Error{"cannot open file '" + path + "': " + std::strerror(errno)};
    std::string bytes;
    in.seekg(0, std::ios::end);
    const auto size = in.tellg();
    if (size > 0) {
        bytes.resize(static_cast<std::size_t>(size));
        in.seekg(0);
        in.read(bytes.data(), size);
        if (!in) return Error{"cannot read file '" + path + "'"};
    }
    return bytes;
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
