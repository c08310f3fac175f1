#include "engine/pipeline/audit_stage.h"

#include "engine/pipeline/mixture_stage.h"

#include "engine/audit/parallel_runs.h"
#include "engine/audit/summary_stats.h"
#include "engine/audit/threshold_attack.h"
#include "engine/mixmin/objective.h"
#include "engine/mixmin/params.h"
#include "engine/privacy/ledger.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace dpmix::pipeline {
namespace {

// Stream id of the natural canary's choice (distinct from the audit's own run streams).
constexpr std::uint64_t kNaturalCanaryStream = 0x6e61747572616cULL;  // "natural"

std::vector<std::string> knownTasks(const project::ProjectFile& project) {
    std::vector<std::string> names;
    for (const auto& t : project.spec().sensitiveTasks) names.push_back(t.name);
    if (!names.empty()) return names;
    if (auto sources = project.sources())
        for (const auto& s : *sources)
            if (s.role == "sensitive") names = s.facts.labelNames;
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
    if (o.canary == audit::CanaryKind::MaxClip && o.maxClipTarget == audit::MaxClipTarget::QuietestSource) name += "-quietest";
    if (o.canary == audit::CanaryKind::MaxClip && o.maxClipSign == audit::MaxClipSign::RaiseTopSource) name += "-raise";
    return name + (o.noNoise ? "-no-noise" : "");
}

std::size_t naturalCanaryExample(const RhoSplit& split, std::uint64_t seed) {
    return split.b[audit::deriveSeed(seed, kNaturalCanaryStream, 0) % split.b.size()];
}

std::optional<Error> checkAuditStageOptions(const project::ProjectFile& project, const AuditStageOptions& o) {
    const auto tasks = knownTasks(project);
    if (o.task.empty()) return Error{"--task: give the sensitive task to audit, one of " + joined(tasks)};
    if (std::find(tasks.begin(), tasks.end(), o.task) == tasks.end())
        return Error{"--task: unknown task '" + o.task + "': expected one of " + joined(tasks)};
    if (o.runs < 2)
        return Error{"--runs = " + std::to_string(o.runs) +
                     " is out of range: expected an integer >= 2 (runs per world, half select and half evaluate)"};
    if (o.epsilon && (!(*o.epsilon > 0.0) || !std::isfinite(*o.epsilon)))
        return Error{"--epsilon = " + std::to_string(*o.epsilon) + " is out of range: expected a finite number > 0"};
    if (o.threads < 0) return Error{"--threads = " + std::to_string(o.threads) + " is out of range: expected >= 1"};
    if (o.canaryExamples < 1 || o.canaryExamples > 1000)
        return Error{"--canary-examples = " + std::to_string(o.canaryExamples) +
                     " is out of range: expected the canary user's number of images, 1 to 1000"};
    if (o.canaryExamples > 1 && o.canary == audit::CanaryKind::Natural)
        return Error{"--canary-examples: the natural canary is one held-out image; use the max-clip canary for a canary "
                     "user with several images"};
    if (o.canary == audit::CanaryKind::Natural && project.spec().sensitive.userLevel)
        return Error{"--canary natural: at user level the canary must be a user; the natural canary is one held-out image. "
                     "Use the max-clip canary (with --canary-examples for the user's images)"};
    return std::nullopt;
}

Result<AuditStageReport> runAuditStage(project::ProjectFile& project, const AuditStageOptions& options,
                                       const ProgressCallback& progress, const CancellationToken& cancel,
                                       const LogSink& log) {
    if (auto err = checkAuditStageOptions(project, options)) return *err;
    auto say = [&](const std::string& line) { if (log) log(line); };
    const auto& spec = project.spec();
    const double epsilon = options.epsilon.value_or(spec.privacy.epsilons.empty() ? 1.0 : spec.privacy.epsilons.front());
    const double delta = spec.privacy.delta;

    auto prepared = prepareStudy(project, options.proxy, progress, cancel, log);
    if (!prepared) return prepared.error();
    const ImageStudy& study = prepared->study;
    const auto taskIt = std::find(study.taskNames.begin(), study.taskNames.end(), options.task);
    if (taskIt == study.taskNames.end()) return Error{"--task: unknown task '" + options.task + "': expected one of " + joined(study.taskNames)};
    const std::size_t task = static_cast<std::size_t>(taskIt - study.taskNames.begin());

    auto split = splitForRun(study, spec.privacy.rho, options.seed);
    if (!split) return split.error();
    if (split->b.empty()) return Error{"split B is empty: a natural canary needs a held-out example (raise the data or lower rho)"};
    auto probabilities = prepared->proxy.predict(study.sensitiveImages, split->a);
    if (!probabilities) return probabilities.error();
    std::vector<int> labels;
    for (auto i : split->a) labels.push_back(study.sensitiveLabel(i, task) > 0.5f ? 1 : 0);
    auto splitA = mixmin::makeBinaryObjective(*probabilities, labels);
    if (!splitA) return Error{"task '" + options.task + "': " + splitA.error().message};
    const long long n = splitA->examples();
    // User level: Algorithm 2 on split A's users, exactly as the study runs it.
    std::optional<mixmin::UserGroups> users;
    if (study.userLevel()) {
        std::vector<std::string> ids;
        for (auto i : split->a) ids.push_back(study.grouping.users[i]);
        auto groups = userGroupsOf(ids, n);
        if (!groups) return Error{"task '" + options.task + "': " + groups.error().message};
        users = std::move(groups).value();
    }
    const long long units = users ? users->users() : n;
    const long long groupSize = spec.mixture.userGroupSize > 0 ? spec.mixture.userGroupSize : kDefaultUserGroupSize;

    AuditStageReport report;
    report.task = options.task;
    report.name = auditName(options);
    report.splitA = n;

    audit::CanaryAuditOptions ao;
    ao.canary = options.canary;
    ao.runsPerWorld = options.runs;
    ao.seed = options.seed;
    ao.threads = options.threads;
    ao.maxClipSign = options.maxClipSign;
    ao.maxClipTarget = options.maxClipTarget;
    ao.keepScores = true;
    ao.canaryExamples = options.canaryExamples;
    ao.users = users;
    if (options.canary == audit::CanaryKind::Natural) {
        const std::size_t example = naturalCanaryExample(*split, options.seed);
        auto row = prepared->proxy.predict(study.sensitiveImages, {example});
        if (!row) return row.error();
        const int label = study.sensitiveLabel(example, task) > 0.5f ? 1 : 0;
        auto canary = audit::makeNaturalCanary(row->row(0).transpose(), label);
        if (!canary) return canary.error();
        ao.naturalExample = std::move(canary).value();
        report.canaryExample = static_cast<long long>(example);
        report.canaryLabel = label;
    }

    // The mechanism exactly as the study runs it: q = B / n capped at 1, the spec's C, η, T (or
    // the caller's override, e.g. the workbench's Advanced values).
    const project::MixtureStage mixture = options.mixture.value_or(spec.mixture);
    const double batch = std::min<double>(static_cast<double>(mixture.batch), static_cast<double>(units));
    mixmin::DpMixMinParamsBuilder builder;
    builder.epsilon(epsilon)
        .delta(delta)
        .expectedBatch(batch)
        .clipNorm(mixture.clip)
        .stepSize(mixture.lr)
        .steps(mixture.steps)
        .split("A")
        .noise(options.noNoise ? mixmin::NoiseMode::None : mixmin::NoiseMode::Gaussian);
    if (users) builder.maxExamplesPerUser(groupSize);
    auto params = builder.build(units, users ? privacy::PrivacyUnit::User : privacy::PrivacyUnit::Example);
    if (!params) return Error{"audit parameters: " + params.error().message};

    say("auditing task '" + options.task + "' with the " + report.name + " canary" +
        (options.canaryExamples > 1 ? " (a canary user with " + std::to_string(options.canaryExamples) + " images)" : "") +
        ": " + std::to_string(options.runs) + " runs per world on split A (n = " + std::to_string(n) +
        (users ? " images of " + std::to_string(units) + " users, user-level DP-MixMin" : std::string()) +
        ", k = " + std::to_string(splitA->sources()) + ")");

    nlohmann::json config{{"stage", "audit"},        {"canary", report.name},   {"runs_per_world", options.runs},
                          {"no_noise", options.noNoise}, {"claimed_epsilon", epsilon}, {"delta", delta},
                          {"rho", spec.privacy.rho},  {"clip", mixture.clip}, {"batch", mixture.batch},
                          {"lr", mixture.lr},    {"steps", mixture.steps},
                          {"privacy_unit", users ? "user" : "example"}, {"canary_examples", options.canaryExamples}};
    if (users) config["user_group_size"] = groupSize;
    const std::optional<double> runEpsilon = options.noNoise ? std::nullopt : std::optional<double>(epsilon);
    auto runId = project.addRun({"audit", options.task, runEpsilon, static_cast<long long>(options.seed), config.dump()});
    if (!runId) return runId.error();
    if (auto s = project.setRunStatus(*runId, project::RunStatus::Running); !s) return s.error();
    report.runId = *runId;
    auto fail = [&](const Error& e) -> Error {
        (void)project.setRunStatus(*runId, project::RunStatus::Failed, e.message);
        return e;
    };

    Result<audit::CanaryAuditResult> result = Error{""};
    try {
        result = audit::runCanaryAudit(*splitA, *params, ao, progress, cancel);
    } catch (const Cancelled&) {
        (void)project.setRunStatus(*runId, project::RunStatus::Cancelled, "cancelled by the user");
        throw;
    }
    if (!result) return fail(result.error());
    report.result = std::move(result).value();
    const auto& r = report.result;
    const auto in = audit::meanStd(r.scoresIn), out = audit::meanStd(r.scoresOut);
    report.scoreMeanIn = in.mean;
    report.scoreStdIn = in.std;
    report.scoreMeanOut = out.mean;
    report.scoreStdOut = out.std;

    privacy::Ledger ledger(spec.privacy.composition);
    ledger.record(privacy::nonPrivateEntry(
        "audit", "A",
        "audit runs of the mixture mechanism on split A" +
            std::string(options.canary == audit::CanaryKind::Natural ? " plus one held-out example of split B" : "") +
            "; results are empirical bounds, not releases"));
    if (auto s = project.recordLedger(*runId, ledger); !s) return fail(s.error());

    const double claimed = options.noNoise ? std::numeric_limits<double>::infinity() : epsilon;
    nlohmann::json details{{"threshold", r.threshold},
                           {"direction", audit::toString(r.direction)},
                           {"sigma", r.sigma},
                           {"claimed_epsilon", options.noNoise ? nlohmann::json("inf") : nlohmann::json(claimed)},
                           {"runs_per_world", r.runsPerWorld},
                           {"select_epsilon_lb", r.selectEpsilonLB},
                           {"fpr", r.fpr},
                           {"fnr", r.fnr},
                           {"fpr_upper", r.fprUpper},
                           {"fnr_upper", r.fnrUpper},
                           {"split_a", n},
                           {"privacy_unit", users ? "user" : "example"},
                           {"canary_examples", options.canaryExamples},
                           {"mean_canary_samples", r.meanCanarySamples},
                           {"score_in_mean", in.mean},
                           {"score_in_std", in.std},
                           {"score_out_mean", out.mean},
                           {"score_out_std", out.std}};
    if (options.canary == audit::CanaryKind::MaxClip) {
        details["top_source"] = r.topSource;
        details["top_source_name"] = study.componentNames[static_cast<std::size_t>(r.topSource)];
        details["max_clip_sign"] = audit::toString(r.maxClipSign);
        details["max_clip_target"] = audit::toString(r.maxClipTarget);
    } else {
        // Which real split-B image was the canary, and its label, stay out of the project: they
        // are facts about a sensitive record that no ledger covers (docs/PRIVACY.md).
        details["canary_from"] = "split B";
    }
    project::AuditRecord record;
    record.runId = *runId;
    record.name = report.name;
    record.counts = {r.falsePositives, r.falseNegatives, r.evalOut, r.evalIn};
    record.delta = r.delta;
    record.confidence = r.confidence;
    record.epsilonLowerBound = r.epsilonLB;
    record.detailsJson = details.dump();
    if (auto s = project.addAudit(record); !s) return fail(s.error());
    if (auto s = project.addMetrics({{*runId, "epsilon-lower-bound", "", r.epsilonLB},
                                     {*runId, "fpr", "", r.fpr},
                                     {*runId, "fnr", "", r.fnr},
                                     {*runId, "threshold", "", r.threshold},
                                     {*runId, "sigma", "", r.sigma}});
        !s)
        return fail(s.error());
    if (auto s = project.setRunStatus(*runId, project::RunStatus::Done); !s) return s.error();
    return report;
}

}  // namespace dpmix::pipeline
