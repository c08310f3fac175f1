#include "engine/train/images.h"

#include <cmath>

namespace dpmix::train {

std::optional<Error> checkImages(const std::string& what, const ImageView& images) {
    if (images.count < 1 || images.channels < 1 || images.height < 1 || images.width < 1)
        return Error{what + ": count, channels, height and width must all be at least 1 (got " +
                     std::to_string(images.count) + " images of " + std::to_string(images.channels) + "x" +
                     std::to_string(images.height) + "x" + std::to_string(images.width) + ")"};
    const auto expected = static_cast<std::size_t>(images.count * images.imageSize());
    if (images.pixels.size() != expected)
        return Error{what + ": the pixel buffer holds " + std::to_string(images.pixels.size()) +
                     " values, expected count x channels x height x width = " + std::to_string(expected)};
    for (std::size_t i = 0; i < images.pixels.size(); ++i)
        if (!std::isfinite(images.pixels[i]))
            return Error{what + ": pixel value at flat index " + std::to_string(i) + " (image " +
                         std::to_string(static_cast<std::int64_t>(i) / images.imageSize()) +
                         ") is not a finite number"};
    return std::nullopt;
}

std::optional<Error> checkImageShape(const std::string& what, const ImageView& images, int channels, int height,
                                     int width) {
    if (images.channels != channels || images.height != height || images.width != width)
        return Error{what + ": images are " + std::to_string(images.channels) + "x" + std::to_string(images.height) +
                     "x" + std::to_string(images.width) + " (CxHxW) but the model expects " +
                     std::to_string(channels) + "x" + std::to_string(height) + "x" + std::to_string(width)};
    return std::nullopt;
}

}  // namespace dpmix::train
