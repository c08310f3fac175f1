#pragma once
// A read-only view of N images (float, N×C×H×W, row-major) handed to the training code.
// A view, not a copy: data::ImageDataset (or any buffer) is passed without duplicating it.
#include "engine/core/result.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace dpmix::train {

struct ImageView {
    std::span<const float> pixels;
    std::int64_t count = 0;
    int channels = 0, height = 0, width = 0;

    std::int64_t imageSize() const { return static_cast<std::int64_t>(channels) * height * width; }
};

/// Error when sizes are not positive, the buffer length is not count·C·H·W, or a pixel is
/// not finite. `what` names the data in the message (e.g. "public images").
Status checkImages(const std::string& what, const ImageView& images);

/// Error when the view's C×H×W differs from the model's expected input.
Status checkImageShape(const std::string& what, const ImageView& images, int channels, int height, int width);

/// Error unless `labels` holds count × sources values, each in [0, 1] or exactly −1 (uncertain).
Status checkSourceLabels(const std::string& what, std::span<const float> labels, std::int64_t count, int sources);

}  // namespace dpmix::train
