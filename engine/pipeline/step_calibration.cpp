#include "engine/pipeline/step_calibration.h"

#include "engine/train/pretrain.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <vector>

namespace dpmix::pipeline {

Result<StepCalibration> calibrateTrainingStep(const ImageStudy& study, int batch, const std::string& device) {
    const auto& shape = study.publicImages;
    batch = std::clamp(batch, 8, 512);
    auto spec = train::ModelSpecBuilder()
                    .kind(train::ModelKind::SmallCnn)
                    .input(shape.channels, shape.height, shape.width)
                    .outputs(1)
                    .build();
    if (!spec) return Error{"downstream model: " + spec.error().message};
    const int pixels = shape.channels * shape.height * shape.width;
    const int most = 5 * batch;
    std::vector<float> images(static_cast<std::size_t>(most) * static_cast<std::size_t>(pixels));
    std::mt19937 gen(7);
    std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
    for (float& v : images) v = uniform(gen);
    const std::vector<float> labels(static_cast<std::size_t>(most), 1.0f);  // one source, all positive
    const std::vector<double> lambda{1.0};
    auto timed = [&](int steps) -> Result<double> {
        auto params = train::SupervisedParamsBuilder().epochs(1).batchSize(batch).device(device).build();
        if (!params) return params.error();
        const int n = steps * batch;
        const train::ImageView view{std::span<const float>(images.data(), static_cast<std::size_t>(n) * pixels), n,
                                    shape.channels, shape.height, shape.width};
        const auto start = std::chrono::steady_clock::now();
        auto model = train::pretrainOnMixture(view, std::span<const float>(labels.data(), static_cast<std::size_t>(n)),
                                              1, lambda, *spec, *params);
        if (!model) return model.error();
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    // The first training of a process pays LibTorch's and the BLAS's start-up (thread pools,
    // first allocations): a warm-up run, not timed.
    if (auto warm = timed(1); !warm) return warm.error();
    auto one = timed(1);
    if (!one) return one.error();
    auto five = timed(5);
    if (!five) return five.error();
    StepCalibration c;
    c.batch = batch;
    // A noisy machine can make the difference tiny or negative: then the five-step run's mean,
    // which still holds the model's creation (an overestimate, the safe side for a user waiting).
    const double difference = (*five - *one) / 4.0;
    c.stepSeconds = difference > 0.05 * (*five / 5.0) ? difference : *five / 5.0;
    c.secondsPerExample = c.stepSeconds / batch;
    return c;
}

}  // namespace dpmix::pipeline
