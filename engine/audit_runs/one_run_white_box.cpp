#include "engine/audit_runs/one_run_white_box.h"

#include "engine/pipeline/run_storage.h"
#include "engine/privacy/ledger.h"
#include "engine/train/gradient_canaries.h"
#include "engine/train/model.h"

#include <algorithm>
#include <chrono>
#include <limits>

namespace dpmix::audit_runs {
namespace {

/// The auditor's view, one step at a time: each canary's largest noisy-sum value at its coordinate
/// and the sum over the steps. Score = max_t s_t − mean_t s_t (whiteBoxScore in the header).
class ScoreAccumulator {
public:
    explicit ScoreAccumulator(std::size_t m) : max_(m, -std::numeric_limits<double>::infinity()), sum_(m, 0.0) {}
    void observe(std::span<const double> noisySum) {
        for (std::size_t i = 0; i < max_.size(); ++i) {
            max_[i] = std::max(max_[i], noisySum[i]);
            sum_[i] += noisySum[i];
        }
        ++steps_;
    }
    std::vector<double> scores() const {
        std::vector<double> s(max_.size(), 0.0);
        if (steps_ == 0) return s;
        for (std::size_t i = 0; i < s.size(); ++i) s[i] = max_[i] - sum_[i] / static_cast<double>(steps_);
        return s;
    }

private:
    std::vector<double> max_, sum_;
    long long steps_ = 0;
};

}  // namespace

Result<ScoredTraining> finetuneWithGradientCanaries(const pipeline::ImageStudy& study, WhiteBoxInput in,
                                                    const ProgressCallback& progress, const CancellationToken& cancel) {
    auto spec = pipeline::downstreamModelSpec(study);
    if (!spec) return spec.error();
    in.request.finetuneIndices = in.splitB;  // the canaries are gradients, not images
    auto planned = pipeline::planFinetune(study, in.request);
    if (!planned) return planned.error();
    if (!planned->dpSgd) return Error{"white-box: gradient canaries audit DP-SGD fine-tuning", "white-box"};
    train::DpSgdParams params = *planned->dpSgd;
    if (in.noiseless) params.sigma = 0.0;

    train::Model model = train::Model::create(*spec, in.request.seed, in.request.device);
    const auto m = static_cast<long long>(in.included.size());
    ScoreAccumulator scores(in.included.size());
    train::GradientCanaries canaries;
    canaries.coordinates = train::spreadCanaryCoordinates(model.parameterCount(), m, in.coordinateSeed);
    if (static_cast<long long>(canaries.coordinates.size()) != m)
        return Error{"canaries = " + std::to_string(m) + " Dirac canaries need as many of the model's " +
                         std::to_string(model.parameterCount()) + " parameters",
                     "canaries"};
    canaries.included = in.included;
    canaries.observe = [&](long long, std::span<const double> sum) { scores.observe(sum); };

    const auto& indices = in.request.finetuneIndices;
    const auto pixels = pipeline::gatherImages(study.sensitiveImages, indices);
    const auto labels = oneRunTaskLabels(study, indices, in.request.task);
    privacy::Ledger ledger;  // the mechanism's own entry; the audit records a NonPrivate one instead
    auto ftProgress = [&](const ProgressEvent& e) { report(progress, {"finetune", e.done, e.total, e.message}); };
    const auto start = std::chrono::steady_clock::now();
    auto ft =
        train::finetuneDpSgdWithGradientCanaries(model, oneRunImageView(pixels, study.sensitiveImages, indices.size()),
                                                 labels, params, canaries, ledger, ftProgress, cancel);
    if (!ft) return Error{"fine-tuning: " + ft.error().message};
    ScoredTraining out;
    out.run.trainSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    out.score = scores.scores();
    out.run.trainingSize = static_cast<long long>(indices.size()) +
                           static_cast<long long>(std::count(in.included.begin(), in.included.end(), 1));
    out.run.steps = ft->steps;
    out.run.q = ft->q;
    out.run.noise = ft->noise;
    auto auc = oneRunTestAuc(model, study, in.request.task);
    if (!auc) return Error{"evaluation: " + auc.error().message};
    out.run.testAuc = *auc;
    return out;
}

}  // namespace dpmix::audit_runs
