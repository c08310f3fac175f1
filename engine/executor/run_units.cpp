#include "engine/executor/run_units.h"

#include "engine/core/file_door.h"

#include "engine/core/double_bits.h"

#include "engine/data/sha256.h"
#include "engine/executor/cluster_private_files.h"
#include "engine/executor/unit_attempts.h"
#include "engine/pipeline/run_storage.h"
#include "engine/privacy/ledger_json.h"
#include "engine/project/dataset_budget.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <map>
#include <random>
#include <set>
#include <sstream>

namespace dpmix::executor {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kRunGridFormat = "dpmix-run-grid/1";
constexpr const char* kProjectName = "project.dpmix";
// How a grid's reservation reads in the store's listings (dpmix budget): its submitting process
// ends at once, and the merge settles it.
constexpr const char* kGridReservation = "Slurm run grid, settled by dpmix jobs merge";

json optionsJson(const pipeline::StudyRunOptions& o) {
    json eps = json::array();
    for (double e : o.epsilons) eps.push_back(doubleToHexBits(e));
    json j{{"stages", o.stages},
           {"methods", o.methods},
           {"tasks", o.tasks},
           {"epsilons", eps},
           {"seeds", o.seeds},
           {"reproducible", o.reproducible.value_or(false)},
           {"proxy",
            {{"epochs", o.proxy.epochs},
             {"batch", o.proxy.batch},
             {"lr", doubleToHexBits(o.proxy.lr)},
             {"max_examples", o.proxy.maxExamples}}},
           {"random_search_candidates", o.randomSearchCandidates},
           {"device", o.device}};
    if (o.rho) j["rho"] = doubleToHexBits(*o.rho);
    if (o.pretrainSteps) j["pretrain_steps"] = *o.pretrainSteps;
    if (o.finetuneSteps) j["finetune_steps"] = *o.finetuneSteps;
    if (o.accountant) j["accountant"] = privacy::toString(*o.accountant);
    // The stage values a run was given (the workbench's Advanced values, or a caller's): each
    // unit applies them as the local run does (withStageOptions).
    if (o.mixture)
        j["mixture"] = {{"clip", doubleToHexBits(o.mixture->clip)},
                        {"batch", o.mixture->batch},
                        {"lr", doubleToHexBits(o.mixture->lr)},
                        {"steps", o.mixture->steps},
                        {"user_group_size", o.mixture->userGroupSize}};
    if (o.pretrain)
        j["pretrain"] = {
            {"batch", o.pretrain->batch}, {"lr", doubleToHexBits(o.pretrain->lr)}, {"steps", o.pretrain->steps}};
    if (o.finetune)  // the values withStageOptions takes; the mechanism is always the spec's
        j["finetune"] = {{"clip", doubleToHexBits(o.finetune->clip)},
                         {"batch", o.finetune->batch},
                         {"lr", doubleToHexBits(o.finetune->lr)},
                         {"steps", o.finetune->steps}};
    if (o.adamix) j["adamix"] = {{"steps", o.adamix->steps}, {"eta", doubleToHexBits(o.adamix->eta)}};
    return j;
}

double hexNumber(const json& object, const char* key) {
    return doubleFromHexBitsOrThrow(object.at(key).get<std::string>());
}

Result<pipeline::StudyRunOptions> optionsOf(const json& j) {
    pipeline::StudyRunOptions o;
    try {
        o.stages = j.at("stages").get<std::vector<std::string>>();
        o.methods = j.at("methods").get<std::vector<std::string>>();
        o.tasks = j.at("tasks").get<std::vector<std::string>>();
        for (const auto& e : j.at("epsilons")) o.epsilons.push_back(doubleFromHexBitsOrThrow(e.get<std::string>()));
        o.seeds = j.at("seeds").get<std::vector<std::uint64_t>>();
        o.reproducible = j.at("reproducible").get<bool>();
        const auto& p = j.at("proxy");
        o.proxy.epochs = p.at("epochs").get<int>();
        o.proxy.batch = p.at("batch").get<long long>();
        o.proxy.lr = doubleFromHexBitsOrThrow(p.at("lr").get<std::string>());
        o.proxy.maxExamples = p.at("max_examples").get<long long>();
        o.randomSearchCandidates = j.at("random_search_candidates").get<long long>();
        o.device = j.at("device").get<std::string>();
        if (j.contains("rho")) o.rho = doubleFromHexBitsOrThrow(j["rho"].get<std::string>());
        if (j.contains("pretrain_steps")) o.pretrainSteps = j["pretrain_steps"].get<long long>();
        if (j.contains("finetune_steps")) o.finetuneSteps = j["finetune_steps"].get<long long>();
        if (j.contains("mixture")) {
            const auto& m = j["mixture"];
            o.mixture = project::MixtureStage{hexNumber(m, "clip"), m.at("batch").get<long long>(), hexNumber(m, "lr"),
                                              m.at("steps").get<long long>(), m.at("user_group_size").get<long long>()};
        }
        if (j.contains("pretrain")) {
            const auto& m = j["pretrain"];
            o.pretrain = project::PretrainStage{m.at("batch").get<long long>(), hexNumber(m, "lr"),
                                                m.at("steps").get<long long>()};
        }
        if (j.contains("finetune")) {
            const auto& m = j["finetune"];
            project::FinetuneStage f;
            f.clip = hexNumber(m, "clip");
            f.batch = m.at("batch").get<long long>();
            f.lr = hexNumber(m, "lr");
            f.steps = m.at("steps").get<long long>();
            o.finetune = f;
        }
        if (j.contains("adamix"))
            o.adamix =
                pipeline::AdamixStageValues{j["adamix"].at("steps").get<long long>(), hexNumber(j["adamix"], "eta")};
        if (j.contains("accountant")) {
            privacy::Accountant a;
            if (!privacy::parseAccountant(j["accountant"].get<std::string>(), a))
                return Error{"frozen run: unknown accountant"};
            o.accountant = a;
        }
    } catch (const std::exception& e) {
        return Error{std::string("frozen run: malformed options (") + e.what() + ")"};
    }
    return o;
}

struct FrozenRun {
    pipeline::StudyRunOptions options;
    long long afterRun = 0;
    std::optional<UnitBudget> unitBudget;  // a grid with secret randomness: how its attempts reserve
};

Result<FrozenRun> parseFrozenRun(const std::string& text) {
    json j = json::parse(text, nullptr, false);
    if (!j.is_object() || j.value("format", "") != kRunGridFormat) return Error{"not a frozen dpmix run grid"};
    auto options = optionsOf(j.value("options", json::object()));
    if (!options) return options.error();
    FrozenRun frozen{std::move(options).value(), j.value("after_run", 0LL), std::nullopt};
    if (!frozen.options.reproducible.value_or(false)) {
        // Secret randomness runs only under a reservation of each attempt: no budget, no run.
        if (!j.contains("unit_budget")) return Error{"frozen run: secret randomness without a unit budget"};
        auto budget = unitBudgetFromJson(j["unit_budget"].dump());
        if (!budget) return budget.error();
        frozen.unitBudget = std::move(budget).value();
    }
    return frozen;
}

// Each seed's own releases, planned on the loaded study as the grid's reservation plans them:
// what a unit's later attempt reserves again.
Result<std::map<std::uint64_t, std::vector<privacy::BudgetRelease>>> unitPlans(project::ProjectFile& project,
                                                                               const pipeline::StudyRunOptions& options,
                                                                               const pipeline::ImageStudy& study) {
    std::map<std::uint64_t, std::vector<privacy::BudgetRelease>> plans;
    for (auto seed : options.seeds) {
        pipeline::StudyRunOptions one = options;
        one.seeds = {seed};
        auto planned = pipeline::planStudyReleasesOn(project, one, study);
        if (!planned) return planned.error();
        plans[seed] = std::move(planned).value();
    }
    return plans;
}

// The frozen unit budget of a secret grid: where and under which reservation its attempts reserve.
Result<UnitBudget> freezeUnitBudget(project::ProjectFile& project, const pipeline::StudyRunOptions& options,
                                    long long gridReservation,
                                    std::map<std::uint64_t, std::vector<privacy::BudgetRelease>> plans) {
    auto location = project::budgetStoreLocation(project.spec(), project.path());
    if (!location) return location.error();
    auto dataset = project::datasetKeyOf(project);
    if (!dataset) return dataset.error();
    UnitBudget b;
    std::error_code ec;
    b.store = fs::absolute(location->path, ec).lexically_normal();  // the nodes share no working folder
    if (ec) return Error{"cannot name the budget store " + location->path.string() + ": " + ec.message()};
    b.dataset = *dataset;
    b.gridReservation = gridReservation;
    b.cap = options.budgetCap;
    if (const auto& spec = project.spec().privacy.budget; spec && (!b.cap || *spec < *b.cap)) b.cap = spec;
    b.unitPlans = std::move(plans);
    return b;
}

// A project's file, its write-ahead log and its models folder (hard links: model files are
// immutable, named by content) copied to <dir>/project.dpmix and <dir>/project.models/. The
// folders are 0700 and the copies 0600 (cluster_private_files.h); a hard link keeps the mode of
// the project's own model file.
Status copyProject(const fs::path& file, const fs::path& models, const fs::path& dir) {
    std::error_code ec;
    if (auto e = cluster::makePrivateDirectory(dir)) return e;
    if (auto e = cluster::makePrivateDirectory(dir / "project.models")) return e;
    fs::copy_file(file, dir / kProjectName, fs::copy_options::overwrite_existing, ec);
    if (!ec) {
        if (auto e = cluster::makePrivateFile(dir / kProjectName)) return e;
    }
    if (!ec && files::exists(file.string() + "-wal")) {
        const fs::path wal = dir / (std::string(kProjectName) + "-wal");
        fs::copy_file(file.string() + "-wal", wal, fs::copy_options::overwrite_existing, ec);
        if (!ec)
            if (auto e = cluster::makePrivateFile(wal)) return e;
    }
    if (ec) return Error{"cannot copy " + file.string() + " to " + dir.string() + ": " + ec.message()};
    if (!files::isDirectory(models.string())) return std::nullopt;
    for (fs::directory_iterator it(models, ec), end; !ec && it != end; it.increment(ec)) {
        const auto& e = *it;
        std::error_code kind;
        if (!e.is_regular_file(kind)) continue;
        const fs::path target = dir / "project.models" / e.path().filename();
        fs::create_hard_link(e.path(), target, ec);
        if (ec) {
            fs::copy_file(e.path(), target, fs::copy_options::overwrite_existing, ec);
            if (!ec)
                if (auto err = cluster::makePrivateFile(target)) return err;
        }
        if (ec) return Error{"cannot copy " + e.path().string() + ": " + ec.message()};
    }
    return std::nullopt;
}

Result<std::string> fileSha256(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) return Error{"cannot read " + p.string()};
    std::ostringstream s;
    s << in.rdbuf();
    std::string text = s.str();
    std::ifstream wal(p.string() + "-wal", std::ios::binary);
    if (wal) {
        std::ostringstream w;
        w << wal.rdbuf();
        text += w.str();
    }
    return data::sha256Hex(text);
}

}  // namespace

Result<std::string> freezeStudyRun(project::ProjectFile& project, const pipeline::StudyRunOptions& given,
                                   const ProgressCallback& progress, const CancellationToken& cancel,
                                   const pipeline::LogSink& log) {
    if (auto e = pipeline::checkImageStudyRun(project.spec(), given)) return *e;
    pipeline::StudyRunOptions options = given;
    const pipeline::RunChoices choices = study_plan::resolveRunChoices(project.spec(), options);
    if (auto srcs = project.sources(); srcs && project::isTextStudy(*srcs))
        return Error{"the Slurm executor runs image studies; '" + project.path().string() + "' is a text study"};
    options.seeds = choices.seeds;
    options.reproducible = choices.reproducible;
    pipeline::ProxyOptions proxyOptions = options.proxy;
    proxyOptions.device = options.device;
    // The whole grid is checked as one local run would be, and its releases are reserved on the
    // data set's budget now (refused over the cap): a unit sees only its own seed and the
    // snapshot, so it cannot. The reservation stays open, counted in full, until the merge settles it.
    // With secret randomness each unit's own releases are planned too: its later attempts reserve them again.
    std::optional<project::BudgetReservation> reservation;
    std::map<std::uint64_t, std::vector<privacy::BudgetRelease>> plans;
    auto prepared = pipeline::prepareStudy(
        project, proxyOptions, progress, cancel, log, [&](const pipeline::ImageStudy& st) -> Status {
            auto held = pipeline::reserveStudyRun(project, options, st, log, kGridReservation);
            if (!held) return held.error();
            reservation.emplace(std::move(held).value());
            if (choices.reproducible) return std::nullopt;
            auto planned = unitPlans(project, options, st);
            if (!planned) return planned.error();
            plans = std::move(planned).value();
            return std::nullopt;
        });
    if (!prepared) return prepared.error();
    auto after = lastRunId(project);
    if (!after) return after.error();
    json frozen{{"format", kRunGridFormat}, {"after_run", *after}, {"options", optionsJson(options)}};
    const long long grid = reservation ? reservation->id() : 0;
    if (!choices.reproducible) {
        auto budget = freezeUnitBudget(project, options, grid, std::move(plans));
        if (!budget) return budget.error();  // the reservation settles as this call returns: nothing ran
        frozen["unit_budget"] = json::parse(unitBudgetJson(*budget));
    }
    if (grid != 0) frozen["budget_reservation"] = reservation->keepOpen();
    return frozen.dump(1);
}

Status releaseUnsubmittedRun(project::ProjectFile& project, const std::string& frozenJson) {
    const json frozen = json::parse(frozenJson, nullptr, /*allow_exceptions=*/false);
    if (!frozen.is_object() || !frozen.contains("budget_reservation") ||
        !frozen.at("budget_reservation").is_number_integer())
        return std::nullopt;
    return project::settleReservation(project, frozen.at("budget_reservation").get<long long>(), {});
}

std::vector<cluster::WorkUnit> studyRunWorkUnits(const std::vector<std::uint64_t>& seeds) {
    std::vector<cluster::WorkUnit> units;
    for (auto seed : seeds) {
        cluster::WorkUnit u;
        u.id = static_cast<long long>(units.size());
        u.seed = seed;
        u.paramsJson = json{{"seed", seed}}.dump();
        units.push_back(u);
    }
    return units;
}

Status snapshotProject(const project::ProjectFile& project, const fs::path& jobDir) {
    return copyProject(project.path(), project.modelsDir(), jobDir / "snapshot");
}

namespace {

// A name no other attempt of the unit uses: 128 bits from the OS's entropy source.
std::string attemptFolderName() {
    std::random_device entropy;
    std::ostringstream name;
    name << "attempt-" << std::hex << std::setfill('0');
    for (int i = 0; i < 4; ++i) name << std::setw(8) << static_cast<std::uint32_t>(entropy());
    return name.str();
}

}  // namespace

Result<std::string> runOnScratchCopy(const fs::path& jobDir, long long unit, long long afterRun,
                                     const std::function<Status(project::ProjectFile&)>& body) {
    // Each attempt works in a folder of its own, <jobDir>/work/unit-N/<attempt>/: two attempts of
    // one unit may overlap (a resubmission while a lost task still runs), and neither may delete
    // or write the other's scratch project. A later attempt starts again from the snapshot.
    const std::string rel = "work/unit-" + std::to_string(unit) + "/" + attemptFolderName();
    const fs::path work = jobDir / rel;
    if (auto e = cluster::makePrivateDirectory(jobDir / "work")) return *e;
    if (auto e = cluster::makePrivateDirectory(work.parent_path())) return *e;
    const fs::path snapshot = jobDir / "snapshot";
    if (auto e = copyProject(snapshot / kProjectName, snapshot / "project.models", work)) return *e;
    json runs = json::array();
    {
        auto opened = project::ProjectFile::open(work / kProjectName, project::OpenMode::ReadWrite);
        if (!opened) return opened.error();
        project::ProjectFile scratch = std::move(opened).value();
        if (auto e = body(scratch)) return *e;
        auto all = scratch.runs();
        if (!all) return all.error();
        for (const auto& r : *all)
            if (r.id > afterRun) runs.push_back(r.id);
    }  // closed: the write-ahead log is folded into the file
    auto sha = fileSha256(work / kProjectName);
    if (!sha) return sha.error();
    return json{{"scratch", rel + "/" + kProjectName}, {"sha256", *sha}, {"runs", runs}}.dump();
}

Result<std::string> runStudyUnit(const fs::path& jobDir, const std::string& frozenJson, long long unit,
                                 std::uint64_t seed) {
    auto frozen = parseFrozenRun(frozenJson);
    if (!frozen) return frozen.error();
    pipeline::StudyRunOptions options = frozen->options;
    options.seeds = {seed};
    // Secret randomness: this attempt is a release of its own, recorded in the data owner's
    // store before anything of the unit runs (unit_attempts.h). Seeded: the grid's reservation
    // holds the unit's releases, and running it again releases nothing new. Either way the runner
    // reserves nothing more (a second reservation of the same releases could refuse a grid at its cap).
    project::AttemptGrant attempt;
    if (frozen->unitBudget) {
        auto granted = reserveUnitAttempt(*frozen->unitBudget, unit, seed);
        if (!granted)
            return Error{"unit " + std::to_string(unit) + " (seed " + std::to_string(seed) +
                         "): " + granted.error().message};
        attempt = *granted;
    }
    options.budgetReservedByCaller = true;
    auto done = runOnScratchCopy(jobDir, unit, frozen->afterRun, [&](project::ProjectFile& scratch) -> Status {
        auto report = pipeline::runStudy(scratch, options);
        if (!report) return Error{"seed " + std::to_string(seed) + ": " + report.error().message};
        return std::nullopt;
    });
    if (!done) return done.error();
    json result = json::parse(*done);
    result["seed"] = seed;
    if (frozen->unitBudget) result["attempt"] = attempt.attempt;
    return result.dump();
}

Result<long long> lastRunId(const project::ProjectFile& project) {
    auto runs = project.runs();
    if (!runs) return runs.error();
    long long after = 0;
    for (const auto& r : *runs) after = std::max(after, r.id);
    return after;
}

namespace {

// The log lines of the project's finished runs: a merged run carries its provenance line.
Result<std::set<std::string>> finishedLogLines(const project::ProjectFile& project) {
    auto runs = project.runs();
    if (!runs) return runs.error();
    std::set<std::string> lines;
    for (const auto& r : *runs) {
        if (r.status != project::RunStatus::Done) continue;
        auto logs = project.logs(r.id);
        if (!logs) return logs.error();
        for (const auto& l : *logs) lines.insert(l.message);
    }
    return lines;
}

// The rows of run `from` (of `scratch`) added to run `to` of `project`.
Status copyRunRows(project::ProjectFile& project, const project::ProjectFile& scratch, long long from, long long to) {
    auto ledgers = scratch.ledgers(from);
    if (!ledgers) return ledgers.error();
    for (const auto& l : *ledgers) {
        auto ledger = privacy::ledgerFromJson(l.ledgerJson);
        if (!ledger) return ledger.error();
        if (auto e = pipeline::errorOf(project.recordLedger(to, *ledger, l.recordedEpsilon))) return e;
    }
    auto lambdas = scratch.lambdas(from);
    if (!lambdas) return lambdas.error();
    for (auto l : *lambdas) {
        l.runId = to;
        if (auto e = pipeline::errorOf(project.addLambda(l))) return e;
    }
    auto stored = scratch.metrics(from);
    if (!stored) return stored.error();
    std::vector<project::MetricRecord> metrics = *stored;
    for (auto& m : metrics) m.runId = to;
    if (!metrics.empty())
        if (auto e = pipeline::errorOf(project.addMetrics(metrics))) return e;
    auto curves = scratch.curveNames(from);
    if (!curves) return curves.error();
    for (const auto& name : *curves) {
        auto points = scratch.curve(from, name);
        if (!points) return points.error();
        if (auto e = pipeline::errorOf(project.addCurve(to, name, *points))) return e;
    }
    auto audits = scratch.audits(from);
    if (!audits) return audits.error();
    for (auto a : *audits) {
        a.runId = to;
        if (auto e = pipeline::errorOf(project.addAudit(a))) return e;
    }
    auto models = scratch.models(from);
    if (!models) return models.error();
    for (const auto& m : *models) {
        auto bytes = scratch.loadModel(m);  // checks the content hash
        if (!bytes) return bytes.error();
        if (auto stored = project.storeModel(to, m.name, *bytes); !stored) return stored.error();
    }
    auto logs = scratch.logs(from);
    if (!logs) return logs.error();
    for (const auto& l : *logs)
        if (auto e = pipeline::errorOf(project.addLog(to, l.level, l.message))) return e;
    return std::nullopt;
}

Result<long long> importRun(project::ProjectFile& project, const project::ProjectFile& scratch, long long from,
                            const std::string& line) {
    auto r = scratch.run(from);
    if (!r) return r.error();
    auto id = project.addRun({r->method, r->task, r->epsilon, r->seed, r->configJson});
    if (!id) return id.error();
    if (auto s = project.setRunStatus(*id, project::RunStatus::Running); !s) return s.error();
    Status err = copyRunRows(project, scratch, from, *id);
    if (!err) err = pipeline::errorOf(project.addLog(*id, "info", line));
    if (err) {
        (void)project.setRunStatus(*id, project::RunStatus::Failed, "merge failed: " + err->message);
        return *err;
    }
    if (auto s = project.setRunStatus(*id, r->status, r->message); !s) return s.error();
    return *id;
}

}  // namespace

Result<std::vector<long long>> importStudyUnit(project::ProjectFile& project, const fs::path& jobDir,
                                               const std::string& resultJson, const std::string& provenance) {
    json result = json::parse(resultJson, nullptr, false);
    if (!result.is_object() || !result.contains("scratch") || !result.contains("sha256") || !result.contains("runs"))
        return Error{"the unit result has no scratch project, checksum or run list"};
    const std::string rel = result["scratch"].get<std::string>();
    if (fs::path(rel).is_absolute() || rel.find("..") != std::string::npos)
        return Error{"the unit result names a scratch project outside its job directory: " + rel};
    const fs::path scratchFile = jobDir / rel;
    auto sha = fileSha256(scratchFile);
    if (!sha) return sha.error();
    if (*sha != result["sha256"].get<std::string>())
        return Error{scratchFile.string() + " does not match the SHA-256 its unit recorded (damaged or edited)"};
    auto scratch = project::ProjectFile::open(scratchFile, project::OpenMode::ReadOnly);
    if (!scratch) return scratch.error();
    if (scratch->specJson() != project.specJson() || scratch->createdAt() != project.createdAt())
        return Error{scratchFile.string() + " is a copy of another project"};
    auto merged = finishedLogLines(project);
    if (!merged) return merged.error();
    std::vector<long long> added;
    for (const auto& run : result["runs"]) {
        const std::string line = provenance + " run " + std::to_string(run.get<long long>());
        if (merged->count(line)) continue;
        auto id = importRun(project, *scratch, run.get<long long>(), line);
        if (!id)
            return Error{"run " + std::to_string(run.get<long long>()) + " of " + scratchFile.string() + ": " +
                         id.error().message};
        added.push_back(*id);
    }
    return added;
}

}  // namespace dpmix::executor
