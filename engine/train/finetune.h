#pragma once
// What the two private fine-tuning stages (dp_sgd.h, dirichlet_training.h) share: the label
// format they accept and the summary they return.
#include "engine/core/result.h"
#include "engine/privacy/ledger.h"
#include "engine/train/images.h"
#include "engine/train/model_spec.h"

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace dpmix::train {

/// Labels for fine-tuning: with a single-logit model (spec.outputs = 1) each label is 0 or 1
/// (binary task, BCE); with K > 1 outputs each label is a class in 0..K−1 (cross-entropy).
Status checkFinetuneLabels(std::span<const int> labels, std::int64_t examples, int outputs);

/// Everything both fine-tuning mechanisms check before touching the model or the ledger: the
/// images match the model, one valid label per image, q = B/N <= 1, and no more frozen-block
/// request than the model has blocks.
Status checkFinetuneInputs(const ModelSpec& spec, const ImageView& images, std::span<const int> labels,
                           int expectedBatchSize, int trainLastBlocks);

struct FinetuneResult {
    long long steps = 0;           // T
    double q = 0.0;                // Poisson sampling rate
    double noise = 0.0;            // σ (DP-SGD) or r (Dirichlet)
    privacy::LedgerEntry entry;    // what was recorded in the ledger
    std::vector<double> stepLoss;  // mean training loss of each step's batch (NaN: empty batch)
    double clippedFraction = 0.0;  // DP-SGD: share of sampled examples whose gradient was clipped
};

}  // namespace dpmix::train
