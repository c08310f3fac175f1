#include "engine/train/images.h"

#include <cmath>

namespace dpmix::train {

Status checkImages(const std::string& what, const ImageView& images) {
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

Status checkImageShape(const std::string& what, const ImageView& images, int channels, int height, int width) {
    if (images.channels != channels || images.height != height || images.width != width)
        return Error{what + ": images are " + std::to_string(images.channels) + "x" + std::to_string(images.height) +
                     "x" + std::to_string(images.width) + " (CxHxW) but the model expects " + std::to_string(channels) +
                     "x" + std::to_string(height) + "x" + std::to_string(width)};
    return std::nullopt;
}

Status checkSourceLabels(const std::string& what, std::span<const float> labels, std::int64_t count, int sources) {
    if (sources < 1) return Error{what + ": sources = " + std::to_string(sources) + ", expected at least 1"};
    const auto expected = static_cast<std::size_t>(count) * static_cast<std::size_t>(sources);
    if (labels.size() != expected)
        return Error{what + ": got " + std::to_string(labels.size()) + " label values, expected images x sources = " +
                     std::to_string(count) + " x " + std::to_string(sources) + " = " + std::to_string(expected)};
    for (std::size_t i = 0; i < labels.size(); ++i) {
        const float v = labels[i];
        if (!(v == -1.0f || (v >= 0.0f && v <= 1.0f)))
            return Error{what + ": label " + std::to_string(v) + " of image " + std::to_string(i / sources) +
                         ", source " + std::to_string(i % sources) +
                         " is out of range: expected a value in [0, 1], or -1 for uncertain"};
    }
    return std::nullopt;
}

}  // namespace dpmix::train
