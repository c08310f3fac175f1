#pragma once
// Small generated fixtures for the data-layer tests: files in a temporary folder, IDX bytes,
// gzip, PNG/JPEG images (stb_image_write). Nothing here calls the code under test.
#include <cstdint>
#include <string>
#include <vector>

namespace dpmix::data::fixtures {

void writeFile(const std::string& path, const std::string& bytes);  // creates parent folders
std::string gzipBytes(const std::string& bytes);
/// IDX u8 file: magic 00 00 08 <ndims>, big-endian dims, data.
std::string idxBytes(const std::vector<std::uint32_t>& dims, const std::vector<std::uint8_t>& data);
/// Writes an 8-bit image (interleaved HWC, channels 1 or 3; PNG also 4 = RGBA) as PNG or (quality 100) JPEG.
void writePng(const std::string& path, int width, int height, int channels, const std::vector<std::uint8_t>& hwc);
void writeJpeg(const std::string& path, int width, int height, int channels, const std::vector<std::uint8_t>& hwc);

}  // namespace dpmix::data::fixtures
