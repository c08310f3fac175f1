#include "engine/audit_runs/audit_stage.h"

#include "engine/audit_runs/audit_stage_parts.h"
#include "engine/core/seed_derivation.h"

#include "engine/pipeline/mixture_stage.h"

#include "engine/audit/parallel_runs.h"
#include "engine/audit/threshold_attack.h"
#include "engine/core/mean_std.h"
#include "engine/data/sha256.h"
#include "engine/mixmin/objective.h"
#include "engine/mixmin/params.h"
#include "engine/pipeline/audit_records.h"
#include "engine/privacy/ledger.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>

namespace dpmix::audit_runs {
namespace {

// Stream id of the natural canary's choice (distinct from the audit's own run streams).
constexpr std::uint64_t kNaturalCanaryStream = 0x6e61747572616cULL;  // "natural"

std::vector<std::string> knownTasks(const project::ProjectFile& project) {
    std::vector<std::string> names;
    for (const auto& t : project.spec().sensitiveTasks) names.push_back(t.name);
    if (!names.empty()) return names;
    if (auto sources = project.sources())
        for (const auto& s : *sources)
            if (s.role == project::SourceRole::Sensitive) names = s.facts.labelNames;
    return names;
}

std::string joined(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& s : items) out += (out.empty() ? "'" : ", '") + s + "'";
    return out;
}

}  // namespace

std::string auditName(const AuditStageOptions& o) {
    std::string name = o.canary == audit::CanaryKind::Natural ? "natural" : "max-clip";
    if (o.canary == audit::CanaryKind::MaxClip && o.maxClipTarget == audit::MaxClipTarget::QuietestSource)
        name += "-quietest";
    if (o.canary == audit::CanaryKind::MaxClip && o.maxClipSign == audit::MaxClipSign::RaiseTopSource) name += "-raise";
    return name + (o.noNoise ? "-no-noise" : "");
}

std::size_t naturalCanaryExample(const pipeline::RhoSplit& split, std::uint64_t seed) {
    return split.b[seeds::derive(seed, kNaturalCanaryStream, 0) % split.b.size()];
}

Status checkAuditedTask(const project::ProjectFile& project, const std::string& task) {
    const auto tasks = knownTasks(project);
    if (task.empty()) return Error{"task: give the sensitive task to audit, one of " + joined(tasks), "task"};
    if (std::find(tasks.begin(), tasks.end(), task) == tasks.end())
        return Error{"task: unknown task '" + task + "': expected one of " + joined(tasks), "task"};
    return std::nullopt;
}

Status checkAuditStageOptions(const project::ProjectFile& project, const AuditStageOptions& o) {
    if (auto e = checkAuditedTask(project, o.task)) return e;
    if (o.runs < 2)
        return Error{"runs = " + std::to_string(o.runs) +
                         " is out of range: expected an integer >= 2 (runs per world, half select and half evaluate)",
                     "runs"};
    if (o.epsilon && (!(*o.epsilon > 0.0) || !std::isfinite(*o.epsilon)))
        return Error{"epsilon = " + std::to_string(*o.epsilon) + " is out of range: expected a finite number > 0",
                     "epsilon"};
    if (o.threads < 0)
        return Error{"threads = " + std::to_string(o.threads) + " is out of range: expected >= 1", "threads"};
    if (o.canaryExamples < 1 || o.canaryExamples > 1000)
        return Error{"canary-examples = " + std::to_string(o.canaryExamples) +
                         " is out of range: expected the canary user's number of images, 1 to 1000",
                     "canary-examples"};
    if (o.canaryExamples > 1 && o.canary == audit::CanaryKind::Natural)
        return Error{
            "canary-examples: the natural canary is one held-out image; use the max-clip canary for a canary "
            "user with several images",
            "canary-examples"};
    if (o.canary == audit::CanaryKind::Natural && project.spec().sensitive.userLevel)
        return Error{
            "canary natural: at user level the canary must be a user; the natural canary is one held-out image. "
            "Use the max-clip canary (with canary-examples for the user's images)",
            "canary"};
    return std::nullopt;
}

Result<AuditInputs> auditInputs(const project::ProjectSpec& spec, const pipeline::PreparedStudy& prepared,
                                const AuditStageOptions& options) {
    const pipeline::ImageStudy& study = prepared.study;
    const auto taskIt = std::find(study.taskNames.begin(), study.taskNames.end(), options.task);
    if (taskIt == study.taskNames.end())
        return Error{"task: unknown task '" + options.task + "': expected one of " + joined(study.taskNames), "task"};
    AuditInputs in;
    in.task = static_cast<std::size_t>(taskIt - study.taskNames.begin());
    auto split = pipeline::splitForRun(study, spec.privacy.rho, options.seed);
    if (!split) return split.error();
    if (split->b.empty())
        return Error{"split B is empty: a natural canary needs a held-out example (raise the data or lower rho)"};
    in.split = std::move(split).value();
    auto probabilities = prepared.proxy.predict(study.sensitiveImages, in.split.a);
    if (!probabilities) return probabilities.error();
    std::vector<int> labels;
    for (auto i : in.split.a) labels.push_back(study.sensitiveLabel(i, in.task) > 0.5f ? 1 : 0);
    auto splitA = mixmin::makeBinaryObjective(*probabilities, labels);
    if (!splitA) return Error{"task '" + options.task + "': " + splitA.error().message};
    in.n = splitA->examples();
    in.splitA = std::move(splitA).value();
    if (study.userLevel()) {
        std::vector<std::string> ids;
        for (auto i : in.split.a) ids.push_back(study.grouping.users[i]);
        auto groups = pipeline::userGroupsOf(ids, in.n);
        if (!groups) return Error{"task '" + options.task + "': " + groups.error().message};
        in.users = std::move(groups).value();
    }
    in.units = in.users ? in.users->users() : in.n;
    in.groupSize = spec.mixture.userGroupSize > 0 ? spec.mixture.userGroupSize : pipeline::kDefaultUserGroupSize;
    return in;
}

// The natural canary: one held-out image of split B, scored by the proxies.
Status addNaturalCanary(const pipeline::PreparedStudy& prepared, const AuditInputs& in,
                        const AuditStageOptions& options, audit::CanaryAuditOptions& ao, AuditStageReport& report) {
    const pipeline::ImageStudy& study = prepared.study;
    const std::size_t example = naturalCanaryExample(in.split, options.seed);
    auto row = prepared.proxy.predict(study.sensitiveImages, {example});
    if (!row) return row.error();
    const int label = study.sensitiveLabel(example, in.task) > 0.5f ? 1 : 0;
    auto canary = audit::makeNaturalCanary(row->row(0).transpose(), label);
    if (!canary) return canary.error();
    ao.naturalExample = std::move(canary).value();
    report.canaryExample = static_cast<long long>(example);
    report.canaryLabel = label;
    return std::nullopt;
}

namespace {

// The mechanism exactly as the study runs it: q = B / n capped at 1, the spec's C, η, T (or the
// caller's override, e.g. the workbench's Advanced values).
Result<mixmin::DpMixMinParams> auditMechanism(const project::MixtureStage& mixture, const AuditInputs& in,
                                              const AuditStageOptions& options, double epsilon, double delta,
                                              privacy::Accountant accountant) {
    const double batch = std::min<double>(static_cast<double>(mixture.batch), static_cast<double>(in.units));
    mixmin::DpMixMinParamsBuilder builder;
    builder.epsilon(epsilon)
        .delta(delta)
        .expectedBatch(batch)
        .clipNorm(mixture.clip)
        .stepSize(mixture.lr)
        .steps(mixture.steps)
        .release(mixture.releaseAverage ? mixmin::ReleasedIterate::Average : mixmin::ReleasedIterate::Last)
        .split("A")
        .accountant(accountant)
        .noise(options.noNoise ? mixmin::NoiseMode::None : mixmin::NoiseMode::Gaussian);
    if (in.users) builder.maxExamplesPerUser(in.groupSize);
    auto params = builder.build(in.units, in.users ? privacy::PrivacyUnit::User : privacy::PrivacyUnit::Example);
    if (!params) return Error{"audit parameters: " + params.error().message};
    return params;
}

}  // namespace

std::string auditConfigJson(const project::ProjectSpec& spec, const project::MixtureStage& mixture,
                            const AuditInputs& in, const AuditStageOptions& options, const std::string& name,
                            double epsilon) {
    nlohmann::json config{{"stage", "audit"},
                          {"canary", name},
                          {"runs_per_world", options.runs},
                          {"no_noise", options.noNoise},
                          {"claimed_epsilon", epsilon},
                          {"delta", spec.privacy.delta},
                          {"rho", spec.privacy.rho},
                          {"clip", mixture.clip},
                          {"batch", mixture.batch},
                          {"lr", mixture.lr},
                          {"steps", mixture.steps},
                          {"privacy_unit", in.users ? "user" : "example"},
                          {"canary_examples", options.canaryExamples}};
    if (in.users) config["user_group_size"] = in.groupSize;
    return config.dump();
}

namespace {

std::string scoresHash(const std::vector<double>& out, const std::vector<double>& in) {
    data::Sha256 h;
    for (const auto* v : {&out, &in})
        for (double x : *v) {
            std::uint64_t bits = 0;
            std::memcpy(&bits, &x, sizeof bits);
            unsigned char bytes[8];
            for (int b = 0; b < 8; ++b) bytes[b] = static_cast<unsigned char>(bits >> (8 * b));
            h.update(bytes, sizeof bytes);
        }
    return h.hexDigest();
}

// The audit's record: the counts and bound, the details a reviewer needs to re-derive them,
// and its figures as metrics. No λ and nothing about the canary image itself.
project::AuditRecord auditRecord(const AuditStageReport& report, const std::vector<std::string>& componentNames,
                                 const AuditInputs& in, const AuditStageOptions& options, double epsilon,
                                 privacy::Accountant accountant) {
    const auto& r = report.result;
    nlohmann::json details{
        {"threshold", r.threshold},
        {"direction", audit::toString(r.direction)},
        {"sigma", r.sigma},
        {"claimed_epsilon", options.noNoise ? nlohmann::json("inf") : nlohmann::json(epsilon)},
        // The accountant that certified the claimed ε (and calibrated σ): ε_LB
        // is compared with what it certified.
        {"accountant", options.noNoise ? nlohmann::json(nullptr) : nlohmann::json(privacy::toString(accountant))},
        {"runs_per_world", r.runsPerWorld},
        {"select_epsilon_lb", r.selectEpsilonLB},
        {"fpr", r.fpr},
        {"fnr", r.fnr},
        {"fpr_upper", r.fprUpper},
        {"fnr_upper", r.fnrUpper},
        {"split_a", in.n},
        {"privacy_unit", in.users ? "user" : "example"},
        {"canary_examples", options.canaryExamples},
        {"mean_canary_samples", r.meanCanarySamples},
        {"score_in_mean", report.scoreMeanIn},
        {"score_in_std", report.scoreStdIn},
        {"score_out_mean", report.scoreMeanOut},
        {"score_out_std", report.scoreStdOut},
        // Every run's score, out world then in world, as IEEE-754 bits: two
        // audits with this hash scored every run identically (docs/CLUSTER.md).
        {"scores_sha256", scoresHash(r.scoresOut, r.scoresIn)}};
    if (options.canary == audit::CanaryKind::MaxClip) {
        details["top_source"] = r.topSource;
        details["top_source_name"] = componentNames[static_cast<std::size_t>(r.topSource)];
        details["max_clip_sign"] = audit::toString(r.maxClipSign);
        details["max_clip_target"] = audit::toString(r.maxClipTarget);
    } else {
        // Which real split-B image was the canary, and its label, stay out of the project: they
        // are facts about a sensitive record that no ledger covers (docs/PRIVACY.md).
        details["canary_from"] = "split B";
    }
    return pipeline::auditRecordOf(report.runId, report.name, r, details.dump());
}

}  // namespace

Status storeAuditResults(project::ProjectFile& project, const AuditStageReport& report,
                         const std::vector<std::string>& componentNames, const AuditInputs& in,
                         const AuditStageOptions& options, double epsilon, privacy::Accountant accountant) {
    const long long runId = report.runId;
    privacy::Ledger ledger(project.spec().privacy.composition);
    ledger.record(privacy::nonPrivateEntry(
        "audit", "A",
        "audit runs of the mixture mechanism on split A" +
            std::string(options.canary == audit::CanaryKind::Natural ? " plus one held-out example of split B" : "") +
            "; results are empirical bounds, not releases"));
    if (auto s = project.recordLedger(runId, ledger); !s) return s.error();
    if (auto s = project.addAudit(auditRecord(report, componentNames, in, options, epsilon, accountant)); !s)
        return s.error();
    const auto& r = report.result;
    if (auto s = project.addMetrics({{runId, "epsilon-lower-bound", "", r.epsilonLB},
                                     {runId, "fpr", "", r.fpr},
                                     {runId, "fnr", "", r.fnr},
                                     {runId, "threshold", "", r.threshold},
                                     {runId, "sigma", "", r.sigma}});
        !s)
        return s.error();
    return std::nullopt;
}

Result<AuditSetup> auditSetup(const project::ProjectSpec& spec, const AuditInputs& in,
                              const AuditStageOptions& options) {
    AuditSetup s;
    s.epsilon = options.epsilon.value_or(spec.privacy.epsilons.empty() ? 1.0 : spec.privacy.epsilons.front());
    s.ao.canary = options.canary;
    s.ao.runsPerWorld = options.runs;
    s.ao.seed = options.seed;
    s.ao.threads = options.threads;
    s.ao.maxClipSign = options.maxClipSign;
    s.ao.maxClipTarget = options.maxClipTarget;
    s.ao.keepScores = true;
    s.ao.canaryExamples = options.canaryExamples;
    s.ao.users = in.users;
    s.mixture = options.mixture.value_or(spec.mixture);
    s.accountant = options.accountant.value_or(spec.privacy.accountant);
    auto params = auditMechanism(s.mixture, in, options, s.epsilon, spec.privacy.delta, s.accountant);
    if (!params) return params.error();
    s.params = std::move(params).value();
    return s;
}

void putScoreSpread(AuditStageReport& report) {
    const auto inWorld = meanStd(report.result.scoresIn);
    const auto outWorld = meanStd(report.result.scoresOut);
    report.scoreMeanIn = inWorld.mean;
    report.scoreStdIn = inWorld.std;
    report.scoreMeanOut = outWorld.mean;
    report.scoreStdOut = outWorld.std;
}

Result<AuditStageReport> runAuditStage(project::ProjectFile& project, const AuditStageOptions& options,
                                       const ProgressCallback& progress, const CancellationToken& cancel,
                                       const pipeline::LogSink& log) {
    if (auto err = checkAuditStageOptions(project, options)) return *err;
    const auto& spec = project.spec();
    auto prepared = pipeline::prepareStudy(project, options.proxy, progress, cancel, log);
    if (!prepared) return prepared.error();
    auto in = auditInputs(spec, *prepared, options);
    if (!in) return in.error();
    auto setupResult = auditSetup(spec, *in, options);
    if (!setupResult) return setupResult.error();
    AuditSetup setup = std::move(setupResult).value();
    const double epsilon = setup.epsilon;

    AuditStageReport report;
    report.task = options.task;
    report.name = auditName(options);
    report.splitA = in->n;
    if (options.canary == audit::CanaryKind::Natural)
        if (auto e = addNaturalCanary(*prepared, *in, options, setup.ao, report)) return *e;

    if (log)
        log("auditing task '" + options.task + "' with the " + report.name + " canary" +
            (options.canaryExamples > 1 ? " (a canary user with " + std::to_string(options.canaryExamples) + " images)"
                                        : "") +
            ": " + std::to_string(options.runs) + " runs per world on split A (n = " + std::to_string(in->n) +
            (in->users ? " images of " + std::to_string(in->units) + " users, user-level DP-MixMin" : std::string()) +
            ", k = " + std::to_string(in->splitA->sources()) + ")");
    const std::optional<double> runEpsilon = options.noNoise ? std::nullopt : std::optional<double>(epsilon);
    auto runId = pipeline::runAuditRun(project,
                                       {"audit", options.task, runEpsilon, static_cast<long long>(options.seed),
                                        auditConfigJson(spec, setup.mixture, *in, options, report.name, epsilon)},
                                       [&](long long id) -> Status {
                                           report.runId = id;
                                           auto result = audit::runCanaryAudit(*in->splitA, *setup.params, setup.ao,
                                                                               progress, cancel);
                                           if (!result) return result.error();
                                           report.result = std::move(result).value();
                                           putScoreSpread(report);
                                           return storeAuditResults(project, report, prepared->study.componentNames,
                                                                    *in, options, epsilon, setup.accountant);
                                       });
    if (!runId) return runId.error();
    return report;
}

}  // namespace dpmix::audit_runs
