#include "engine/training_audit/audit_trainer.h"

#include "engine/privacy/ledger.h"

#include <cmath>

namespace dpmix::training_audit {
namespace {

// Non-private SGD through DP-SGD's code: no noise, and a clipping norm no gradient of a
// logistic-regression head on these images reaches.
constexpr double kNoClipping = 1e12;

}  // namespace

double defaultLearningRate(AuditedMechanism m) { return m == AuditedMechanism::Dirichlet ? 0.1 : 0.5; }

double canaryLoss(double logit, int label) {
    const double z = label == 1 ? -logit : logit;  // loss = log(1 + e^z)
    return z > 0.0 ? z + std::log1p(std::exp(-z)) : std::log1p(std::exp(z));
}

Result<train::ModelSpec> logisticHeadSpec(const train::ImageView& images) {
    return train::ModelSpecBuilder()
        .kind(train::ModelKind::Mlp)
        .mlpHidden({})
        .input(images.channels, images.height, images.width)
        .outputs(1)
        .build();
}

Result<AuditTrainer> AuditTrainer::make(const TrainingAuditOptions& o, std::int64_t n) {
    AuditTrainer t;
    t.mechanism_ = o.mechanism;
    t.learningRate_ = o.learningRate.value_or(defaultLearningRate(o.mechanism));
    if (o.mechanism == AuditedMechanism::Dirichlet) {
        auto p = train::DirichletParamsBuilder()
                     .epsilon(o.epsilon)
                     .delta(o.delta)
                     .alpha(o.alpha)
                     .learningRate(t.learningRate_)
                     .expectedBatchSize(o.expectedBatchSize)
                     .steps(o.steps)
                     .split("audit")
                     .build();
        if (!p) return p.error();
        auto planned = train::plannedDirichletEntry(*p, n);  // r* for n, as a run on n images would use
        if (!planned) return planned.error();
        t.dirichlet_ = *p;
        t.dirichlet_.r = planned->dirichletR;
        t.noise_ = planned->dirichletR;
        t.q_ = planned->q;
    } else {
        train::DpSgdParamsBuilder b;
        b.delta(o.delta)
            .learningRate(t.learningRate_)
            .expectedBatchSize(o.expectedBatchSize)
            .steps(o.steps)
            .split("audit")
            .accountant(o.accountant);
        if (o.mechanism == AuditedMechanism::Sgd)
            b.sigma(0.0).clipNorm(kNoClipping);
        else
            b.epsilon(o.epsilon).clipNorm(o.clipNorm);
        auto p = b.build();
        if (!p) return p.error();
        auto planned = train::plannedDpSgdEntry(*p, n, privacy::PrivacyUnit::Example);
        if (!planned) return planned.error();
        t.dpSgd_ = *p;
        t.dpSgd_.sigma = planned->sigma;
        t.noise_ = planned->sigma;
        t.q_ = planned->q;
    }
    return t;
}

Status AuditTrainer::train(train::Model& model, const train::ImageView& images, std::span<const int> labels,
                           const privacy::RandomnessSource& randomness, const ProgressCallback& progress,
                           const CancellationToken& cancel) const {
    privacy::Ledger ledger;  // each run's own; an audit releases nothing
    Result<train::FinetuneResult> r = Error{""};
    if (mechanism_ == AuditedMechanism::Dirichlet) {
        train::DirichletParams p = dirichlet_;
        p.randomness = randomness;
        r = train::finetuneDirichlet(model, images, labels, p, ledger, progress, cancel);
    } else {
        train::DpSgdParams p = dpSgd_;
        p.randomness = randomness;
        r = train::finetuneDpSgd(model, images, labels, p, ledger, progress, cancel);
    }
    if (!r) return r.error();
    return std::nullopt;
}

}  // namespace dpmix::training_audit
