#include "engine/psg_set/psg_params.h"

#include <cmath>
#include <sstream>

namespace dpmix::psg {

const std::vector<int>& supportedImagesPerClass() {
    static const std::vector<int> values{1, 10, 20, 50};
    return values;
}

Result<PsgLoops> loopsForImagesPerClass(int imagesPerClass) {
    switch (imagesPerClass) {
        case 1: return PsgLoops{1, 1};
        case 10: return PsgLoops{10, 50};
        case 20: return PsgLoops{20, 25};
        case 50: return PsgLoops{50, 10};
        default: break;
    }
    return Error{"psg: images per class = " + std::to_string(imagesPerClass) +
                 " is not supported: expected 1, 10, 20 or 50 (the values the method defines its loops for)"};
}

PsgLoops PsgParams::loops() const {
    auto l = loopsForImagesPerClass(imagesPerClass);
    return l ? *l : PsgLoops{};
}

long long PsgParams::compositions() const { return static_cast<long long>(iterations) * loops().outer * batchLoop; }

namespace {

std::string text(double v) {
    std::ostringstream out;
    out << v;
    return out.str();
}

Status positiveInt(const std::string& field, long long v) {
    if (v >= 1) return std::nullopt;
    return Error{"psg: " + field + " = " + std::to_string(v) + " is out of range: expected an integer >= 1"};
}

Status positiveReal(const std::string& field, double v) {
    if (std::isfinite(v) && v > 0) return std::nullopt;
    return Error{"psg: " + field + " = " + text(v) + " is out of range: expected a finite number > 0"};
}

}  // namespace

Result<PsgParams> PsgParamsBuilder::build() const {
    const PsgParams& p = p_;
    if (auto l = loopsForImagesPerClass(p.imagesPerClass); !l) return l.error();
    for (auto s : {positiveInt("iterations", p.iterations), positiveInt("batch_loop", p.batchLoop),
                   positiveInt("batch", p.expectedBatchSize), positiveInt("network_batch", p.networkBatchSize),
                   positiveInt("network_width", p.networkWidth), positiveInt("network_depth", p.networkDepth),
                   positiveReal("epsilon", p.epsilon), positiveReal("clip", p.clipNorm),
                   positiveReal("lr_image", p.imageLearningRate), positiveReal("lr_network", p.networkLearningRate),
                   positiveReal("pixel_std", p.pixelStd)})
        if (s) return *s;
    if (!(p.delta > 0 && p.delta < 1))
        return Error{"psg: delta = " + text(p.delta) + " is out of range: expected 0 < delta < 1"};
    if (!(p.imageMomentum >= 0 && p.imageMomentum < 1))
        return Error{"psg: momentum_image = " + text(p.imageMomentum) + " is out of range: expected 0 <= momentum < 1"};
    if (!std::isfinite(p.pixelMean)) return Error{"psg: pixel_mean = " + text(p.pixelMean) + " is not a finite number"};
    if (p.sigma && !(std::isfinite(*p.sigma) && *p.sigma > 0))
        return Error{"psg: sigma = " + text(*p.sigma) + " is out of range: expected a finite noise multiplier > 0"};
    if (p.compositions() > 100'000'000)
        return Error{"psg: iterations = " + std::to_string(p.iterations) + " gives " +
                     std::to_string(p.compositions()) + " DP gradient steps: expected at most 10^8"};
    return p;
}

Result<privacy::LedgerEntry> plannedPsgEntry(const PsgParams& params, std::int64_t examples) {
    if (examples < params.expectedBatchSize)
        return Error{"psg: batch = " + std::to_string(params.expectedBatchSize) + " exceeds the " +
                     std::to_string(examples) + " sensitive examples: the sampling rate q = batch/N must be <= 1"};
    const double q = static_cast<double>(params.expectedBatchSize) / static_cast<double>(examples);
    const long long steps = params.compositions();
    double sigma = 0.0;
    if (params.sigma) {
        sigma = *params.sigma;
    } else {
        auto calibrated = privacy::calibrateSigma(params.accountant, params.epsilon, params.delta, q, steps);
        if (!calibrated) return Error{"psg: " + calibrated.error().message};
        sigma = calibrated->sigma;
    }
    privacy::LedgerEntry e = privacy::gaussianEntry("psg", params.split, privacy::PrivacyUnit::Example, q, sigma, steps,
                                                    params.delta, params.clipNorm, params.accountant);
    privacy::setRandomness(e, params.randomness.mode);
    return e;
}

}  // namespace dpmix::psg
