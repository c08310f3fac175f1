#include "engine/audit_runs/one_run_finetune.h"

#include "engine/pipeline/run_storage.h"
#include "engine/privacy/ledger.h"
#include "engine/train/dirichlet_training.h"
#include "engine/train/dp_sgd.h"
#include "engine/train/evaluation.h"
#include "engine/train/model.h"
#include "engine/train/model_spec.h"

#include <chrono>
#include <cmath>

namespace dpmix::audit_runs {
namespace {

/// Appends the canaries to the sensitive images (label `label` for the audited task, 0 for the
/// others, which this training never reads) and returns the training set: D, then the included.
std::vector<std::size_t> appendCanaries(pipeline::ImageStudy& study, const OneRunFinetuneInput& in) {
    auto& images = study.sensitiveImages;
    const std::size_t first = images.size(), tasks = images.numLabels();
    std::vector<std::size_t> indices = in.splitB;
    for (std::size_t i = 0; i < in.canaries.size(); ++i) {
        const auto& c = in.canaries[i];
        images.pixels.insert(images.pixels.end(), c.pixels.begin(), c.pixels.end());
        for (std::size_t t = 0; t < tasks; ++t)
            images.labels.push_back(t == in.request.task ? static_cast<float>(c.label) : 0.0f);
        if (!images.labelMask.empty()) images.labelMask.insert(images.labelMask.end(), tasks, 1);
        if (in.included[i] != 0) indices.push_back(first + i);
    }
    return indices;
}

/// Each canary's logit signed by its label (> 0: classified as labelled).
Result<std::vector<double>> canaryMargins(const train::Model& model, const train::ImageView& view,
                                          const std::vector<training_audit::TrainingCanary>& canaries) {
    auto logits = model.logits(view);
    if (!logits) return logits.error();
    std::vector<double> margins(canaries.size());
    for (std::size_t i = 0; i < canaries.size(); ++i) {
        margins[i] = (canaries[i].label == 1 ? 1.0 : -1.0) * (*logits)[i];
        if (!std::isfinite(margins[i]))
            return Error{"the model's logit on canary " + std::to_string(i) + " is not finite (the training diverged)"};
    }
    return margins;
}

/// The fine-tuning runDownstream runs (its model, mechanism calls and progress stage), without
/// pretraining: the audited model starts from the run seed's random initialisation.
Result<train::FinetuneResult> fineTune(train::Model& model, const train::ImageView& images,
                                       const std::vector<int>& labels, const pipeline::FinetunePlan& plan,
                                       const ProgressCallback& progress, const CancellationToken& cancel) {
    privacy::Ledger ledger;  // the mechanism's own entry; the audit records a NonPrivate one instead
    auto ftProgress = [&](const ProgressEvent& e) { report(progress, {"finetune", e.done, e.total, e.message}); };
    if (plan.dirichlet)
        return train::finetuneDirichlet(model, images, labels, *plan.dirichlet, ledger, ftProgress, cancel);
    return train::finetuneDpSgd(model, images, labels, *plan.dpSgd, ledger, ftProgress, cancel);
}

}  // namespace

train::ImageView oneRunImageView(const std::vector<float>& pixels, const data::ImageDataset& like, std::size_t count) {
    return {pixels, static_cast<std::int64_t>(count), like.channels, like.height, like.width};
}

std::vector<int> oneRunTaskLabels(const pipeline::ImageStudy& study, const std::vector<std::size_t>& indices,
                                  std::size_t task) {
    std::vector<int> labels;
    labels.reserve(indices.size());
    for (auto i : indices) labels.push_back(study.sensitiveLabel(i, task) > 0.5f ? 1 : 0);
    return labels;
}

Result<double> oneRunTestAuc(const train::Model& model, const pipeline::ImageStudy& study, std::size_t task) {
    const auto& test = study.sensitiveSplit.test;
    const auto pixels = pipeline::gatherImages(study.sensitiveImages, test);
    auto logits = model.logits(oneRunImageView(pixels, study.sensitiveImages, test.size()));
    if (!logits) return logits.error();
    const std::vector<double> scores(logits->begin(), logits->end());
    return train::rocAuc(scores, oneRunTaskLabels(study, test, task));
}

Result<OneRunFinetuneOutcome> finetuneWithCanaries(pipeline::ImageStudy& study, OneRunFinetuneInput in,
                                                   const ProgressCallback& progress, const CancellationToken& cancel) {
    auto spec = pipeline::downstreamModelSpec(study);
    if (!spec) return spec.error();
    in.request.finetuneIndices = appendCanaries(study, in);
    auto planned = pipeline::planFinetune(study, in.request);
    if (!planned) return planned.error();
    pipeline::FinetunePlan plan = std::move(planned).value();
    if (in.noiseless) plan.dpSgd->sigma = 0.0;

    std::vector<float> canaryPixels;
    for (const auto& c : in.canaries) canaryPixels.insert(canaryPixels.end(), c.pixels.begin(), c.pixels.end());
    const auto canaryView = oneRunImageView(canaryPixels, study.sensitiveImages, in.canaries.size());
    train::Model model = train::Model::create(*spec, in.request.seed, in.request.device);
    // The initialisation is fixed before the data, so subtracting its margin is post-processing.
    auto before = canaryMargins(model, canaryView, in.canaries);
    if (!before) return before.error();

    const auto& indices = in.request.finetuneIndices;
    const auto pixels = pipeline::gatherImages(study.sensitiveImages, indices);
    const auto labels = oneRunTaskLabels(study, indices, in.request.task);
    const auto start = std::chrono::steady_clock::now();
    auto ft =
        fineTune(model, oneRunImageView(pixels, study.sensitiveImages, indices.size()), labels, plan, progress, cancel);
    if (!ft) return Error{"fine-tuning: " + ft.error().message};
    OneRunFinetuneOutcome out;
    out.trainSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    auto after = canaryMargins(model, canaryView, in.canaries);
    if (!after) return after.error();
    out.marginGain = std::move(after).value();
    for (std::size_t i = 0; i < out.marginGain.size(); ++i) out.marginGain[i] -= (*before)[i];
    out.trainingSize = static_cast<long long>(indices.size());
    out.steps = ft->steps;
    out.q = ft->q;
    out.noise = ft->noise;
    auto auc = oneRunTestAuc(model, study, in.request.task);
    if (!auc) return Error{"evaluation: " + auc.error().message};
    out.testAuc = *auc;
    return out;
}

}  // namespace dpmix::audit_runs
