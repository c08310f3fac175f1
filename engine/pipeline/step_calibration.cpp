#include "engine/pipeline/step_calibration.h"

#include "engine/pipeline/downstream_stage.h"

#include "engine/train/pretrain.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <vector>

namespace dpmix::pipeline {

namespace {

// Seconds of `steps` steps of pretraining at `batch` on random pixels (model creation included).
Result<double> timedTraining(const ImageStudy& study, const train::ModelSpec& spec, int batch, int steps,
                             const std::string& device) {
    const auto& shape = study.publicImages;
    const int pixels = shape.channels * shape.height * shape.width;
    const int n = steps * batch;
    std::vector<float> images(static_cast<std::size_t>(n) * static_cast<std::size_t>(pixels));
    std::mt19937 gen(7);
    std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
    for (float& v : images) v = uniform(gen);
    const std::vector<float> labels(static_cast<std::size_t>(n), 1.0f);  // one source, all positive
    const std::vector<double> lambda{1.0};
    auto params = train::SupervisedParamsBuilder().epochs(1).batchSize(batch).device(device).build();
    if (!params) return params.error();
    const train::ImageView view{images, n, shape.channels, shape.height, shape.width};
    const auto start = std::chrono::steady_clock::now();
    auto model = train::pretrainOnMixture(view, labels, 1, lambda, spec, *params);
    if (!model) return model.error();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The fastest of `repeats` trainings: other work on the machine only ever adds time.
Result<double> fastestTraining(const ImageStudy& study, const train::ModelSpec& spec, int batch, int steps,
                               const std::string& device, int repeats = 3) {
    double fastest = 0.0;
    for (int r = 0; r < repeats; ++r) {
        auto t = timedTraining(study, spec, batch, steps, device);
        if (!t) return t.error();
        fastest = r == 0 ? *t : std::min(fastest, *t);
    }
    return fastest;
}

// One step at `batch`: a one-step and a five-step training, the difference over four steps; a
// noisy machine can make it tiny or negative, then the five-step run's mean (an overestimate,
// the safe side for a user waiting).
Result<double> secondsPerStep(const ImageStudy& study, const train::ModelSpec& spec, int batch,
                              const std::string& device) {
    auto one = fastestTraining(study, spec, batch, 1, device);
    if (!one) return one.error();
    auto five = fastestTraining(study, spec, batch, 5, device);
    if (!five) return five.error();
    const double difference = (*five - *one) / 4.0;
    return difference > 0.05 * (*five / 5.0) ? difference : *five / 5.0;
}

}  // namespace

Result<StepCalibration> calibrateTrainingStep(const ImageStudy& study, const std::string& device) {
    auto spec = downstreamModelSpec(study);
    if (!spec) return spec.error();
    // The first training of a process pays LibTorch's and the BLAS's start-up (thread pools,
    // first allocations): a warm-up, not timed.
    if (auto warm = timedTraining(study, *spec, 16, 1, device); !warm) return warm.error();
    constexpr int kSmall = 16, kLarge = 128;
    auto small = secondsPerStep(study, *spec, kSmall, device);
    if (!small) return small.error();
    auto large = secondsPerStep(study, *spec, kLarge, device);
    if (!large) return large.error();
    StepCalibration c;
    c.secondsPerExample = std::max(0.0, (*large - *small) / (kLarge - kSmall));
    if (c.secondsPerExample <= 0.0) c.secondsPerExample = *large / kLarge;  // noise: all of it per example
    c.secondsPerStep = std::max(0.0, *small - kSmall * c.secondsPerExample);
    return c;
}

}  // namespace dpmix::pipeline
