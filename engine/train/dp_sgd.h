#pragma once
// DP-SGD fine-tuning on the private split (issue #5 C): Poisson sampling at q = B/N,
// per-example gradients clipped to C — vectorised, no loop over examples (see
// detail/ghost_clipping.h) — Gaussian noise N(0, σ²C²), sum divided by the expected batch q·N,
// SGD (optionally with momentum, which is post-processing). σ is calibrated to (ε, δ, q, T) by
// privacy::calibrateGaussianSigma; the mechanism is recorded in the ledger as
// gaussianEntry("finetune", split) before the first step, with the planned T (a cancelled run
// has spent at most that).
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/privacy/ledger.h"
#include "engine/train/finetune.h"
#include "engine/train/images.h"
#include "engine/train/model.h"
#include "engine/train/training_params.h"

#include <span>

namespace dpmix::train {

/// Trains `model` in place. Errors (nothing trained, ledger unchanged) for images that do not
/// match the model, bad labels, or expectedBatchSize > N. Throws dpmix::Cancelled when cancelled.
Result<FinetuneResult> finetuneDpSgd(Model& model, const ImageView& images, std::span<const int> labels,
                                     const DpSgdParams& params, privacy::Ledger& ledger,
                                     const ProgressCallback& progress = {}, const CancellationToken& cancel = {});

}  // namespace dpmix::train
