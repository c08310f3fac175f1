#include "engine/pipeline/audit_stage.h"

#include "engine/core/double_bits.h"
#include "engine/core/seed_derivation.h"
#include "engine/pipeline/audit_units.h"

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

std::size_t naturalCanaryExample(const RhoSplit& split, std::uint64_t seed) {
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

namespace {

// Split A of the audited task through the proxies: the objective the mechanism runs on, and at
// user level split A's users (Algorithm 2, exactly as the study runs it).
struct AuditInputs {
    std::size_t task = 0;
    RhoSplit split;
    std::optional<mixmin::MixtureObjective> splitA;
    std::optional<mixmin::UserGroups> users;
    long long n = 0, units = 0, groupSize = 0;
};

Result<AuditInputs> auditInputs(const project::ProjectSpec& spec, const PreparedStudy& prepared,
                                const AuditStageOptions& options) {
    const ImageStudy& study = prepared.study;
    const auto taskIt = std::find(study.taskNames.begin(), study.taskNames.end(), options.task);
    if (taskIt == study.taskNames.end())
        return Error{"task: unknown task '" + options.task + "': expected one of " + joined(study.taskNames), "task"};
    AuditInputs in;
    in.task = static_cast<std::size_t>(taskIt - study.taskNames.begin());
    auto split = splitForRun(study, spec.privacy.rho, options.seed);
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
        auto groups = userGroupsOf(ids, in.n);
        if (!groups) return Error{"task '" + options.task + "': " + groups.error().message};
        in.users = std::move(groups).value();
    }
    in.units = in.users ? in.users->users() : in.n;
    in.groupSize = spec.mixture.userGroupSize > 0 ? spec.mixture.userGroupSize : kDefaultUserGroupSize;
    return in;
}

// The natural canary: one held-out image of split B, scored by the proxies.
Status addNaturalCanary(const PreparedStudy& prepared, const AuditInputs& in, const AuditStageOptions& options,
                        audit::CanaryAuditOptions& ao, AuditStageReport& report) {
    const ImageStudy& study = prepared.study;
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
        .split("A")
        .accountant(accountant)
        .noise(options.noNoise ? mixmin::NoiseMode::None : mixmin::NoiseMode::Gaussian);
    if (in.users) builder.maxExamplesPerUser(in.groupSize);
    auto params = builder.build(in.units, in.users ? privacy::PrivacyUnit::User : privacy::PrivacyUnit::Example);
    if (!params) return Error{"audit parameters: " + params.error().message};
    return params;
}

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
    return auditRecordOf(report.runId, report.name, r, details.dump());
}

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

}  // namespace

namespace {

// What the local audit and a frozen one (a cluster job) share: the audit's options for
// engine/audit and its mechanism, from split A's inputs.
struct AuditSetup {
    double epsilon = 1.0;
    privacy::Accountant accountant = privacy::Accountant::Rdp;
    project::MixtureStage mixture;
    audit::CanaryAuditOptions ao;
    std::optional<mixmin::DpMixMinParams> params;
};

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

}  // namespace

Result<AuditStageReport> runAuditStage(project::ProjectFile& project, const AuditStageOptions& options,
                                       const ProgressCallback& progress, const CancellationToken& cancel,
                                       const LogSink& log) {
    if (auto err = checkAuditStageOptions(project, options)) return *err;
    const auto& spec = project.spec();
    auto prepared = prepareStudy(project, options.proxy, progress, cancel, log);
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
    auto runId = runAuditRun(project,
                             {"audit", options.task, runEpsilon, static_cast<long long>(options.seed),
                              auditConfigJson(spec, setup.mixture, *in, options, report.name, epsilon)},
                             [&](long long id) -> Status {
                                 report.runId = id;
                                 auto result =
                                     audit::runCanaryAudit(*in->splitA, *setup.params, setup.ao, progress, cancel);
                                 if (!result) return result.error();
                                 report.result = std::move(result).value();
                                 putScoreSpread(report);
                                 return storeAuditResults(project, report, prepared->study.componentNames, *in, options,
                                                          epsilon, setup.accountant);
                             });
    if (!runId) return runId.error();
    return report;
}

// ---- The audit as work units (audit_units.h) ----

namespace {

Result<double> fromHexBits(const nlohmann::json& j) {
    if (!j.is_string()) return Error{"a number is not 16 hex digits"};
    return doubleFromHexBits(j.get_ref<const std::string&>());
}

nlohmann::json optionsJson(const AuditStageOptions& o) {
    nlohmann::json j{{"task", o.task},
                     {"canary", audit::toString(o.canary)},
                     {"max_clip_sign", o.maxClipSign == audit::MaxClipSign::RaiseTopSource ? "raise" : "lower"},
                     {"max_clip_target", o.maxClipTarget == audit::MaxClipTarget::QuietestSource ? "quietest" : "top"},
                     {"runs", o.runs},
                     {"no_noise", o.noNoise},
                     {"seed", o.seed},
                     {"canary_examples", o.canaryExamples}};
    j["epsilon"] = o.epsilon ? nlohmann::json(doubleToHexBits(*o.epsilon)) : nlohmann::json(nullptr);
    j["accountant"] = o.accountant ? nlohmann::json(privacy::toString(*o.accountant)) : nlohmann::json(nullptr);
    if (o.mixture)
        j["mixture"] = {{"clip", doubleToHexBits(o.mixture->clip)},
                        {"batch", o.mixture->batch},
                        {"lr", doubleToHexBits(o.mixture->lr)},
                        {"steps", o.mixture->steps},
                        {"user_group_size", o.mixture->userGroupSize}};
    return j;
}

Result<AuditStageOptions> optionsFromJson(const nlohmann::json& j) {
    AuditStageOptions o;
    o.task = j.at("task").get<std::string>();
    o.canary = j.at("canary").get<std::string>() == audit::toString(audit::CanaryKind::Natural)
                   ? audit::CanaryKind::Natural
                   : audit::CanaryKind::MaxClip;
    o.maxClipSign =
        j.at("max_clip_sign") == "raise" ? audit::MaxClipSign::RaiseTopSource : audit::MaxClipSign::LowerTopSource;
    o.maxClipTarget =
        j.at("max_clip_target") == "quietest" ? audit::MaxClipTarget::QuietestSource : audit::MaxClipTarget::TopSource;
    o.runs = j.at("runs").get<long long>();
    o.noNoise = j.at("no_noise").get<bool>();
    o.seed = j.at("seed").get<std::uint64_t>();
    o.canaryExamples = j.at("canary_examples").get<long long>();
    if (!j.at("epsilon").is_null()) {
        auto e = fromHexBits(j.at("epsilon"));
        if (!e) return e.error();
        o.epsilon = *e;
    }
    if (!j.at("accountant").is_null()) {
        privacy::Accountant a;
        if (!privacy::parseAccountant(j.at("accountant").get<std::string>(), a)) return Error{"unknown accountant"};
        o.accountant = a;
    }
    if (j.contains("mixture")) {
        const auto& m = j.at("mixture");
        project::MixtureStage stage;
        auto clip = fromHexBits(m.at("clip"));
        auto lr = fromHexBits(m.at("lr"));
        if (!clip || !lr) return Error{"mixture: a number is not 16 hex digits"};
        stage.clip = *clip;
        stage.lr = *lr;
        stage.batch = m.at("batch").get<long long>();
        stage.steps = m.at("steps").get<long long>();
        stage.userGroupSize = m.at("user_group_size").get<long long>();
        o.mixture = stage;
    }
    return o;
}

// A frozen audit thawed: split A, its users, the mechanism and the canary, exactly as the
// project's audit would have built them.
struct ThawedAudit {
    AuditStageOptions options;
    project::ProjectSpec spec;
    AuditInputs in;
    AuditSetup setup;
    std::vector<std::string> componentNames;
    AuditStageReport report;  // name, task, split A, natural canary
    project::NewRun run;
};

// The parts of the project spec the audit reads.
Status thawSpecParts(const nlohmann::json& j, ThawedAudit& t) {
    auto delta = fromHexBits(j.at("delta"));
    if (!delta) return delta.error();
    t.spec.privacy.delta = *delta;
    t.spec.privacy.epsilons.clear();
    auto eps = fromHexBits(j.at("spec_epsilon"));
    if (!eps) return eps.error();
    t.spec.privacy.epsilons.push_back(*eps);
    privacy::Accountant accountant;
    if (!privacy::parseAccountant(j.at("spec_accountant").get<std::string>(), accountant))
        return Error{"unknown accountant"};
    t.spec.privacy.accountant = accountant;
    const auto& m = j.at("spec_mixture");
    auto clip = fromHexBits(m.at("clip"));
    auto lr = fromHexBits(m.at("lr"));
    if (!clip || !lr) return Error{"spec_mixture: a number is not 16 hex digits"};
    t.spec.mixture.clip = *clip;
    t.spec.mixture.lr = *lr;
    t.spec.mixture.batch = m.at("batch").get<long long>();
    t.spec.mixture.steps = m.at("steps").get<long long>();
    t.spec.mixture.userGroupSize = m.at("user_group_size").get<long long>();

    return std::nullopt;
}

// Split A: the proxies' probabilities, the labels and (user level) the users.
Status thawSplitA(const nlohmann::json& j, ThawedAudit& t) {
    const auto& a = j.at("split_a");
    const long long rows = a.at("rows").get<long long>(), k = a.at("sources").get<long long>();
    const auto& values = a.at("probabilities");
    if (rows < 1 || k < 1 || !values.is_array() || static_cast<long long>(values.size()) != rows * k)
        return Error{"split_a: expected rows x sources probabilities"};
    Eigen::MatrixXd p(rows, k);
    for (long long r = 0; r < rows; ++r)
        for (long long c = 0; c < k; ++c) {
            auto v = fromHexBits(values[static_cast<std::size_t>(r * k + c)]);
            if (!v) return Error{"split_a: " + v.error().message};
            p(r, c) = *v;
        }
    const auto labels = a.at("labels").get<std::vector<int>>();
    auto splitA = mixmin::makeBinaryObjective(p, labels);
    if (!splitA) return Error{"split_a: " + splitA.error().message};
    t.in.n = splitA->examples();
    t.in.splitA = std::move(splitA).value();
    if (!a.at("users").is_null()) {
        auto groups = userGroupsOf(a.at("users").get<std::vector<std::string>>(), t.in.n);
        if (!groups) return Error{"split_a: " + groups.error().message};
        t.in.users = std::move(groups).value();
    }
    t.in.units = t.in.users ? t.in.users->users() : t.in.n;
    t.in.groupSize = a.at("group_size").get<long long>();
    return std::nullopt;
}

// The natural canary: the row of split B it was made from.
Status thawNaturalCanary(const nlohmann::json& j, ThawedAudit& t) {
    const auto& nat = j.at("natural");
    std::vector<double> row;
    for (const auto& v : nat.at("row")) {
        auto d = fromHexBits(v);
        if (!d) return Error{"natural: " + d.error().message};
        row.push_back(*d);
    }
    const int label = nat.at("label").get<int>();
    auto canary = audit::makeNaturalCanary(
        Eigen::Map<const Eigen::VectorXd>(row.data(), static_cast<Eigen::Index>(row.size())), label);
    if (!canary) return canary.error();
    t.setup.ao.naturalExample = std::move(canary).value();
    t.report.canaryExample = nat.at("example").get<long long>();
    t.report.canaryLabel = label;
    return std::nullopt;
}

// The run row the audit is stored as.
Status thawRun(const nlohmann::json& j, ThawedAudit& t) {
    const auto& run = j.at("run");
    t.run.method = run.at("method").get<std::string>();
    t.run.task = run.at("task").get<std::string>();
    if (!run.at("epsilon").is_null()) {
        auto e = fromHexBits(run.at("epsilon"));
        if (!e) return e.error();
        t.run.epsilon = *e;
    }
    t.run.seed = run.at("seed").get<long long>();
    t.run.configJson = run.at("config").get<std::string>();
    return std::nullopt;
}

Result<ThawedAudit> thaw(const std::string& frozenJson) {
    try {
        const auto j = nlohmann::json::parse(frozenJson);
        if (j.value("kind", "") != "audit") return Error{"the frozen spec is not an audit's"};
        ThawedAudit t;
        auto options = optionsFromJson(j.at("options"));
        if (!options) return options.error();
        t.options = std::move(options).value();
        t.options.threads = 0;
        if (auto e = thawSpecParts(j, t)) return *e;
        if (auto e = thawSplitA(j, t)) return *e;
        t.componentNames = j.at("component_names").get<std::vector<std::string>>();
        auto setup = auditSetup(t.spec, t.in, t.options);
        if (!setup) return setup.error();
        t.setup = std::move(setup).value();
        t.report.task = t.options.task;
        t.report.name = auditName(t.options);
        t.report.splitA = t.in.n;
        if (t.options.canary == audit::CanaryKind::Natural)
            if (auto e = thawNaturalCanary(j, t)) return *e;
        if (auto e = thawRun(j, t)) return *e;
        return t;
    } catch (const nlohmann::json::exception& e) {
        return Error{std::string("the frozen audit spec is malformed: ") + e.what()};
    }
}

}  // namespace

Result<std::string> freezeAuditStage(project::ProjectFile& project, const AuditStageOptions& options,
                                     const ProgressCallback& progress, const CancellationToken& cancel,
                                     const LogSink& log) {
    if (auto err = checkAuditStageOptions(project, options)) return *err;
    const auto& spec = project.spec();
    auto prepared = prepareStudy(project, options.proxy, progress, cancel, log);
    if (!prepared) return prepared.error();
    auto in = auditInputs(spec, *prepared, options);
    if (!in) return in.error();
    auto setupResult = auditSetup(spec, *in, options);
    if (!setupResult) return setupResult.error();
    AuditSetup setup = std::move(setupResult).value();
    const ImageStudy& study = prepared->study;
    auto probabilities = prepared->proxy.predict(study.sensitiveImages, in->split.a);
    if (!probabilities) return probabilities.error();
    nlohmann::json j;
    j["kind"] = "audit";
    j["options"] = optionsJson(options);
    j["delta"] = doubleToHexBits(spec.privacy.delta);
    j["spec_epsilon"] = doubleToHexBits(spec.privacy.epsilons.empty() ? 1.0 : spec.privacy.epsilons.front());
    j["spec_accountant"] = privacy::toString(spec.privacy.accountant);
    j["spec_mixture"] = {{"clip", doubleToHexBits(spec.mixture.clip)},
                         {"batch", spec.mixture.batch},
                         {"lr", doubleToHexBits(spec.mixture.lr)},
                         {"steps", spec.mixture.steps},
                         {"user_group_size", spec.mixture.userGroupSize}};
    nlohmann::json values = nlohmann::json::array();
    for (Eigen::Index r = 0; r < probabilities->rows(); ++r)
        for (Eigen::Index c = 0; c < probabilities->cols(); ++c)
            values.push_back(doubleToHexBits((*probabilities)(r, c)));
    std::vector<int> labels;
    for (auto i : in->split.a) labels.push_back(study.sensitiveLabel(i, in->task) > 0.5f ? 1 : 0);
    // A worker needs which rows share a user, not who the users are: the ids travel as
    // pseudonyms "0", "1", ... in order of first appearance, which userGroupsOf numbers exactly
    // as it numbers the real ids (so the runs are bit for bit the local audit's).
    nlohmann::json users = nullptr;
    if (in->users) {
        users = nlohmann::json::array();
        std::map<std::string, long long> pseudonym;
        for (auto i : in->split.a)
            users.push_back(std::to_string(
                pseudonym.emplace(study.grouping.users[i], static_cast<long long>(pseudonym.size())).first->second));
    }
    j["split_a"] = {{"rows", probabilities->rows()},
                    {"sources", probabilities->cols()},
                    {"probabilities", values},
                    {"labels", labels},
                    {"users", users},
                    {"group_size", in->groupSize}};
    j["component_names"] = study.componentNames;
    AuditStageReport report;
    report.name = auditName(options);
    if (options.canary == audit::CanaryKind::Natural) {
        if (auto e = addNaturalCanary(*prepared, *in, options, setup.ao, report)) return *e;
        const auto example = static_cast<std::size_t>(report.canaryExample);
        auto row = prepared->proxy.predict(study.sensitiveImages, {example});
        if (!row) return row.error();
        nlohmann::json rowJson = nlohmann::json::array();
        for (Eigen::Index c = 0; c < row->cols(); ++c) rowJson.push_back(doubleToHexBits((*row)(0, c)));
        j["natural"] = {{"row", rowJson}, {"label", report.canaryLabel}, {"example", report.canaryExample}};
    }
    const double epsilon = setup.epsilon;
    j["run"] = {{"method", "audit"},
                {"task", options.task},
                {"epsilon", options.noNoise ? nlohmann::json(nullptr) : nlohmann::json(doubleToHexBits(epsilon))},
                {"seed", static_cast<long long>(options.seed)},
                {"config", auditConfigJson(spec, setup.mixture, *in, options, report.name, epsilon)}};
    // The runs must be computable from this alone: check it thaws and prepares.
    const std::string frozen = j.dump();
    auto thawed = thaw(frozen);
    if (!thawed) return Error{"freezing the audit: " + thawed.error().message};
    if (log)
        log("froze the audit of task '" + options.task + "' (" + report.name + " canary, " +
            std::to_string(options.runs) + " runs per world, split A n = " + std::to_string(in->n) + ")");
    return frozen;
}

Result<long long> frozenAuditRunsPerWorld(const std::string& frozenJson) {
    auto t = thaw(frozenJson);
    if (!t) return t.error();
    return t->options.runs;
}

Result<audit::CanaryAuditBlock> runFrozenAuditUnit(const std::string& frozenJson, bool in, long long begin,
                                                   long long end, int threads, const ProgressCallback& progress,
                                                   const CancellationToken& cancel) {
    auto thawed = thaw(frozenJson);
    if (!thawed) return thawed.error();
    ThawedAudit owned = std::move(thawed).value();
    ThawedAudit* t = &owned;
    t->setup.ao.threads = threads;
    auto plan = audit::prepareCanaryAudit(*t->in.splitA, *t->setup.params, t->setup.ao, cancel);
    if (!plan) return plan.error();
    return audit::runCanaryAuditBlock(*t->in.splitA, *t->setup.params, t->setup.ao, *plan, in, begin, end, progress,
                                      cancel);
}

Result<AuditStageReport> storeFrozenAudit(project::ProjectFile& project, const std::string& frozenJson,
                                          const std::vector<audit::CanaryAuditBlock>& blocks,
                                          const std::string& provenance) {
    auto thawed = thaw(frozenJson);
    if (!thawed) return thawed.error();
    ThawedAudit owned = std::move(thawed).value();
    ThawedAudit* t = &owned;
    const long long R = t->options.runs;
    std::vector<double> scoresIn(static_cast<std::size_t>(R)), scoresOut(static_cast<std::size_t>(R));
    std::vector<char> seenIn(static_cast<std::size_t>(R), 0), seenOut(static_cast<std::size_t>(R), 0);
    long long canarySamples = 0;
    for (const auto& b : blocks) {
        if (b.begin < 0 || b.end > R || b.begin >= b.end || static_cast<long long>(b.scores.size()) != b.end - b.begin)
            return Error{"a unit's runs [" + std::to_string(b.begin) + ", " + std::to_string(b.end) +
                         ") do not fit the audit's " + std::to_string(R) + " runs per world"};
        auto& scores = b.in ? scoresIn : scoresOut;
        auto& seen = b.in ? seenIn : seenOut;
        for (long long r = b.begin; r < b.end; ++r) {
            if (seen[static_cast<std::size_t>(r)]) return Error{"run " + std::to_string(r) + " appears in two units"};
            seen[static_cast<std::size_t>(r)] = 1;
            scores[static_cast<std::size_t>(r)] = b.scores[static_cast<std::size_t>(r - b.begin)];
        }
        if (b.in) canarySamples += b.canarySamples;
    }
    for (long long r = 0; r < R; ++r)
        if (!seenIn[static_cast<std::size_t>(r)] || !seenOut[static_cast<std::size_t>(r)])
            return Error{"run " + std::to_string(r) + " of the audit has no result: every unit must be done"};
    auto plan = audit::prepareCanaryAudit(*t->in.splitA, *t->setup.params, t->setup.ao);
    if (!plan) return plan.error();
    AuditStageReport report = t->report;
    auto runId = runAuditRun(project, t->run, [&](long long id) -> Status {
        report.runId = id;
        report.result = audit::finishCanaryAudit(*t->setup.params, t->setup.ao, *plan, std::move(scoresIn),
                                                 std::move(scoresOut), canarySamples);
        putScoreSpread(report);
        if (auto s = project.addLog(id, "info", provenance); !s) return s.error();
        return storeAuditResults(project, report, t->componentNames, t->in, t->options, t->setup.epsilon,
                                 t->setup.accountant);
    });
    if (!runId) return runId.error();
    return report;
}

}  // namespace dpmix::pipeline
