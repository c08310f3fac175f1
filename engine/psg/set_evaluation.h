#pragma once
// How good is a small training set? Train fresh networks on it and measure accuracy on held-out
// images (docs/PSG.md, "Evaluation"). Used for S, for the untrained noise S and for a random
// subset of real images of the same size. Torch-free header.
#include "engine/core/cancellation.h"
#include "engine/core/result.h"
#include "engine/train/images.h"
#include "engine/train/model.h"
#include "engine/train/model_spec.h"

#include <cstdint>
#include <span>

namespace dpmix::psg {

/// The published evaluation schedule: SGD, lr 0.01, momentum 0.9, weight decay 5e-4, lr × 0.1 at
/// half the epochs; inputs mapped by the same fixed (pixel − mean)/std as generation.
struct SetTrainingParams {
    int epochs = 300;
    int batchSize = 256;
    double learningRate = 0.01;
    double momentum = 0.9;
    double weightDecay = 5e-4;
    double pixelMean = 0.5;
    double pixelStd = 0.5;
    std::uint64_t seed = 0;      // the network's initialisation and the batch order
    std::string device = "cpu";  // where the network trains (Model::create's names)
};

/// Trains a fresh network of `spec` (its outputs = the number of classes) on the labelled
/// images, non-privately, and returns its accuracy (0..1) on the test images. Errors for shapes
/// that do not fit the spec, labels out of range or sizes that disagree; throws
/// dpmix::Cancelled when cancelled.
Result<double> accuracyAfterTrainingOn(const train::ModelSpec& spec, const train::ImageView& trainImages,
                                       std::span<const int> trainLabels, const train::ImageView& testImages,
                                       std::span<const int> testLabels, const SetTrainingParams& params,
                                       const CancellationToken& cancel = {});

/// The share of test images whose largest logit under `model` is their label (inputs as given).
Result<double> accuracyOf(const train::Model& model, const train::ImageView& testImages,
                          std::span<const int> testLabels);

}  // namespace dpmix::psg
