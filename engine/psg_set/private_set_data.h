#pragma once
// The private set S as data (no torch, no generator): what PSG releases, what a project stores,
// what the export writes and the workbench draws.
#include "engine/train/images.h"

#include <cstdint>
#include <vector>

namespace dpmix::psg {

/// The released set: class-major (class 0's images first), pixels in the [0, 1] space of the
/// sensitive images (x = x̂·pixelStd + pixelMean, not clamped: clamping is an export choice).
struct PrivateSet {
    int classes = 0, imagesPerClass = 0;
    int channels = 0, height = 0, width = 0;
    std::vector<float> pixels;  // count() × C × H × W
    std::vector<int> labels;    // count(), image i has class i / imagesPerClass

    std::int64_t count() const { return static_cast<std::int64_t>(classes) * imagesPerClass; }
    train::ImageView view() const { return {pixels, count(), channels, height, width}; }
};

}  // namespace dpmix::psg
