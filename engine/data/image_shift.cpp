#include "engine/data/image_shift.h"

#include "engine/data/image_file.h"
#include "engine/data/loader_options.h"
#include "engine/data/portable_random.h"
#include "engine/data/sha256.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numbers>
#include <random>

namespace dpmix::data {
namespace {

// One accepted step: its name, and for a step with a value the range [low, high] (an open end
// excludes the bound itself) as the error states it.
struct StepRule {
    const char* name;
    ShiftStepKind kind;
    bool takesValue;
    double low, high;
    bool lowOpen, integer;
    const char* expected;
};

const char* kLowresRange = "an integer R >= 2, at most the images' height and width";

const StepRule kRules[] = {
    {"invert", ShiftStepKind::Invert, false, 0, 0, false, false, "no value"},
    {"lowres", ShiftStepKind::LowRes, true, 2, 1e9, false, true, kLowresRange},
    {"blur", ShiftStepKind::Blur, true, 0, 10, true, false, "σ in (0, 10] pixels"},
    {"noise", ShiftStepKind::Noise, true, 0, 1, true, false, "S in (0, 1]"},
    {"rotate", ShiftStepKind::Rotate, true, -180, 180, false, false, "degrees in [-180, 180]"},
    {"gamma", ShiftStepKind::Gamma, true, 0, 10, true, false, "G in (0, 10]"},
    {"contrast", ShiftStepKind::Contrast, true, 0, 4, false, false, "C in [0, 4]"},
};

const char* kAcceptedSteps =
    "accepted steps, joined by '+' and applied left to right: invert, lowres:R (an integer >= 2, at most the "
    "images' height and width), blur:S (σ in (0, 10] pixels), noise:S (S in (0, 1]), rotate:D (degrees in "
    "[-180, 180]), gamma:G (G in (0, 10]), contrast:C (C in [0, 4])";

Error stepError(const std::string& step, const std::string& problem) {
    return Error{"step '" + step + "' " + problem + " (" + kAcceptedSteps + ")"};
}

Result<ShiftStep> parseStep(const std::string& step) {
    const auto colon = step.find(':');
    const std::string name = trim(step.substr(0, colon));
    const auto rule =
        std::find_if(std::begin(kRules), std::end(kRules), [&](const StepRule& r) { return name == r.name; });
    if (rule == std::end(kRules)) return stepError(step, "is not a known step");
    ShiftStep out{rule->kind, 0, step};
    if (!rule->takesValue) {
        if (colon != std::string::npos) return stepError(step, "takes no value");
        return out;
    }
    const std::string value = colon == std::string::npos ? "" : trim(step.substr(colon + 1));
    if (value.empty()) return stepError(step, "needs a value: expected " + std::string(rule->expected));
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), out.value);
    if (ec != std::errc() || end != value.data() + value.size())
        return stepError(step, "has '" + value + "', which is not a number; expected " + rule->expected);
    const bool aboveLow = rule->lowOpen ? out.value > rule->low : out.value >= rule->low;
    const bool whole = !rule->integer || out.value == std::floor(out.value);
    if (!aboveLow || !(out.value <= rule->high) || !whole)
        return stepError(step, "is out of range: expected " + std::string(rule->expected));
    return out;
}

// Exact for multiples of 90°, so rotate:90 moves pixels without blending them.
std::pair<double, double> cosSin(double degrees) {
    if (std::fmod(degrees, 90.0) == 0.0) {
        const int quarter = ((static_cast<int>(degrees / 90.0) % 4) + 4) % 4;
        constexpr double kCos[] = {1, 0, -1, 0}, kSin[] = {0, 1, 0, -1};
        return {kCos[quarter], kSin[quarter]};
    }
    const double radians = degrees * std::numbers::pi / 180.0;
    return {std::cos(radians), std::sin(radians)};
}

// Bilinear sample at (x, y) in pixel coordinates; taps outside the plane read 0.
double sampleOrZero(const std::vector<float>& plane, int height, int width, double x, double y) {
    const double fx = std::floor(x), fy = std::floor(y);
    const int x0 = static_cast<int>(fx), y0 = static_cast<int>(fy);
    const double ax = x - fx, ay = y - fy;
    auto at = [&](int row, int col) -> double {
        if (row < 0 || col < 0 || row >= height || col >= width) return 0.0;
        return plane[static_cast<std::size_t>(row) * width + col];
    };
    return (1 - ay) * ((1 - ax) * at(y0, x0) + ax * at(y0, x0 + 1)) +
           ay * ((1 - ax) * at(y0 + 1, x0) + ax * at(y0 + 1, x0 + 1));
}

std::vector<double> gaussianKernel(double sigma) {
    const int radius = static_cast<int>(std::ceil(3 * sigma));
    std::vector<double> kernel(2 * static_cast<std::size_t>(radius) + 1);
    double sum = 0;
    for (int d = -radius; d <= radius; ++d) sum += kernel[d + radius] = std::exp(-d * d / (2 * sigma * sigma));
    for (double& w : kernel) w /= sum;
    return kernel;
}

// Each channel plane of one image through a plane transform.
template <typename Transform>
void eachPlane(float* image, int channels, int height, int width, Transform transform) {
    const std::size_t size = static_cast<std::size_t>(height) * width;
    for (int c = 0; c < channels; ++c) {
        float* begin = image + static_cast<std::size_t>(c) * size;
        const std::vector<float> out = transform(std::vector<float>(begin, begin + size));
        std::copy(out.begin(), out.end(), begin);
    }
}

void applyStep(const ShiftStep& step, float* image, const ImageDataset& shape, std::uint64_t noiseSeed) {
    const int h = shape.height, w = shape.width;
    switch (step.kind) {
        case ShiftStepKind::LowRes:
            return eachPlane(image, shape.channels, h, w,
                             [&](const auto& p) { return lowresPlane(p, h, w, static_cast<int>(step.value)); });
        case ShiftStepKind::Blur:
            return eachPlane(image, shape.channels, h, w,
                             [&](const auto& p) { return blurPlane(p, h, w, step.value); });
        case ShiftStepKind::Rotate:
            return eachPlane(image, shape.channels, h, w,
                             [&](const auto& p) { return rotatePlane(p, h, w, step.value); });
        case ShiftStepKind::Noise: return addSensorNoise(image, shape.imageSize(), step.value, noiseSeed);
        default: std::transform(image, image + shape.imageSize(), image, [&](float x) { return shiftPixel(step, x); });
    }
}

}  // namespace

Result<ImageShift> parseImageShift(const std::string& text) {
    if (trim(text).empty()) return Error{std::string("no step given (") + kAcceptedSteps + ")"};
    ImageShift shift;
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto stop = std::min(text.find('+', start), text.size());
        const std::string step = trim(text.substr(start, stop - start));
        if (step.empty())
            return Error{"step " + std::to_string(shift.size() + 1) + " is empty (" + kAcceptedSteps + ")"};
        auto parsed = parseStep(step);
        if (!parsed) return parsed.error();
        shift.push_back(*parsed);
        start = stop + 1;
    }
    return shift;
}

float shiftPixel(const ShiftStep& step, float x) {
    switch (step.kind) {
        case ShiftStepKind::Invert: return 1.0f - x;
        case ShiftStepKind::Gamma: return static_cast<float>(std::pow(static_cast<double>(x), step.value));
        case ShiftStepKind::Contrast: return static_cast<float>(std::clamp(0.5 + step.value * (x - 0.5), 0.0, 1.0));
        default: return x;
    }
}

std::vector<float> lowresPlane(const std::vector<float>& plane, int height, int width, int resolution) {
    const DecodedImage image{1, height, width, plane};
    return resizeImage(resizeImage(image, resolution, resolution), height, width).pixels;
}

std::vector<float> blurPlane(const std::vector<float>& plane, int height, int width, double sigma) {
    const std::vector<double> kernel = gaussianKernel(sigma);
    const int radius = static_cast<int>(kernel.size() / 2);
    std::vector<double> rows(plane.size());
    std::vector<float> out(plane.size());
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            double sum = 0;
            for (int d = -radius; d <= radius; ++d)
                sum +=
                    kernel[d + radius] * plane[static_cast<std::size_t>(y) * width + std::clamp(x + d, 0, width - 1)];
            rows[static_cast<std::size_t>(y) * width + x] = sum;
        }
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            double sum = 0;
            for (int d = -radius; d <= radius; ++d)
                sum +=
                    kernel[d + radius] * rows[static_cast<std::size_t>(std::clamp(y + d, 0, height - 1)) * width + x];
            out[static_cast<std::size_t>(y) * width + x] = static_cast<float>(std::clamp(sum, 0.0, 1.0));
        }
    return out;
}

std::vector<float> rotatePlane(const std::vector<float>& plane, int height, int width, double degrees) {
    const auto [c, s] = cosSin(degrees);
    const double cx = (width - 1) / 2.0, cy = (height - 1) / 2.0;
    std::vector<float> out(plane.size());
    // Each output pixel reads the input at the inverse rotation of its offset from the centre.
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            const double dx = x - cx, dy = y - cy;
            const double value = sampleOrZero(plane, height, width, cx + c * dx - s * dy, cy + s * dx + c * dy);
            out[static_cast<std::size_t>(y) * width + x] = static_cast<float>(std::clamp(value, 0.0, 1.0));
        }
    return out;
}

std::uint64_t shiftNoiseSeed(const std::string& sourceName, std::size_t index, std::size_t step) {
    Sha256 hash;
    hash.update("dpmix image shift noise\n" + sourceName + '\n' + std::to_string(index) + '\n' + std::to_string(step));
    const auto digest = hash.digest();
    std::uint64_t seed = 0;
    for (int k = 0; k < 8; ++k) seed = (seed << 8) | digest[k];
    return seed;
}

void addSensorNoise(float* pixels, std::size_t count, double sigma, std::uint64_t seed) {
    std::mt19937_64 gen(seed);
    for (std::size_t i = 0; i < count; i += 2) {
        const double u1 = 1.0 - uniform01(gen);  // (0, 1]: the logarithm is finite
        const double u2 = uniform01(gen);
        const double radius = std::sqrt(-2.0 * std::log(u1));
        const double angle = 2.0 * std::numbers::pi * u2;
        const double z[2] = {radius * std::cos(angle), radius * std::sin(angle)};
        for (std::size_t k = 0; k < 2 && i + k < count; ++k)
            pixels[i + k] = static_cast<float>(std::clamp(pixels[i + k] + sigma * z[k], 0.0, 1.0));
    }
}

Result<ImageDataset> applyImageShift(ImageDataset images, const ImageShift& shift, const std::string& sourceName) {
    for (const auto& step : shift)
        if (step.kind == ShiftStepKind::LowRes && (step.value > images.height || step.value > images.width))
            return stepError(step.text, "asks for more than the images' " + std::to_string(images.height) + "x" +
                                            std::to_string(images.width) + ": expected " + kLowresRange);
    const std::size_t n = images.size();
    for (std::size_t i = 0; i < n; ++i) {
        float* image = images.pixels.data() + i * images.imageSize();
        for (std::size_t s = 0; s < shift.size(); ++s)
            applyStep(shift[s], image, images,
                      shift[s].kind == ShiftStepKind::Noise ? shiftNoiseSeed(sourceName, i, s) : 0);
    }
    return images;
}

}  // namespace dpmix::data
