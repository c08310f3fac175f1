#include "engine/audit_runs/one_run_audit_stage.h"

#include "engine/audit_runs/audit_stage.h"
#include "engine/audit_runs/one_run_audit_storage.h"
#include "engine/audit_runs/one_run_finetune.h"
#include "engine/audit_runs/one_run_white_box.h"
#include "engine/pipeline/audit_records.h"
#include "engine/pipeline/image_study.h"
#include "engine/pipeline/run_storage.h"
#include "engine/privacy/ledger.h"
#include "engine/privacy/mechanism_random.h"
#include "engine/privacy/one_run_bound.h"
#include "engine/privacy/one_run_guesses.h"
#include "engine/privacy/parameters.h"
#include "engine/project/study_seed.h"
#include "engine/train/model.h"
#include "engine/training_audit/one_run_audit.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

namespace dpmix::audit_runs {
namespace {

// The fine-tuning audited: the options' (a stored run's values) or the spec's.
const project::FinetuneStage& finetuneOf(const project::ProjectSpec& spec, const OneRunAuditStageOptions& o) {
    return o.finetune ? *o.finetune : spec.finetune;
}

using training_audit::AuditedMechanism;
using training_audit::TrainingCanaryKind;

constexpr double kDefaultGuessFraction = 0.1;  // k₊ = k₋ = round(0.1 · m), as the logistic-head audit

long long guessesEachWay(const OneRunAuditStageOptions& o) {
    return o.guesses > 0 ? o.guesses : std::llround(kDefaultGuessFraction * static_cast<double>(o.canaries));
}

/// What the audit trains on besides the canaries, and the canaries themselves.
struct OneRunData {
    std::size_t task = 0;
    std::vector<std::size_t> splitB;
    std::vector<training_audit::TrainingCanary> canaries;
};

Result<std::size_t> taskIndex(const pipeline::ImageStudy& study, const std::string& task) {
    const auto it = std::find(study.taskNames.begin(), study.taskNames.end(), task);
    if (it == study.taskNames.end()) return Error{"task: unknown task '" + task + "'", "task"};
    return static_cast<std::size_t>(it - study.taskNames.begin());
}

/// The m canaries (training_audit::makeOneRunCanaries): large-norm from split B's mean image norm,
/// flipped-label from the study's validation images (never in split B), gradient-aligned from the
/// public images. Made before the coins and the training, from nothing the training sees.
Result<OneRunData> oneRunData(const pipeline::ImageStudy& study, const project::ProjectSpec& spec,
                              const OneRunAuditStageOptions& o) {
    OneRunData out;
    auto task = taskIndex(study, o.task);
    if (!task) return task.error();
    out.task = *task;
    auto split = pipeline::splitForRun(study, spec.privacy.rho, o.seed);
    if (!split) return split.error();
    out.splitB = std::move(split->b);
    if (finetuneOf(spec, o).batch > static_cast<long long>(out.splitB.size()))
        return Error{"stages.finetune.batch = " + std::to_string(finetuneOf(spec, o).batch) + " exceeds split B's " +
                     std::to_string(out.splitB.size()) + " images (seed " + std::to_string(o.seed) + ")"};
    if (o.whiteBox) return out;  // its canaries are gradients, made with the model
    const auto& images = study.sensitiveImages;
    const auto& held = study.sensitiveSplit.validation;
    if (o.canary == TrainingCanaryKind::FlippedLabel && static_cast<long long>(held.size()) < o.canaries)
        return Error{"canaries = " + std::to_string(o.canaries) + " flipped-label canaries need as many validation " +
                         "images; the study has " + std::to_string(held.size()),
                     "canaries"};
    const auto bPixels = pipeline::gatherImages(images, out.splitB);
    const auto heldPixels = pipeline::gatherImages(images, held);
    std::vector<int> heldLabels;
    for (auto i : held) heldLabels.push_back(study.sensitiveLabel(i, out.task) > 0.5f ? 1 : 0);
    const auto view = [&](const std::vector<float>& p, std::size_t n) {
        return train::ImageView{p, static_cast<std::int64_t>(n), images.channels, images.height, images.width};
    };
    const auto& pub = study.publicImages;
    training_audit::OneRunAuditData data;
    data.images = view(bPixels, out.splitB.size());
    data.heldOut = view(heldPixels, held.size());
    data.heldOutLabels = heldLabels;
    data.publicImages = {pub.pixels, static_cast<std::int64_t>(pub.size()), pub.channels, pub.height, pub.width};
    training_audit::OneRunAuditOptions co;
    co.canary = o.canary;
    co.canaries = o.canaries;
    co.normMultiple = o.normMultiple;
    co.seed = o.seed;
    auto canaries = training_audit::makeOneRunCanaries(data, co);
    if (!canaries) return canaries.error();
    out.canaries = std::move(canaries).value();
    return out;
}

/// The study's fine-tuning settings for the audited mechanism (the spec's, --steps aside).
pipeline::DownstreamRequest fineTuningRequest(const project::ProjectSpec& spec, const OneRunAuditStageOptions& o,
                                              std::size_t task, double epsilon,
                                              const privacy::RandomnessSource& randomness) {
    pipeline::DownstreamRequest r;
    r.task = task;
    r.epsilon = epsilon;
    r.delta = spec.privacy.delta;
    r.seed = o.seed;
    r.device = o.device;
    r.accountant = o.accountant.value_or(spec.privacy.accountant);
    r.finetune = finetuneOf(spec, o);
    if (o.steps) r.finetune.steps = *o.steps;
    r.finetune.mechanism = o.mechanism == AuditedMechanism::Dirichlet ? methods::FinetuneMechanism::Dirichlet
                                                                      : methods::FinetuneMechanism::DpSgd;
    r.finetuneRandomness = randomness.child("training");
    return r;
}

}  // namespace

std::string oneRunAuditName(const OneRunAuditStageOptions& o) {
    if (o.whiteBox)
        return std::string("finetune-one-run-white-box-") + training_audit::toString(o.mechanism) + "-dirac-gradient";
    return std::string("finetune-one-run-") + training_audit::toString(o.mechanism) + "-" +
           training_audit::toString(o.canary);
}

std::string oneRunCanaryName(const OneRunAuditStageReport& r) {
    return r.whiteBox ? std::string("dirac-gradient") : std::string(training_audit::toString(r.canary));
}

Status checkOneRunAuditValues(const OneRunAuditStageOptions& o) {
    using privacy::formatNumber;
    if (auto e = train::checkDevice(o.device)) return e;
    if (o.canaries < 2 || o.canaries > 100000)
        return Error{"canaries = " + std::to_string(o.canaries) + " is out of range: expected 2 to 100000", "canaries"};
    const long long k = guessesEachWay(o);
    if (o.guesses < 0 || k < 1 || 2 * k > o.canaries)
        return Error{"guesses = " + std::to_string(o.guesses > 0 ? o.guesses : k) + " of " +
                         std::to_string(o.canaries) +
                         " canaries is out of range: expected 1 to canaries / 2 guesses each way",
                     "guesses"};
    if (o.epsilon && !(*o.epsilon > 0.0 && std::isfinite(*o.epsilon)))
        return Error{"epsilon = " + formatNumber(*o.epsilon) + " is out of range: expected a finite number > 0",
                     "epsilon"};
    if (o.epsilon && o.mechanism == AuditedMechanism::Sgd)
        return Error{"epsilon: non-private SGD claims no epsilon (it is the control that must find leakage)",
                     "epsilon"};
    if (o.whiteBox && o.mechanism == AuditedMechanism::Dirichlet)
        return Error{
            "white-box: gradient canaries audit DP-SGD (dp-sgd, or sgd for the control); the Dirichlet "
            "mechanism clips no gradient and releases no noisy sum",
            "white-box"};
    if (o.steps && (*o.steps < 1 || *o.steps > 1000000))
        return Error{"steps = " + std::to_string(*o.steps) + " is out of range: expected 1 to 1000000", "steps"};
    if (!(o.normMultiple > 0.0 && o.normMultiple <= 1e6))
        return Error{"norm-multiple = " + formatNumber(o.normMultiple) + " is out of range: expected (0, 1e6]",
                     "norm-multiple"};
    if (!(o.confidence > 0.0 && o.confidence < 1.0))
        return Error{"confidence = " + formatNumber(o.confidence) + " is out of range: expected (0, 1)", "confidence"};
    return std::nullopt;
}

Status checkOneRunAuditStageOptions(const project::ProjectFile& project, const OneRunAuditStageOptions& o) {
    if (auto e = checkOneRunAuditValues(o)) return e;
    auto sources = project.sources();
    if (!sources) return sources.error();
    for (const auto& s : *sources)
        if (s.role == project::SourceRole::Sensitive && s.facts.kind != data::SourceKind::Images)
            return Error{"one-run: one-run audits fine-tune the study's image model; this study's sensitive data is " +
                             data::nameOf(s.facts.kind),
                         "one-run"};
    const auto& spec = project.spec();
    if (spec.sensitive.userLevel)
        return Error{
            "one-run: the study protects users (sensitive.user_level), and a canary is one example: a "
            "one-run audit of user-level fine-tuning would need canary users",
            "one-run"};
    if (spec.finetune.adamix())
        return Error{
            "one-run: the study fine-tunes with adamix-r (a head on frozen features); a one-run audit "
            "runs the spec's dp-sgd or dirichlet fine-tuning settings",
            "mechanism"};
    return checkAuditedTask(project, o.task);
}

}  // namespace dpmix::audit_runs

namespace dpmix::audit_runs {
namespace {

double secondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// The report's settings, known before the training.
OneRunAuditStageReport plannedReport(const project::ProjectSpec& spec, const OneRunAuditStageOptions& o, double epsilon,
                                     const OneRunData& data) {
    OneRunAuditStageReport r;
    r.task = o.task;
    r.name = oneRunAuditName(o);
    r.mechanism = o.mechanism;
    r.canary = o.canary;
    r.claimedEpsilon = o.mechanism == AuditedMechanism::Sgd ? std::numeric_limits<double>::infinity() : epsilon;
    r.delta = spec.privacy.delta;
    r.confidence = o.confidence;
    r.canaries = o.canaries;
    r.guessesIn = r.guessesOut = guessesEachWay(o);
    r.splitB = static_cast<long long>(data.splitB.size());
    const project::FinetuneStage& stage = finetuneOf(spec, o);
    r.steps = o.steps.value_or(stage.steps);
    r.batch = stage.batch;
    r.clip = stage.clip;
    r.learningRate = stage.lr;
    r.seed = o.seed;
    r.whiteBox = o.whiteBox;
    return r;
}

/// The score: each canary's margin gain less the median gain of the canaries with its label. Why:
/// the fine-tuning moves every canary of one label alike (on Fashion-MNIST's CNN, large-norm
/// canaries labelled 0 gained +5.8 ± 0.5 in 100 steps, those labelled 1 −5.8), so ranking raw
/// gains would guess by label, which says nothing of the coins. The labels are public and the
/// medians a function of the trained model: the score stays a post-processing of the output.
std::vector<double> labelCentred(std::vector<double> gain, const std::vector<int>& labels) {
    for (int y : {0, 1}) {
        std::vector<double> group;
        for (std::size_t i = 0; i < gain.size(); ++i)
            if (labels[i] == y) group.push_back(gain[i]);
        if (group.empty()) continue;
        const auto mid = group.begin() + static_cast<std::ptrdiff_t>(group.size() / 2);
        std::nth_element(group.begin(), mid, group.end());
        for (std::size_t i = 0; i < gain.size(); ++i)
            if (labels[i] == y) gain[i] -= *mid;
    }
    return gain;
}

/// Scores → guesses → correct guesses → ε_LB, into the report.
Status judge(OneRunAuditStageReport& r, const std::vector<double>& scores, const std::vector<std::uint8_t>& included,
             privacy::AuditCounts& counts) {
    const auto guesses = privacy::guessMembership(scores, r.guessesIn, r.guessesOut);
    r.guesses = guesses.made();
    r.correct = privacy::countCorrectGuesses(guesses, included);
    counts = oneRunConfusion(guesses, included);
    auto bound = privacy::oneRunEpsilonLowerBound({r.canaries, r.guesses, r.correct}, r.delta, r.confidence);
    if (!bound) return bound.error();
    r.epsilonLB = *bound;
    return std::nullopt;
}

std::string auditLine(const OneRunAuditStageReport& r) {
    return std::string(r.whiteBox ? "white-box " : "") + "one-run audit of " +
           std::string(training_audit::toString(r.mechanism)) +
           (std::isfinite(r.claimedEpsilon) ? " at claimed epsilon " + privacy::formatNumber(r.claimedEpsilon)
                                            : std::string(" (non-private control, sigma 0)")) +
           " on task '" + r.task + "': " + std::to_string(r.canaries) + " " + oneRunCanaryName(r) +
           " canaries, split B of " + std::to_string(r.splitB) + " images, " + std::to_string(r.steps) +
           " steps of batch " + std::to_string(r.batch) + ", guessing " + std::to_string(r.guessesIn) + " in and " +
           std::to_string(r.guessesOut) + " out";
}

/// The one training and each canary's score: black-box, the label-centred margin gain of the
/// canary images; white-box, the gradient canaries' score (one_run_white_box.h).
Result<ScoredTraining> trainAndScore(pipeline::ImageStudy& study, OneRunData data, const OneRunAuditStageOptions& o,
                                     const std::vector<std::uint8_t>& included, pipeline::DownstreamRequest request,
                                     const ProgressCallback& progress, const CancellationToken& cancel) {
    const bool noiseless = o.mechanism == AuditedMechanism::Sgd;
    if (o.whiteBox) {
        // The canaries' coordinates: public, from the seed, independent of the coins' stream.
        const std::uint64_t coordinateSeed = o.seed ^ 0x9e3779b97f4a7c15ULL;
        WhiteBoxInput in{std::move(data.splitB), included, coordinateSeed, std::move(request), noiseless};
        return finetuneWithGradientCanaries(study, std::move(in), progress, cancel);
    }
    std::vector<int> labels;
    for (const auto& c : data.canaries) labels.push_back(c.label);
    OneRunFinetuneInput in{std::move(data.splitB), std::move(data.canaries), included, std::move(request), noiseless};
    auto ft = finetuneWithCanaries(study, std::move(in), progress, cancel);
    if (!ft) return ft.error();
    ScoredTraining out;
    out.score = labelCentred(ft->marginGain, labels);
    out.run = std::move(ft).value();
    return out;
}

}  // namespace

Result<OneRunAuditStageReport> runOneRunAuditStage(project::ProjectFile& project,
                                                   const OneRunAuditStageOptions& options,
                                                   const ProgressCallback& progress, const CancellationToken& cancel,
                                                   const pipeline::LogSink& log) {
    if (auto e = checkOneRunAuditStageOptions(project, options)) return *e;
    const auto start = std::chrono::steady_clock::now();
    const auto& spec = project.spec();
    const double epsilon =
        options.epsilon.value_or(spec.privacy.epsilons.empty() ? 1.0 : spec.privacy.epsilons.front());
    auto sources = project.sources();
    if (!sources) return sources.error();
    if (log) log("loading the study's images");
    auto loaded = pipeline::loadImageStudy(*sources, spec, project::studySeedOf(spec));
    if (!loaded) return loaded.error();
    pipeline::ImageStudy study = std::move(loaded).value();  // the audit's own copy: canaries join it
    auto data = oneRunData(study, spec, options);
    if (!data) return data.error();
    OneRunAuditStageReport report = plannedReport(spec, options, epsilon, *data);
    // The coins: fair, independent, drawn before the training and never shown to the guesses.
    const auto source = options.randomness == privacy::RandomnessMode::Seeded
                            ? privacy::RandomnessSource::seeded(options.seed, "one-run-audit")
                            : privacy::RandomnessSource::secret();
    privacy::MechanismRng coins(source, "inclusion");
    const auto included = privacy::drawInclusion(options.canaries, coins);
    report.included = std::count(included.begin(), included.end(), std::uint8_t{1});
    if (log) log(auditLine(report));
    const std::optional<double> runEpsilon =
        options.mechanism == AuditedMechanism::Sgd ? std::nullopt : std::optional<double>(epsilon);
    auto work = [&](long long id) -> Status {
        report.runId = id;
        dpmix::report(progress, {"one-run audit", 0, 1, "fine-tuning once with the canaries"});
        auto request = fineTuningRequest(spec, options, data->task, epsilon, source);
        auto trained = trainAndScore(study, std::move(*data), options, included, std::move(request), progress, cancel);
        if (!trained) return trained.error();
        const OneRunFinetuneOutcome& ft = trained->run;
        report.trainingSize = ft.trainingSize;
        report.steps = ft.steps;
        report.q = ft.q;
        report.noise = ft.noise;
        report.testAuc = ft.testAuc;
        report.trainSeconds = ft.trainSeconds;
        privacy::AuditCounts counts;
        if (auto e = judge(report, trained->score, included, counts)) return e;
        report.wallSeconds = secondsSince(start);
        dpmix::report(progress, {"one-run audit", 1, 1, "epsilon_LB " + privacy::formatNumber(report.epsilonLB)});
        return storeOneRunAudit(project, report, counts, options.device);
    };
    auto runId = pipeline::runAuditRun(
        project,
        {"audit", options.task, runEpsilon, static_cast<long long>(options.seed), oneRunConfigJson(options, report)},
        work);
    if (!runId) return runId.error();
    return report;
}

}  // namespace dpmix::audit_runs
