#include "engine/data/image_file.h"

#include "engine/data/file_bytes.h"

#include <algorithm>
#include <cmath>

#define STB_IMAGE_IMPLEMENTATION
#define STBI_NO_STDIO
#define STBI_FAILURE_USERMSG
#include <stb/stb_image.h>

namespace dpmix::data {
namespace {

// Weights of a 1-D resampling from `in` to `out` samples: for each output sample the first
// contributing input index and its normalised weights.
struct AxisWeights {
    std::vector<int> first;
    std::vector<std::vector<float>> weights;
};

AxisWeights axisWeights(int in, int out) {
    AxisWeights w;
    const double scale = static_cast<double>(in) / out;
    const double support = std::max(1.0, scale);  // triangle half-width in input pixels
    for (int o = 0; o < out; ++o) {
        const double center = (o + 0.5) * scale;  // in input coordinates (pixel i spans [i, i+1))
        const int lo = std::max(0, static_cast<int>(std::floor(center - support)));
        const int hi = std::min(in - 1, static_cast<int>(std::ceil(center + support)));
        std::vector<float> ws;
        double total = 0;
        for (int i = lo; i <= hi; ++i) {
            const double d = std::abs((i + 0.5 - center) / support);
            const double v = std::max(0.0, 1.0 - d);
            ws.push_back(static_cast<float>(v));
            total += v;
        }
        for (auto& v : ws) v = static_cast<float>(v / total);
        w.first.push_back(lo);
        w.weights.push_back(std::move(ws));
    }
    return w;
}

}  // namespace

Result<DecodedImage> decodeImageFile(const std::string& path, int channels) {
    auto bytes = readFileRaw(path);
    if (!bytes) return bytes.error();
    int w = 0, h = 0, fileChannels = 0;
    unsigned char* data = stbi_load_from_memory(reinterpret_cast<const stbi_uc*>(bytes->data()),
                                                static_cast<int>(bytes->size()), &w, &h, &fileChannels, channels);
    if (!data)
        return Error{"image '" + path + "' cannot be decoded (" + stbi_failure_reason() +
                     "), expected a PNG, JPEG or BMP file"};
    DecodedImage image{channels, h, w, std::vector<float>(static_cast<std::size_t>(channels) * h * w)};
    const std::size_t plane = static_cast<std::size_t>(h) * w;
    for (std::size_t p = 0; p < plane; ++p)
        for (int c = 0; c < channels; ++c) image.pixels[c * plane + p] = data[p * channels + c] / 255.0f;  // HWC -> CHW
    stbi_image_free(data);
    return image;
}

DecodedImage resizeImage(const DecodedImage& image, int outHeight, int outWidth) {
    if (image.height == outHeight && image.width == outWidth) return image;
    const AxisWeights wx = axisWeights(image.width, outWidth);
    const AxisWeights wy = axisWeights(image.height, outHeight);
    DecodedImage out{image.channels, outHeight, outWidth,
                     std::vector<float>(static_cast<std::size_t>(image.channels) * outHeight * outWidth)};
    std::vector<float> rows(static_cast<std::size_t>(image.height) * outWidth);  // horizontal pass
    for (int c = 0; c < image.channels; ++c) {
        const float* src = image.pixels.data() + static_cast<std::size_t>(c) * image.height * image.width;
        for (int y = 0; y < image.height; ++y)
            for (int x = 0; x < outWidth; ++x) {
                float sum = 0;
                const auto& ws = wx.weights[x];
                for (std::size_t k = 0; k < ws.size(); ++k) sum += ws[k] * src[y * image.width + wx.first[x] + k];
                rows[static_cast<std::size_t>(y) * outWidth + x] = sum;
            }
        float* dst = out.pixels.data() + static_cast<std::size_t>(c) * outHeight * outWidth;
        for (int y = 0; y < outHeight; ++y)
            for (int x = 0; x < outWidth; ++x) {
                float sum = 0;
                const auto& ws = wy.weights[y];
                for (std::size_t k = 0; k < ws.size(); ++k) sum += ws[k] * rows[(wy.first[y] + k) * outWidth + x];
                dst[static_cast<std::size_t>(y) * outWidth + x] = std::clamp(sum, 0.0f, 1.0f);
            }
    }
    return out;
}

}  // namespace dpmix::data
