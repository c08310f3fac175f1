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

FitNeeds fitNeeds(const ImageShape& from, const ImageShape& to) {
    FitNeeds needs;
    needs.resize = from.height != to.height || from.width != to.width;
    if (from.channels != to.channels) {
        if (from.channels == 1 && to.channels == 3)
            needs.colour = ColourRule::Replicate;
        else if (from.channels == 3 && to.channels == 1)
            needs.colour = ColourRule::Luminance;
        else
            needs.convertible = false;
    }
    return needs;
}

std::string fitProblem(const ImageShape& from, const ImageShape& to, ResizeRule resize, ColourRule colour) {
    const FitNeeds needs = fitNeeds(from, to);
    if (needs.resize && resize != ResizeRule::Bilinear)
        return "its images are " + shapeText(from.channels, from.height, from.width) +
               " but the sensitive images are " + shapeText(to.channels, to.height, to.width) +
               "; set \"resize\": \"bilinear\" on the source to resize them to " + std::to_string(to.height) + "x" +
               std::to_string(to.width);
    const std::string channels = "its images have " + std::to_string(from.channels) +
                                 " channel(s) but the sensitive images have " + std::to_string(to.channels);
    if (!needs.convertible) return channels + "; no rule converts them";
    if (needs.colour != ColourRule::None && colour != needs.colour)
        return channels + "; set \"colour\": \"" +
               (needs.colour == ColourRule::Replicate ? "replicate\" on the source to copy grey to RGB"
                                                      : "luminance\" on the source to turn RGB to grey");
    return {};
}

Result<ImageDataset> fitImages(ImageDataset images, const ImageShape& target, ResizeRule resize, ColourRule colour,
                               const std::string& name) {
    const ImageShape from{images.channels, images.height, images.width};
    if (auto problem = fitProblem(from, target, resize, colour); !problem.empty())
        return Error{"source '" + name + "': " + problem};
    const FitNeeds needs = fitNeeds(from, target);
    ImageDataset out = std::move(images);
    if (needs.colour != ColourRule::None) {
        out.pixels = convertChannels(out, target.channels);
        out.channels = target.channels;
    }
    if (needs.resize) {
        const std::size_t n = out.size();
        const std::size_t inSize = out.imageSize();
        const std::size_t outSize = static_cast<std::size_t>(target.channels) * target.height * target.width;
        std::vector<float> resized(n * outSize);
        DecodedImage one{out.channels, out.height, out.width, std::vector<float>(inSize)};
        for (std::size_t i = 0; i < n; ++i) {
            std::copy_n(out.pixels.begin() + static_cast<std::ptrdiff_t>(i * inSize), inSize, one.pixels.begin());
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
