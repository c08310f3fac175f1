#pragma once
// The one training of a one-run audit of a study's fine-tuning (one_run_audit_stage.h): split B of
// the run seed plus the included canaries, trained by the study's own fine-tuning — the downstream
// model runDownstream builds, its random initialisation from the run seed, and the mechanism's
// parameters from pipeline::planFinetune, so σ or r is calibrated for the training set's size
// exactly as a study run on that data would calibrate it. The non-private control is the same
// DP-SGD with σ = 0 (the study's clip C kept): the mechanism with only its noise removed.
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/pipeline/downstream_stage.h"
#include "engine/pipeline/image_study.h"
#include "engine/train/model.h"
#include "engine/train/model_spec.h"
#include "engine/training_audit/training_canary.h"

#include <cstdint>
#include <vector>

namespace dpmix::audit_runs {

struct OneRunFinetuneInput {
    std::vector<std::size_t> splitB;                       // D: indices into study.sensitiveImages
    std::vector<training_audit::TrainingCanary> canaries;  // all m, in order
    std::vector<std::uint8_t> included;                    // the coins: 1 = trained on
    // The study's fine-tuning settings (task, ε, δ, seed, device, accountant, finetune stage,
    // randomness); finetuneIndices is filled here. finetune.mechanism is DP-SGD or Dirichlet.
    pipeline::DownstreamRequest request;
    bool noiseless = false;  // the control: DP-SGD with σ = 0
};

struct OneRunFinetuneOutcome {
    std::vector<double> marginGain;  // per canary: (2y − 1)·(logit after − logit before)
    long long trainingSize = 0;      // |B| + included canaries
    long long steps = 0;
    double q = 0.0, noise = 0.0;
    double testAuc = 0.0;  // the audited model on the study's test split
    double trainSeconds = 0.0;
};

/// The audited model's AUC on the study's test split for `task`.
Result<double> oneRunTestAuc(const train::Model& model, const pipeline::ImageStudy& study, std::size_t task);
/// `task`'s 0/1 labels of the sensitive images `indices`; a view of gathered pixels.
std::vector<int> oneRunTaskLabels(const pipeline::ImageStudy& study, const std::vector<std::size_t>& indices,
                                  std::size_t task);
train::ImageView oneRunImageView(const std::vector<float>& pixels, const data::ImageDataset& like, std::size_t count);

/// Appends the canaries to `study`'s sensitive images (the study is the audit's own copy) and
/// fine-tunes once. Progress: the fine-tuning's "finetune" events. Throws dpmix::Cancelled.
Result<OneRunFinetuneOutcome> finetuneWithCanaries(pipeline::ImageStudy& study, OneRunFinetuneInput input,
                                                   const ProgressCallback& progress, const CancellationToken& cancel);

}  // namespace dpmix::audit_runs
