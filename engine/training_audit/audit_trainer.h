#pragma once
// One training of an audited fine-tuning mechanism on a logistic-regression head — the Dirichlet
// mechanism, DP-SGD or non-private SGD, through the product's own train::finetune* calls, with r
// or σ calibrated once as a run on that many images would — shared by the R-run canary audit
// (training_audit.h) and the one-run audit (one_run_audit.h), so both audit the same thing.
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/privacy/randomness_source.h"
#include "engine/train/dirichlet_training.h"
#include "engine/train/dp_sgd.h"
#include "engine/train/images.h"
#include "engine/train/model.h"
#include "engine/training_audit/training_audit.h"

#include <cstdint>
#include <span>

namespace dpmix::training_audit {

/// The default learning rate of a mechanism's audit: 0.1 (Dirichlet, the paper's), 0.5 otherwise.
double defaultLearningRate(AuditedMechanism m);

/// Binary cross-entropy of one logit, computed without overflow.
double canaryLoss(double logit, int label);

/// The audits' model: one logit on the raw pixels (ModelKind::Mlp without hidden layers).
Result<train::ModelSpec> logisticHeadSpec(const train::ImageView& images);

class AuditTrainer {
public:
    /// Calibrates r (Dirichlet) or σ (DP-SGD) to the options' claim for `n` training images.
    /// Uses mechanism, epsilon, delta, accountant, steps, expectedBatchSize, learningRate,
    /// clipNorm and alpha of `o`.
    static Result<AuditTrainer> make(const TrainingAuditOptions& o, std::int64_t n);

    /// Trains `model` in place on (images, labels) with the mechanism's sampling and noise drawn
    /// from `randomness`.
    Status train(train::Model& model, const train::ImageView& images, std::span<const int> labels,
                 const privacy::RandomnessSource& randomness, const ProgressCallback& progress,
                 const CancellationToken& cancel) const;

    double noise() const { return noise_; }  // σ (DP-SGD), r (Dirichlet), 0 (SGD)
    double q() const { return q_; }
    double learningRate() const { return learningRate_; }

private:
    AuditedMechanism mechanism_ = AuditedMechanism::Dirichlet;
    train::DirichletParams dirichlet_;
    train::DpSgdParams dpSgd_;
    double noise_ = 0.0, q_ = 0.0, learningRate_ = 0.0;
};

}  // namespace dpmix::training_audit
