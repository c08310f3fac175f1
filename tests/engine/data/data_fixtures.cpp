#include "data_fixtures.h"

#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>

namespace dpmix::data::fixtures {

void writeFile(const std::string& path, const std::string& bytes) {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) throw std::runtime_error("fixture: cannot write " + path);
}

std::string gzipBytes(const std::string& bytes) {
    z_stream s{};
    if (deflateInit2(&s, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        throw std::runtime_error("deflateInit2");
    std::string out(deflateBound(&s, bytes.size()) + 32, '\0');
    s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
    s.avail_in = static_cast<uInt>(bytes.size());
    s.next_out = reinterpret_cast<Bytef*>(out.data());
    s.avail_out = static_cast<uInt>(out.size());
    if (deflate(&s, Z_FINISH) != Z_STREAM_END) throw std::runtime_error("deflate");
    out.resize(s.total_out);
    deflateEnd(&s);
    return out;
}

std::string idxBytes(const std::vector<std::uint32_t>& dims, const std::vector<std::uint8_t>& data) {
    std::string out = {'\0', '\0', '\x08', static_cast<char>(dims.size())};
    for (std::uint32_t d : dims)
        for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((d >> shift) & 0xff));
    out.append(data.begin(), data.end());
    return out;
}

void writePng(const std::string& path, int width, int height, int channels, const std::vector<std::uint8_t>& hwc) {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    if (!stbi_write_png(path.c_str(), width, height, channels, hwc.data(), width * channels))
        throw std::runtime_error("fixture: cannot write " + path);
}

void writeJpeg(const std::string& path, int width, int height, int channels, const std::vector<std::uint8_t>& hwc) {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    if (!stbi_write_jpg(path.c_str(), width, height, channels, hwc.data(), 100))
        throw std::runtime_error("fixture: cannot write " + path);
}

}  // namespace dpmix::data::fixtures
