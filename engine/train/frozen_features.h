#pragma once
// A trained network used as a FROZEN feature extractor: the activations its last block reads
// (the penultimate layer), computed without gradients. AdaMix-R as a study's fine-tuning
// mechanism trains its softmax head on them (docs/ADAMIX.md, "As a study's fine-tuning
// mechanism"). Torch-free header; the model is not changed.
#include "engine/core/result.h"
#include "engine/train/images.h"
#include "engine/train/model.h"

#include <cstdint>
#include <vector>

namespace dpmix::train {

struct FrozenFeatures {
    std::vector<float> values;  // rows × dim, row-major
    std::int64_t rows = 0;
    std::int64_t dim = 0;  // p: the width the model's last block reads
};

/// The input of the model's last block for every image (all blocks but the last, in
/// evaluation batches, no autograd), flattened per image. For the small CNN that is the hidden
/// ReLU layer the single-logit head reads. Errors for images of another shape or a model of one
/// block.
Result<FrozenFeatures> frozenExtractorFeatures(const Model& model, const ImageView& images);

}  // namespace dpmix::train
