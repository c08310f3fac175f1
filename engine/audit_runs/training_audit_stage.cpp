#include "engine/audit_runs/training_audit_stage.h"

#include "engine/audit/parallel_runs.h"
#include "engine/audit_runs/audit_stage.h"
#include "engine/core/seed_derivation.h"
#include "engine/pipeline/audit_records.h"
#include "engine/pipeline/image_study.h"
#include "engine/privacy/ledger.h"
#include "engine/privacy/ledger_json.h"
#include "engine/privacy/parameters.h"
#include "engine/project/study_seed.h"
#include "engine/train/model.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace dpmix::audit_runs {
namespace {

using training_audit::AuditedMechanism;
using training_audit::TrainingCanaryKind;

// Stream id of the flipped-label canary's choice among the validation images.
constexpr std::uint64_t kHeldOutCanaryStream = 0x686f6c646f7574ULL;  // "holdout"

const char* const kAuditKind = "training";

constexpr long long kDefaultExamples = 1000;

std::string quotedNames(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& s : items) out += (out.empty() ? "'" : ", '") + s + "'";
    return out;
}

struct AuditedData {
    std::vector<float> pixels;
    std::vector<int> labels;
    training_audit::TrainingCanary canary;
    int channels = 1, height = 0, width = 0;
    long long count = 0;
    train::ImageView view() const { return {pixels, count, channels, height, width}; }
};

train::ImageView wholeView(const data::ImageDataset& d) {
    return {d.pixels, static_cast<std::int64_t>(d.size()), d.channels, d.height, d.width};
}

Result<AuditedData> auditedData(const pipeline::ImageStudy& study, const project::ProjectSpec& spec,
                                const TrainingAuditStageOptions& o) {
    const auto taskIt = std::find(study.taskNames.begin(), study.taskNames.end(), o.task);
    if (taskIt == study.taskNames.end())
        return Error{"task: unknown task '" + o.task + "': expected one of " + quotedNames(study.taskNames), "task"};
    const auto task = static_cast<std::size_t>(taskIt - study.taskNames.begin());
    auto split = pipeline::splitForRun(study, spec.privacy.rho, o.seed);
    if (!split) return split.error();
    const auto splitB = static_cast<long long>(split->b.size());
    const long long examples = o.examples > 0 ? o.examples : std::min(kDefaultExamples, splitB);
    if (splitB < examples || examples < 2)
        return Error{"examples = " + std::to_string(examples) + " is more than split B's " + std::to_string(splitB) +
                         " images (seed " + std::to_string(o.seed) + ")",
                     "examples"};
    const auto& images = study.sensitiveImages;
    const std::size_t d = images.imageSize();
    AuditedData out;
    out.channels = images.channels;
    out.height = images.height;
    out.width = images.width;
    out.count = examples;
    for (long long i = 0; i < examples; ++i) {
        const std::size_t index = split->b[static_cast<std::size_t>(i)];
        out.pixels.insert(out.pixels.end(), images.pixels.begin() + static_cast<std::ptrdiff_t>(index * d),
                          images.pixels.begin() + static_cast<std::ptrdiff_t>((index + 1) * d));
        out.labels.push_back(study.sensitiveLabel(index, task) > 0.5f ? 1 : 0);
    }
    // Crafted canaries carry D's minority label: the one its neighbours pull away from.
    const long long ones = std::count(out.labels.begin(), out.labels.end(), 1);
    const int minority = 2 * ones <= examples ? 1 : 0;
    switch (o.canary) {
        case TrainingCanaryKind::FlippedLabel: {
            const auto& held = study.sensitiveSplit.validation;
            if (held.empty())
                return Error{"the study has no validation images to draw a held-out canary from", "canary"};
            const std::size_t index = held[seeds::derive(o.seed, kHeldOutCanaryStream, 0) % held.size()];
            const std::span<const float> image(images.pixels.data() + index * d, d);
            out.canary = training_audit::flippedLabelCanary(image, study.sensitiveLabel(index, task) > 0.5f ? 1 : 0);
            break;
        }
        case TrainingCanaryKind::LargeNorm: {
            auto c = training_audit::largeNormCanary(out.view(), o.normMultiple, minority);
            if (!c) return c.error();
            out.canary = std::move(c).value();
            break;
        }
        case TrainingCanaryKind::GradientAligned: {
            if (study.publicImages.imageSize() != d)
                return Error{"canary gradient-aligned: the public images are " +
                                 std::to_string(study.publicImages.imageSize()) +
                                 " values each, the sensitive images " + std::to_string(d),
                             "canary"};
            auto c = training_audit::gradientAlignedCanary(wholeView(study.publicImages), minority);
            if (!c) return c.error();
            out.canary = std::move(c).value();
            break;
        }
    }
    return out;
}

std::string configJson(const TrainingAuditStageOptions& o, const std::string& name, double epsilon,
                       privacy::Accountant accountant) {
    nlohmann::json j;
    j["stage"] = "audit";
    j["audit"] = kAuditKind;
    j["name"] = name;
    j["mechanism"] = training_audit::toString(o.mechanism);
    j["canary"] = training_audit::toString(o.canary);
    if (o.mechanism != AuditedMechanism::Sgd) j["claimed_epsilon"] = epsilon;
    if (o.mechanism == AuditedMechanism::DpSgd) j["accountant"] = privacy::toString(accountant);
    j["runs_per_world"] = o.runs;
    j["examples"] = o.examples;
    j["steps"] = o.steps;
    j["batch"] = o.batch;
    j["seed"] = o.seed;
    j["device"] = o.device;
    if (o.learningRate) j["lr"] = *o.learningRate;
    if (o.canary == TrainingCanaryKind::LargeNorm) j["norm_multiple"] = o.normMultiple;
    return j.dump();
}

project::AuditRecord auditRecord(const TrainingAuditStageReport& report, const TrainingAuditStageOptions& o) {
    const auto& r = report.result;
    nlohmann::json details;
    details["audit"] = kAuditKind;
    details["mechanism"] = training_audit::toString(r.mechanism);
    details["canary"] = training_audit::toString(r.canary);
    details["canary_description"] = report.canaryDescription;
    details["neighbouring"] = "add/remove one labelled image (x, y)";
    details["model"] = "logistic regression (one logit) on the raw pixels, one fixed initialisation";
    if (std::isfinite(r.claimedEpsilon)) details["claimed_epsilon"] = r.claimedEpsilon;
    details["task"] = report.task;
    details["runs_per_world"] = r.runsPerWorld;
    details["examples"] = r.examples;
    details["steps"] = r.steps;
    details["q"] = r.q;
    details[r.mechanism == AuditedMechanism::Dirichlet ? "r" : "sigma"] = r.noise;
    if (r.mechanism == AuditedMechanism::DpSgd) details["clip"] = 1.0;
    details["lr"] = r.learningRate;
    details["seed"] = r.seed;
    details["threshold"] = r.threshold;
    details["direction"] = audit::toString(r.direction);
    details["select_epsilon_lb"] = r.selectEpsilonLB;
    details["score"] = "the released model's loss on the canary";
    details["score_mean_in"] = r.scoreMeanIn;
    details["score_std_in"] = r.scoreStdIn;
    details["score_mean_out"] = r.scoreMeanOut;
    details["score_std_out"] = r.scoreStdOut;
    if (o.canary == TrainingCanaryKind::FlippedLabel) details["canary_from"] = "validation split";
    return pipeline::auditRecordOf(report.runId, report.name, r, details.dump());
}

Status storeResults(project::ProjectFile& project, const TrainingAuditStageReport& report,
                    const TrainingAuditStageOptions& o) {
    privacy::Ledger ledger(project.spec().privacy.composition);
    ledger.record(privacy::nonPrivateEntry(
        "audit", "B",
        "audit trainings of the " + std::string(training_audit::toString(o.mechanism)) + " mechanism on " +
            std::to_string(o.examples) + " images of split B" +
            (o.canary == TrainingCanaryKind::FlippedLabel ? " plus one held-out validation image" : "") +
            "; results are empirical bounds, not releases"));
    if (auto s = project.recordLedger(report.runId, ledger); !s) return s.error();
    if (auto s = project.addAudit(auditRecord(report, o)); !s) return s.error();
    const auto& r = report.result;
    if (auto s = project.addMetrics({{report.runId, "epsilon-lower-bound", "", r.epsilonLB},
                                     {report.runId, "fpr", "", r.fpr},
                                     {report.runId, "fnr", "", r.fnr},
                                     {report.runId, "threshold", "", r.threshold}});
        !s)
        return s.error();
    return std::nullopt;
}

}  // namespace

std::string trainingAuditName(const TrainingAuditStageOptions& o) {
    return std::string("finetune-") + training_audit::toString(o.mechanism) + "-" + training_audit::toString(o.canary);
}

Status checkTrainingAuditValues(const TrainingAuditStageOptions& o) {
    if (auto e = train::checkDevice(o.device)) return e;
    if (o.runs < 2)
        return Error{"runs = " + std::to_string(o.runs) + " is out of range: expected an integer >= 2 (runs per world)",
                     "runs"};
    if (o.epsilon && !(*o.epsilon > 0.0 && std::isfinite(*o.epsilon)))
        return Error{
            "epsilon = " + privacy::formatNumber(*o.epsilon) + " is out of range: expected a finite number > 0",
            "epsilon"};
    if (o.examples != 0 && (o.examples < 2 || o.examples > 100000))
        return Error{"examples = " + std::to_string(o.examples) + " is out of range: expected 2 to 100000 images",
                     "examples"};
    if (o.steps < 1 || o.steps > 100000)
        return Error{"steps = " + std::to_string(o.steps) + " is out of range: expected 1 to 100000", "steps"};
    if (o.batch < 0 || (o.batch > 0 && o.examples > 0 && o.batch > o.examples))
        return Error{"batch = " + std::to_string(o.batch) + " is out of range: expected 1 to examples (" +
                         std::to_string(o.examples) + ")",
                     "batch"};
    if (o.learningRate && !(*o.learningRate > 0.0 && *o.learningRate <= 100.0))
        return Error{"lr = " + privacy::formatNumber(*o.learningRate) + " is out of range: expected (0, 100]", "lr"};
    if (!(o.normMultiple > 0.0 && o.normMultiple <= 1e6))
        return Error{"norm-multiple = " + privacy::formatNumber(o.normMultiple) + " is out of range: expected (0, 1e6]",
                     "norm-multiple"};
    if (o.threads < 0)
        return Error{"threads = " + std::to_string(o.threads) + " is out of range: expected >= 0", "threads"};
    return std::nullopt;
}

Status checkTrainingAuditStageOptions(const project::ProjectFile& project, const TrainingAuditStageOptions& o) {
    if (auto e = checkTrainingAuditValues(o)) return e;
    auto sources = project.sources();
    if (!sources) return sources.error();
    for (const auto& s : *sources)
        if (s.role == project::SourceRole::Sensitive && s.facts.kind != data::SourceKind::Images)
            return Error{"mechanism " + std::string(training_audit::toString(o.mechanism)) +
                             ": training audits run on image studies; this study's sensitive data is " +
                             data::nameOf(s.facts.kind),
                         "mechanism"};
    return checkAuditedTask(project, o.task);
}

Result<TrainingAuditStageReport> runTrainingAuditStage(project::ProjectFile& project,
                                                       const TrainingAuditStageOptions& requested,
                                                       const ProgressCallback& progress,
                                                       const CancellationToken& cancel, const pipeline::LogSink& log) {
    if (auto e = checkTrainingAuditStageOptions(project, requested)) return *e;
    const auto& spec = project.spec();
    const double epsilon =
        requested.epsilon.value_or(spec.privacy.epsilons.empty() ? 1.0 : spec.privacy.epsilons.front());
    const privacy::Accountant accountant = requested.accountant.value_or(spec.privacy.accountant);
    auto sources = project.sources();
    if (!sources) return sources.error();
    if (log) log("loading the study's images");
    const std::uint64_t studySeed = project::studySeedOf(spec);
    auto study = pipeline::loadImageStudy(*sources, spec, studySeed);
    if (!study) return study.error();
    auto data = auditedData(*study, spec, requested);
    if (!data) return data.error();
    // What "0 = automatic" became on this study: every record below states the resolved values.
    TrainingAuditStageOptions options = requested;
    options.examples = data->count;
    if (options.batch == 0) options.batch = static_cast<int>(std::max<long long>(1, data->count / 10));
    if (options.batch > options.examples)
        return Error{"batch = " + std::to_string(options.batch) + " is larger than the " +
                         std::to_string(options.examples) + " audited images",
                     "batch"};

    TrainingAuditStageReport report;
    report.task = options.task;
    report.name = trainingAuditName(options);
    report.canaryDescription = data->canary.description;
    training_audit::TrainingAuditOptions ao;
    ao.mechanism = options.mechanism;
    ao.epsilon = epsilon;
    ao.delta = spec.privacy.delta;
    ao.accountant = accountant;
    ao.runsPerWorld = options.runs;
    ao.seed = options.seed;
    ao.threads = options.threads;
    ao.device = options.device;
    ao.steps = options.steps;
    ao.expectedBatchSize = options.batch;
    ao.learningRate = options.learningRate;
    if (log)
        log("auditing " + std::string(training_audit::toString(options.mechanism)) +
            (options.mechanism == AuditedMechanism::Sgd ? std::string(" (non-private control)")
                                                        : " at claimed epsilon " + privacy::formatNumber(epsilon)) +
            " on task '" + options.task + "' with the " + training_audit::toString(options.canary) + " canary (" +
            data->canary.description + "): " + std::to_string(options.runs) + " trainings per world on " +
            std::to_string(options.examples) + " images of split B, " + std::to_string(options.steps) + " steps each");

    const std::optional<double> runEpsilon =
        options.mechanism == AuditedMechanism::Sgd ? std::nullopt : std::optional<double>(epsilon);
    auto runId = pipeline::runAuditRun(project,
                                       {"audit", options.task, runEpsilon, static_cast<long long>(options.seed),
                                        configJson(options, report.name, epsilon, accountant)},
                                       [&](long long id) -> Status {
                                           report.runId = id;
                                           auto result = training_audit::runTrainingAudit(
                                               {data->view(), data->labels, data->canary}, ao, progress, cancel);
                                           if (!result) return result.error();
                                           report.result = std::move(result).value();
                                           return storeResults(project, report, options);
                                       });
    if (!runId) return runId.error();
    return report;
}

std::vector<audit::StoredMechanismAudit> mechanismAuditsOf(const std::vector<project::AuditRecord>& records) {
    std::vector<audit::StoredMechanismAudit> out;
    for (const auto& a : records)
        if (auto m = audit::mechanismAuditFrom(a.runId, a.name, a.detailsJson, a.counts, a.delta, a.confidence))
            out.push_back(std::move(*m));
    return out;
}

Result<std::vector<audit::StoredMechanismAudit>> storedMechanismAudits(const project::ProjectFile& project) {
    std::vector<audit::StoredMechanismAudit> out;
    auto runs = project.runs();
    if (!runs) return runs.error();
    for (const auto& run : *runs) {
        if (run.method != "audit") continue;
        auto records = project.audits(run.id);
        if (!records) return records.error();
        for (auto& a : mechanismAuditsOf(*records)) out.push_back(std::move(a));
    }
    return out;
}

Result<std::vector<std::string>> projectClaimVerdicts(const project::ProjectFile& project) {
    auto audits = storedMechanismAudits(project);
    if (!audits) return audits.error();
    auto runs = project.runs();
    if (!runs) return runs.error();
    std::vector<privacy::LedgerEntry> entries;
    for (const auto& run : *runs) {
        if (run.method == "audit") continue;
        auto ledgers = project.ledgers(run.id);
        if (!ledgers) return ledgers.error();
        for (const auto& record : *ledgers)
            if (auto ledger = privacy::ledgerFromJson(record.ledgerJson))
                for (const auto& e : ledger->entries()) entries.push_back(e);
    }
    return audit::claimVerdictLines(entries, *audits);
}

}  // namespace dpmix::audit_runs
