#pragma once
// The one training of a WHITE-BOX one-run audit of a study's DP-SGD fine-tuning
// (one_run_audit_stage.h, docs/AUDIT.md "The white-box one-run audit"): the study's own
// fine-tuning on split B of the run seed, with m Dirac canary gradients (train::GradientCanaries)
// instead of canary images. Each included canary is one more example to the mechanism: sampled at
// the same q, added to the clipped sum before the noise, counted in q = B/(|B| + included) and in
// σ's calibration. The auditor reads every step's noisy sum at the canaries' coordinates.
#include "engine/audit_runs/one_run_finetune.h"
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/pipeline/downstream_stage.h"
#include "engine/pipeline/image_study.h"

#include <cstdint>
#include <vector>

namespace dpmix::audit_runs {

/// A canary's score from the noisy sums s_1 … s_T the steps released at its coordinate:
///     max_t s_t − (1/T) Σ_t s_t.
/// Why not the sum Σ_t s_t: at the study's q·T (≈ 0.6 on the demo) an included canary is sampled
/// once or not at all, so its signal is one step of +C; the sum adds T steps of the data's own
/// gradient at that coordinate, which differs from coordinate to coordinate by more than C. The
/// largest step finds the one step, and subtracting the coordinate's own mean removes its data
/// offset. Both are functions of the released sums only: post-processing.
struct WhiteBoxInput {
    std::vector<std::size_t> splitB;     // D: indices into study.sensitiveImages
    std::vector<std::uint8_t> included;  // the coins, one per canary (m = included.size())
    std::uint64_t coordinateSeed = 0;    // where the Dirac canaries sit (public, before the coins)
    // The study's fine-tuning settings (finetuneIndices is filled here); finetune.mechanism DP-SGD.
    pipeline::DownstreamRequest request;
    bool noiseless = false;  // the control: σ = 0, the study's clip C kept
};

/// The one training of a one-run audit, black-box or white-box: each canary's score (higher =
/// more likely in) and the training's bookkeeping (white-box: marginGain empty).
struct ScoredTraining {
    std::vector<double> score;
    OneRunFinetuneOutcome run;  // training size, steps, q, σ, test AUC, seconds
};

/// Fine-tunes once with the gradient canaries and scores them. Progress: the fine-tuning's
/// "finetune" events. Throws dpmix::Cancelled.
Result<ScoredTraining> finetuneWithGradientCanaries(const pipeline::ImageStudy& study, WhiteBoxInput input,
                                                    const ProgressCallback& progress, const CancellationToken& cancel);

}  // namespace dpmix::audit_runs
