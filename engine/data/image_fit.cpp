#include "engine/data/image_fit.h"

#include "engine/data/image_file.h"

namespace dpmix::data {
namespace {

std::string shapeText(int channels, int height, int width) {
    return std::to_string(channels) + "x" + std::to_string(height) + "x" + std::to_string(width);
}

// Grey (1 channel) to RGB (3 equal channels), or RGB to grey by the BT.601 luma weights.
std::vector<float> convertChannels(const ImageDataset& images, int toChannels) {
    const std::size_t n = images.size();
    const std::size_t plane = static_cast<std::size_t>(images.height) * images.width;
    std::vector<float> out(n * plane * static_cast<std::size_t>(toChannels));
    for (std::size_t i = 0; i < n; ++i) {
        const float* in = images.pixels.data() + i * plane * static_cast<std::size_t>(images.channels);
        float* to = out.data() + i * plane * static_cast<std::size_t>(toChannels);
        if (toChannels == 3)
            for (int c = 0; c < 3; ++c) std::copy(in, in + plane, to + static_cast<std::size_t>(c) * plane);
        else
            for (std::size_t p = 0; p < plane; ++p)
                to[p] = 0.299f * in[p] + 0.587f * in[plane + p] + 0.114f * in[2 * plane + p];
    }
    return out;
}

}  // namespace

Result<ResizeRule> parseResizeRule(const std::string& text) {
    if (text.empty()) return ResizeRule::None;
    if (text == "bilinear") return ResizeRule::Bilinear;
    return Error{"resize rule \"" + text + "\" is not known (expected \"bilinear\")"};
}

Result<ColourRule> parseColourRule(const std::string& text) {
    if (text.empty()) return ColourRule::None;
    if (text == "replicate") return ColourRule::Replicate;
    if (text == "luminance") return ColourRule::Luminance;
    return Error{"colour rule \"" + text + "\" is not known (expected \"replicate\" or \"luminance\")"};
}

Result<ImageDataset> fitImages(const ImageDataset& images, const ImageShape& target, ResizeRule resize,
                               ColourRule colour, const std::string& name) {
    const bool sameSize = images.height == target.height && images.width == target.width;
    const bool sameColour = images.channels == target.channels;
    if (sameSize && sameColour) return images;
    const std::string shapes = "its images are " + shapeText(images.channels, images.height, images.width) +
                               ", the study's are " + shapeText(target.channels, target.height, target.width);
    if (!sameSize && resize != ResizeRule::Bilinear)
        return Error{"source '" + name + "': " + shapes + "; set \"resize\": \"bilinear\" on the source to resize it"};
    if (!sameColour) {
        const bool greyToRgb = images.channels == 1 && target.channels == 3;
        const bool rgbToGrey = images.channels == 3 && target.channels == 1;
        if (!(greyToRgb && colour == ColourRule::Replicate) && !(rgbToGrey && colour == ColourRule::Luminance))
            return Error{"source '" + name + "': " + shapes + "; " +
                         (greyToRgb   ? std::string("set \"colour\": \"replicate\" on the source to copy grey to RGB")
                          : rgbToGrey ? std::string("set \"colour\": \"luminance\" on the source to turn RGB to grey")
                                      : "no rule converts " + std::to_string(images.channels) + " channels to " +
                                            std::to_string(target.channels))};
    }
    ImageDataset out = images;
    if (!sameColour) {
        out.pixels = convertChannels(images, target.channels);
        out.channels = target.channels;
    }
    if (!sameSize) {
        const std::size_t n = out.size();
        const std::size_t inSize = out.imageSize();
        const std::size_t outSize = static_cast<std::size_t>(target.channels) * target.height * target.width;
        std::vector<float> resized(n * outSize);
        for (std::size_t i = 0; i < n; ++i) {
            DecodedImage one{out.channels, out.height, out.width,
                             std::vector<float>(out.pixels.begin() + static_cast<std::ptrdiff_t>(i * inSize),
                                                out.pixels.begin() + static_cast<std::ptrdiff_t>((i + 1) * inSize))};
            const DecodedImage r = resizeImage(one, target.height, target.width);
            std::copy(r.pixels.begin(), r.pixels.end(), resized.begin() + static_cast<std::ptrdiff_t>(i * outSize));
        }
        out.pixels = std::move(resized);
        out.height = target.height;
        out.width = target.width;
    }
    return out;
}

}  // namespace dpmix::data
