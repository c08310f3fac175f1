#include "engine/executor/audit_units.h"

#include "engine/audit_runs/audit_stage_parts.h"
#include "engine/core/double_bits.h"
#include "engine/mixmin/objective.h"
#include "engine/pipeline/audit_records.h"
#include "engine/pipeline/mixture_stage.h"
#include "engine/privacy/accountant.h"

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace dpmix::executor {

namespace {

Result<double> fromHexBits(const nlohmann::json& j) {
    if (!j.is_string()) return Error{"a number is not 16 hex digits"};
    return doubleFromHexBits(j.get_ref<const std::string&>());
}

nlohmann::json optionsJson(const audit_runs::AuditStageOptions& o) {
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

Result<audit_runs::AuditStageOptions> optionsFromJson(const nlohmann::json& j) {
    audit_runs::AuditStageOptions o;
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
    audit_runs::AuditStageOptions options;
    project::ProjectSpec spec;
    audit_runs::AuditInputs in;
    audit_runs::AuditSetup setup;
    std::vector<std::string> componentNames;
    audit_runs::AuditStageReport report;  // name, task, split A, natural canary
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
        auto groups = pipeline::userGroupsOf(a.at("users").get<std::vector<std::string>>(), t.in.n);
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
        auto setup = audit_runs::auditSetup(t.spec, t.in, t.options);
        if (!setup) return setup.error();
        t.setup = std::move(setup).value();
        t.report.task = t.options.task;
        t.report.name = audit_runs::auditName(t.options);
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

Result<std::string> freezeAuditStage(project::ProjectFile& project, const audit_runs::AuditStageOptions& options,
                                     const ProgressCallback& progress, const CancellationToken& cancel,
                                     const pipeline::LogSink& log) {
    if (auto err = audit_runs::checkAuditStageOptions(project, options)) return *err;
    const auto& spec = project.spec();
    auto prepared = pipeline::prepareStudy(project, options.proxy, progress, cancel, log);
    if (!prepared) return prepared.error();
    auto in = audit_runs::auditInputs(spec, *prepared, options);
    if (!in) return in.error();
    auto setupResult = audit_runs::auditSetup(spec, *in, options);
    if (!setupResult) return setupResult.error();
    audit_runs::AuditSetup setup = std::move(setupResult).value();
    const pipeline::ImageStudy& study = prepared->study;
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
    audit_runs::AuditStageReport report;
    report.name = audit_runs::auditName(options);
    if (options.canary == audit::CanaryKind::Natural) {
        if (auto e = audit_runs::addNaturalCanary(*prepared, *in, options, setup.ao, report)) return *e;
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
                {"config", audit_runs::auditConfigJson(spec, setup.mixture, *in, options, report.name, epsilon)}};
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

Result<audit_runs::AuditStageReport> storeFrozenAudit(project::ProjectFile& project, const std::string& frozenJson,
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
    audit_runs::AuditStageReport report = t->report;
    auto runId = pipeline::runAuditRun(project, t->run, [&](long long id) -> Status {
        report.runId = id;
        report.result = audit::finishCanaryAudit(*t->setup.params, t->setup.ao, *plan, std::move(scoresIn),
                                                 std::move(scoresOut), canarySamples);
        audit_runs::putScoreSpread(report);
        if (auto s = project.addLog(id, "info", provenance); !s) return s.error();
        return audit_runs::storeAuditResults(project, report, t->componentNames, t->in, t->options, t->setup.epsilon,
                                             t->setup.accountant);
    });
    if (!runId) return runId.error();
    return report;
}

}  // namespace dpmix::executor
