#pragma once
// DP-SGD fine-tuning on the private split (docs/TRAINING.md, "DP-SGD"): Poisson sampling at q = B/N,
// per-example gradients clipped to C — vectorised, no loop over examples (see
// detail/ghost_clipping.h) — Gaussian noise N(0, σ²C²), sum divided by the expected batch q·N,
// SGD (optionally with momentum, which is post-processing). σ is calibrated to (ε, δ, q, T) by
// privacy::calibrateGaussianSigma; the mechanism is recorded in the ledger as
// gaussianEntry("finetune", split) before the first step, with the planned T (a cancelled run
// has spent at most that). The white-box audit's variant with gradient canaries is a separate entry
// point (gradient_canaries.h), so that no caller of finetuneDpSgd can switch canaries on.
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/privacy/ledger.h"
#include "engine/train/finetune.h"
#include "engine/train/images.h"
#include "engine/train/model.h"
#include "engine/train/training_params.h"

#include <cstdint>
#include <span>

namespace dpmix::train {

/// The ledger entry DP-SGD records for these parameters on `units` examples or users (σ
/// calibrated to (ε, δ, q = B/units, T) unless given), known before any data is touched.
Result<privacy::LedgerEntry> plannedDpSgdEntry(const DpSgdParams& params, std::int64_t units,
                                               privacy::PrivacyUnit unit);

/// Example level. Trains `model` in place. Errors (nothing trained, ledger unchanged) for images that do not
/// match the model, bad labels, or expectedBatchSize > N. Throws dpmix::Cancelled when cancelled.
Result<FinetuneResult> finetuneDpSgd(Model& model, const ImageView& images, std::span<const int> labels,
                                     const DpSgdParams& params, privacy::Ledger& ledger,
                                     const ProgressCallback& progress = {}, const CancellationToken& cancel = {});

/// User level: `userOfImage` numbers each image's user 0..m−1 (every user owns at least one
/// image). Users are Poisson-sampled at q = expectedBatchSize / m; a sampled user contributes
/// the mean gradient of at most params.maxExamplesPerUser of its images (drawn without
/// replacement), clipped to C as ONE unit — so adding or removing a user, with all their images,
/// moves the clipped sum by at most C. Noise N(0, σ²C²), sum divided by q·m; σ calibrated on
/// (ε, δ, q, T) of users, and the ledger entry's unit is "user". Errors as finetuneDpSgd, and for
/// a user list that does not match the images.
Result<FinetuneResult> finetuneUserLevelDpSgd(Model& model, const ImageView& images, std::span<const int> labels,
                                              std::span<const std::int64_t> userOfImage, const DpSgdParams& params,
                                              privacy::Ledger& ledger, const ProgressCallback& progress = {},
                                              const CancellationToken& cancel = {});

}  // namespace dpmix::train
