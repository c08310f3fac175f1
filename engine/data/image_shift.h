#pragma once
// Acquisition-shifted copies of a public image set (the image loaders' "shift" option,
// docs/DATA.md): the same anatomy seen through another scanner — the other polarity, a
// lower-resolution detector, blur, sensor noise, a rotated patient, another tone curve. It widens
// a heterogeneous public pool from data that is public already; the spec refuses it on the
// sensitive source (engine/project/spec_json.cpp): nothing may derive from the sensitive data.
// Every step is deterministic, so a shifted copy has a stable content hash.
#include "engine/core/result.h"
#include "engine/data/source_loader.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace dpmix::data {

enum class ShiftStepKind { Invert, LowRes, Blur, Noise, Rotate, Gamma, Contrast };

struct ShiftStep {
    ShiftStepKind kind = ShiftStepKind::Invert;
    double value = 0;  // lowres R, blur σ, noise S, rotate degrees, gamma G, contrast C; unused by invert
    std::string text;  // the step as written ("blur:1.0"), for errors
};

/// Steps applied left to right.
using ImageShift = std::vector<ShiftStep>;

/// Parses "invert+lowres:14+noise:0.1". Accepted steps and ranges: invert; lowres:R (integer,
/// R >= 2; at most the images' height and width, checked by applyImageShift); blur:S (σ in
/// (0, 10] pixels); noise:S (S in (0, 1]); rotate:D (degrees in [-180, 180]); gamma:G (G in
/// (0, 10]); contrast:C (C in [0, 4]). An error names the step and lists the accepted steps.
Result<ImageShift> parseImageShift(const std::string& text);

/// Per-pixel steps: invert x -> 1 - x, gamma x -> x^G, contrast x -> 0.5 + C·(x - 0.5) clamped to
/// [0,1]. Other kinds return x unchanged.
float shiftPixel(const ShiftStep& step, float x);

/// One H×W plane (row-major) down to R×R and back to H×W with resizeImage's antialiased filter.
std::vector<float> lowresPlane(const std::vector<float>& plane, int height, int width, int resolution);

/// Gaussian blur, σ in pixels: a separable kernel of radius ceil(3σ) normalised to sum 1, edges
/// clamped (the border pixel repeats).
std::vector<float> blurPlane(const std::vector<float>& plane, int height, int width, double sigma);

/// Rotation by `degrees` counter-clockwise (as shown, rows top to bottom) about the plane's
/// centre, bilinear; what comes from outside the plane is 0. Multiples of 90° are exact.
std::vector<float> rotatePlane(const std::vector<float>& plane, int height, int width, double degrees);

/// The seed of the noise of image `index` at chain position `step` of source `sourceName`: the
/// first 8 bytes of SHA-256 over them, so the copy is the same data set on every machine (up to
/// the last bit of the C library's log and cos, far below the content hash's u8 quantisation).
std::uint64_t shiftNoiseSeed(const std::string& sourceName, std::size_t index, std::size_t step);

/// Adds N(0, S²) to each of `count` pixels (Box–Muller over portable_random.h's uniform01, which
/// the standard fixes; std::normal_distribution it does not) and clamps to [0,1].
void addSensorNoise(float* pixels, std::size_t count, double sigma, std::uint64_t seed);

/// Every image of `images` through `shift`, step by step, each channel plane alike; shape,
/// labels, masks and users are kept. Noise is seeded by shiftNoiseSeed(sourceName, image, step).
/// An error names the step when lowres R exceeds the images' height or width.
Result<ImageDataset> applyImageShift(ImageDataset images, const ImageShift& shift, const std::string& sourceName);

}  // namespace dpmix::data
