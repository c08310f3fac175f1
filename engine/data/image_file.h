#pragma once
// Decoding PNG/JPEG (stb_image) and resizing to the model resolution.
#include "engine/core/result.h"

#include <string>
#include <vector>

namespace dpmix::data {

/// An image as C×H×W floats in [0,1].
struct DecodedImage {
    int channels = 0, height = 0, width = 0;
    std::vector<float> pixels;
};

/// Decodes a PNG/JPEG/BMP file to `channels` (1 = grey by stb's luminance formula, 2 = that grey
/// and alpha, 3 = RGB).
Result<DecodedImage> decodeImageFile(const std::string& path, int channels);

/// Resamples C×H×W to C×outH×outW with a separable triangle (bilinear) filter whose support
/// widens with the scale factor when shrinking (antialiased, like PIL's BILINEAR), so a
/// 1024² chest X-ray shrunk to 64² averages its pixels instead of skipping them.
DecodedImage resizeImage(const DecodedImage& image, int outHeight, int outWidth);

}  // namespace dpmix::data
