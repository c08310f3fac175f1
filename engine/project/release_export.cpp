#include "engine/project/release_export.h"

#include "engine/core/file_door.h"

#include "engine/core/version.h"
#include "engine/privacy/ledger_json.h"
#include "engine/privacy/parameters.h"
#include "engine/project/declared_labels.h"
#include "engine/project/file_publishing.h"
#include "engine/project/file_signature.h"
#include "engine/project/hash_chain.h"
#include "engine/project/process_identity.h"
#include "engine/project/project_budget.h"
#include "engine/project/project_file_support.h"
#include "engine/project/spec_json.h"
#include "engine/project/sqlite_db.h"
#include "engine/project/trust_verdict.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

namespace dpmix::project {
using namespace detail;
namespace {

namespace fs = std::filesystem;

constexpr const char* kWithheld = "(withheld from the release)";

std::vector<std::string> splitCommaList(const std::string& text) {
    std::vector<std::string> out;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ','))
        if (!item.empty()) out.push_back(item);
    return out;
}

// A public source's path as a reviewer can use it: as written when relative (a path under the
// data folder), its file name when absolute (the folder is this machine's).
std::string shareablePath(const std::string& path) {
    const fs::path p(path);
    return p.is_absolute() ? p.filename().string() : path;
}

// The spec as released: no local path of any source, and none at all of the sensitive one.
ProjectSpec releasedSpec(const ProjectSpec& spec) {
    ProjectSpec out = spec;
    auto strip = [](SpecSource& s, bool sensitive) {
        s.written.path = sensitive ? kWithheld : shareablePath(s.written.path);
        for (const auto& key : pathOptionsOf(s.written.loader)) {
            auto it = s.written.options.find(key);
            if (it != s.written.options.end()) it->second = sensitive ? kWithheld : shareablePath(it->second);
        }
        s.resolved = {};
    };
    for (auto& s : out.publicSources) strip(s, false);
    strip(out.sensitive, true);
    return out;
}

// The sensitive label set a release may state: the one the spec declares (public by the spec),
// else the classes its sensitive tasks name (in the spec too) — never one read from the data.
std::vector<std::string> declaredSensitiveLabels(const ProjectSpec& spec) {
    const auto& options = spec.sensitive.written.options;
    const std::string key = declaredLabelOption(spec.sensitive.written);
    if (auto it = options.find(key.empty() ? "classes" : key); it != options.end()) return splitCommaList(it->second);
    std::set<std::string> named;
    for (const auto& t : spec.sensitiveTasks) named.insert(t.classes.begin(), t.classes.end());
    return {named.begin(), named.end()};
}

Result<std::vector<SourceFacts>> releasedFacts(const ProjectFile& project, const ProjectSpec& spec) {
    auto sources = project.sources();
    if (!sources) return sources.error();
    std::vector<SourceFacts> publicFacts;
    std::optional<SourceFacts> sensitive;
    for (const auto& s : *sources) {
        if (s.role == project::SourceRole::Public) {
            publicFacts.push_back(s.facts);
            continue;
        }
        SourceFacts f = s.facts;  // n and users stay: every ledger treats them as public (they set q)
        f.contentHash.clear();
        f.labelNames = f.kind == data::SourceKind::Images ? declaredSensitiveLabels(spec) : std::vector<std::string>{};
        f.domains.clear();
        sensitive = f;
    }
    if (!sensitive || publicFacts.size() != spec.publicSources.size())
        return Error{project.path().string() + ": its sources do not match its spec"};
    publicFacts.push_back(*sensitive);
    return publicFacts;
}

struct ChosenRun {
    RunRecord run;
    LedgerRecord ledger;  // the last one
    bool hasLedger = false;
};

// Reads and checks every chosen run; all refusals in one message.
Result<std::vector<ChosenRun>> chooseRuns(const ProjectFile& project, const ReleaseOptions& options) {
    if (options.runIds.empty()) return Error{"runs: no run chosen (give the ids of DP runs, e.g. runs 2,3)", "runs"};
    std::set<long long> confirmed;
    for (const auto& c : options.confirmUnestablished) {
        if (c.reason.find_first_not_of(" \t") == std::string::npos)
            return Error{"confirm-unestablished " + std::to_string(c.runId) +
                             ": the reason is empty (say why the "
                             "claimed guarantee is acceptable here; it is recorded in the release)",
                         "confirm-unestablished"};
        if (std::find(options.runIds.begin(), options.runIds.end(), c.runId) == options.runIds.end())
            return Error{"confirm-unestablished " + std::to_string(c.runId) + ": run " + std::to_string(c.runId) +
                             " is not among the runs chosen",
                         "confirm-unestablished"};
        confirmed.insert(c.runId);
    }
    std::vector<ChosenRun> chosen;
    std::vector<std::string> refusals;
    std::set<long long> seen;
    for (long long id : options.runIds) {
        if (!seen.insert(id).second) continue;
        auto run = project.run(id);
        if (!run) {
            refusals.push_back("run " + std::to_string(id) + ": no such run in " + project.path().filename().string());
            continue;
        }
        auto records = project.ledgers(id);
        if (!records) return records.error();
        ChosenRun c{*run, {}, !records->empty()};
        std::optional<privacy::Ledger> ledger;
        if (c.hasLedger) {
            c.ledger = records->back();
            auto parsed = privacy::ledgerFromJson(c.ledger.ledgerJson);
            if (!parsed)
                return Error{"run " + std::to_string(id) + ": its ledger cannot be read: " + parsed.error().message};
            ledger = std::move(parsed).value();
            if (confirmed.count(id)) {
                bool unestablished = false;
                for (const auto& e : ledger->entries()) unestablished = unestablished || !e.established;
                if (!unestablished)
                    return Error{"confirm-unestablished " + std::to_string(id) + ": run " + std::to_string(id) +
                                     "'s guarantee is established; nothing to confirm",
                                 "confirm-unestablished"};
            }
        }
        if (auto why = whyNotReleasable(*run, ledger, confirmed.count(id) > 0))
            refusals.push_back("run " + std::to_string(id) + " (" + run->method + "): " + *why);
        else
            chosen.push_back(std::move(c));
    }
    if (!refusals.empty()) {
        std::string message = "nothing was exported: ";
        for (std::size_t i = 0; i < refusals.size(); ++i) message += (i ? "; " : "") + refusals[i];
        return Error{message};
    }
    return chosen;
}

void insertRun(Database& db, const RunRecord& r) {
    Statement s(db.handle(),
                "INSERT INTO runs(id, method, task, epsilon, seed, config_json, build_version, created_at, status, "
                "started_at, finished_at, message) VALUES(?,?,?,?,?,?,?,?,'done',?,?,'')");
    s.bind(1, static_cast<std::int64_t>(r.id)).bind(2, r.method).bind(3, r.task).bind(4, r.epsilon);
    s.bind(5, static_cast<std::int64_t>(r.seed)).bind(6, r.configJson).bind(7, r.buildVersion).bind(8, r.createdAt);
    s.bind(9, r.startedAt).bind(10, r.finishedAt).run();
    // Its history in the release: released as done (sealed with the rest below).
    Statement t(db.handle(), "INSERT INTO run_transitions(run_id, status, at, message) VALUES(?, 'done', ?, ?)");
    t.bind(1, static_cast<std::int64_t>(r.id)).bind(2, r.finishedAt.empty() ? r.createdAt : r.finishedAt);
    t.bind(3, "released: exported as done from the project").run();
}

void insertLedger(Database& db, const LedgerRecord& l) {
    Statement s(db.handle(),
                "INSERT INTO ledgers(run_id, recorded_at, ledger_json, recorded_epsilon, recorded_delta) "
                "VALUES(?,?,?,?,?)");
    s.bind(1, static_cast<std::int64_t>(l.runId)).bind(2, l.recordedAt).bind(3, l.ledgerJson);
    s.bind(4, l.recordedEpsilon).bind(5, l.recordedDelta).run();
}

class ReleaseWriter {
public:
    ReleaseWriter(const ProjectFile& project, Database& db, const ReleaseOptions& options, const fs::path& modelsDir)
        : project_(project), db_(db), options_(options), modelsDir_(modelsDir) {}

    bool keep(Disclosure d) const {
        return d == Disclosure::DpRelease || d == Disclosure::Public ||
               (d == Disclosure::TestMetric && options_.includeTestMetrics);
    }

    Status write(const ChosenRun& c) {
        const long long id = c.run.id;
        insertRun(db_, c.run);
        ++rows_["runs"];
        if (c.hasLedger) {
            insertLedger(db_, c.ledger);
            ++rows_["ledgers"];
        }
        auto lambdas = project_.lambdas(id);
        if (!lambdas) return lambdas.error();
        for (const auto& l : *lambdas) {
            if (!keep(classifyLambda(l.kind))) continue;
            Statement s(db_.handle(), "INSERT INTO lambdas(run_id, kind, names_json, values_json) VALUES(?,?,?,?)");
            s.bind(1, static_cast<std::int64_t>(id)).bind(2, l.kind).bind(3, jsonStrings(l.names));
            s.bind(4, nlohmann::json(l.values).dump()).run();
            ++rows_["lambdas"];
        }
        auto metrics = project_.metrics(id);
        if (!metrics) return metrics.error();
        for (const auto& m : *metrics) {
            if (!keep(classifyMetric(m.name))) continue;
            Statement s(db_.handle(), "INSERT INTO metrics(run_id, name, class_name, value) VALUES(?,?,?,?)");
            s.bind(1, static_cast<std::int64_t>(id)).bind(2, m.name).bind(3, m.className).bind(4, m.value).run();
            ++rows_["metrics"];
        }
        auto curves = project_.curveNames(id);
        if (!curves) return curves.error();
        for (const auto& name : *curves) {
            if (!keep(classifyCurve(name))) continue;
            auto points = project_.curve(id, name);
            if (!points) return points.error();
            Statement s(db_.handle(), "INSERT INTO curves(run_id, name, step, value) VALUES(?,?,?,?)");
            for (const auto& p : *points) {
                s.bind(1, static_cast<std::int64_t>(id)).bind(2, name).bind(3, static_cast<std::int64_t>(p.step));
                s.bind(4, p.value).run();
                ++rows_["curves"];
            }
        }
        auto models = project_.models(id);
        if (!models) return models.error();
        for (const auto& m : *models) {
            auto bytes = project_.loadModel(m);  // checks the recorded hash
            if (!bytes) return bytes.error();
            const fs::path file = modelsDir_ / m.fileName;
            std::error_code ec;
            if (!fs::exists(file, ec)) {
                fs::create_directories(modelsDir_, ec);
                if (ec) throw std::runtime_error("cannot create " + modelsDir_.string() + ": " + ec.message());
                writeFileDurably(file, *bytes);
                written_.push_back(file);
            }
            Statement s(db_.handle(),
                        "INSERT INTO models(run_id, name, content_hash, file_name, bytes) VALUES(?,?,?,?,?)");
            s.bind(1, static_cast<std::int64_t>(id)).bind(2, m.name).bind(3, m.contentHash).bind(4, m.fileName);
            s.bind(5, static_cast<std::int64_t>(m.bytes)).run();
            ++rows_["models"];
        }
        return std::nullopt;
    }

    const std::map<std::string, long long>& rows() const { return rows_; }
    const std::vector<fs::path>& writtenFiles() const { return written_; }

private:
    const ProjectFile& project_;
    Database& db_;
    const ReleaseOptions& options_;
    fs::path modelsDir_;
    std::map<std::string, long long> rows_;
    std::vector<fs::path> written_;
};

}  // namespace

std::optional<std::string> whyNotReleasable(const RunRecord& run, const std::optional<privacy::Ledger>& ledger,
                                            bool confirmed) {
    if (run.status != RunStatus::Done) return "it is " + toString(run.status) + ": only finished runs are released";
    if (run.method == "audit")
        return "an audit: an experiment on the mechanism with statistics of the sensitive data, not a release";
    if (run.method == "epsilon-sweep" || run.method == "rho-sweep" || run.method == "k-scaling")
        return "an experiment (seeded, compared with non-private lambda*): computed for the analyst, not a release";
    if (run.method == "adamix-experiment")
        return "an experiment (seeded, compared with a non-private paragon): computed for the analyst, not a release";
    if (!ledger) {
        if (isPublicOnlyMethod(run.method)) return std::nullopt;
        return "it has no privacy ledger, so nothing states what it spent";
    }
    if (!std::isfinite(ledger->total().epsilon))
        return "not private (epsilon = inf): computed for the analyst, never to be released";
    for (const auto& e : ledger->entries())
        if (privacy::isSeededRelease(e))
            return "made in reproducible mode: its mechanism's randomness is regenerated by the seed the project "
                   "stores, so it is no release; run it again with secret randomness (without --reproducible)";
    for (const auto& e : ledger->entries())
        if (!e.established && !confirmed)
            return "its " + e.stage +
                   " mechanism's guarantee is not established (only claimed by its authors): "
                   "release it only with --confirm-unestablished " +
                   std::to_string(run.id) + "=\"REASON\", which records why";
    return std::nullopt;
}

namespace {

// -o as the release file to write: a new regular file (or one to replace with `replace`) in an
// existing folder, not the project itself; its absolute path.
Result<fs::path> releaseTarget(const ProjectFile& project, const fs::path& target, const ReleaseOptions& options) {
    std::error_code ec;
    if (target.empty()) return Error{"-o: no output file given"};
    // Through the door: a name too long, a FIFO or device as -o is refused before anything is read.
    if (auto bad = files::checkOutputPath(target.string(), "the release file to write"))
        return Error{"-o: " + bad->message};
    auto absolute = files::absolute(target.string());
    if (!absolute) return Error{"-o: " + absolute.error().message};
    const fs::path absoluteTarget = *absolute;
    if (absoluteTarget.filename().empty()) return Error{"-o: no output file given"};
    if (fs::equivalent(absoluteTarget, project.path(), ec) || absoluteTarget == project.path())
        return Error{"-o " + target.string() + ": that is the project itself; choose a new file for the release"};
    if (!fs::is_directory(absoluteTarget.parent_path(), ec))
        return Error{"-o " + target.string() + ": the folder " + absoluteTarget.parent_path().string() +
                     " does not exist"};
    if (fs::is_directory(absoluteTarget, ec)) return Error{"-o " + target.string() + ": is a folder"};
    if (fs::exists(absoluteTarget, ec) && !options.replace)
        return Error{"-o " + target.string() + ": already exists (choose another name, or replace it with --force)"};
    return absoluteTarget;
}

// What the release says of itself: when, by what, from which project, which runs and what they
// spend together.
ReleaseManifest releaseManifest(const ProjectFile& project, const std::vector<ChosenRun>& chosen,
                                const ReleaseOptions& options, const ProjectBudget& budget) {
    ReleaseManifest manifest;
    manifest.exportedAt = utcTimestamp();
    manifest.exportedBy = versionString();
    manifest.fromProject = project.path().filename().string();
    for (const auto& c : chosen) manifest.runs.push_back(c.run.id);
    manifest.includesTestMetrics = options.includeTestMetrics;
    manifest.unestablished = options.confirmUnestablished;
    manifest.epsilon = budget.total.epsilon;
    manifest.delta = budget.total.delta;
    manifest.releases = budget.total.releases;
    manifest.unit = budget.unit;
    return manifest;
}

// Checks what was written before anyone can see it: the chain holds, and the verdict of the file,
// read back from disk, is "DP release" with nothing non-private in it. Throws what is wrong.
void checkWrittenRelease(const fs::path& temp) {
    auto check = ProjectFile::open(temp, OpenMode::ReadOnly);
    if (!check) throw std::runtime_error("the release cannot be read back: " + check.error().message);
    auto chain = check->verifyChain();
    if (!chain || !chain->ok) throw std::runtime_error("internal: the release's hash chain does not verify");
    auto integrity = check->verifyIntegrity();
    if (!integrity) throw std::runtime_error(integrity.error().message);
    if (!integrity->ok())
        throw std::runtime_error("internal: the release does not verify: " + integrity->summaryLine());
    auto verdict = trustVerdict(*check);
    if (!verdict) throw std::runtime_error(verdict.error().message);
    if (!verdict->release || !verdict->dpOnly)
        throw std::runtime_error("internal: the release would hold non-private content: " + verdict->headline());
}

}  // namespace

namespace {

// Fills the new release file `temp`: the chosen runs (their model files next to it, listed in
// `writtenFiles` as they are written), the manifest, the seal and the signature; then compacts it
// with a rollback journal. Throws on a storage failure.
Status writeReleaseContent(const ProjectFile& project, const fs::path& temp, const std::vector<ChosenRun>& chosen,
                           const ReleaseOptions& options, const ReleaseManifest& manifest, const fs::path& modelsDir,
                           ReleaseSummary& summary, std::vector<fs::path>& writtenFiles) {
    Database db(temp.string(), Database::Mode::ReadWrite);
    configureConnection(db);
    Transaction t(db);
    ReleaseWriter writer(project, db, options, modelsDir);
    for (const auto& c : chosen) {
        auto e = writer.write(c);
        writtenFiles = writer.writtenFiles();
        if (e) return e;
    }
    Statement insert(db.handle(), "INSERT INTO release(manifest_json) VALUES(?)");
    insert.bind(1, releaseManifestToJson(manifest)).run();
    sealAllRows(db);
    // Signed over the content as committed: the seal is written with the commit (seal.h).
    if (options.signWith) insertSignature(db, *options.signWith);
    t.commit();
    // Nothing writes to a release again: a rollback journal lets it be read with no side
    // files (WAL would make every reader create -shm next to it).
    db.exec("PRAGMA journal_mode = DELETE");
    // Rewritten compactly: no stale copy of a row (from sealing) is left in free space,
    // so every byte of content is live and covered by the chain, seal and signature.
    db.exec("VACUUM");
    summary.rows = writer.rows();
    summary.modelFiles = static_cast<long long>(writer.writtenFiles().size());
    return std::nullopt;
}

}  // namespace

Result<ReleaseSummary> exportRelease(const ProjectFile& project, const fs::path& target,
                                     const ReleaseOptions& options) {
    if (project.isRelease())
        return Error{project.path().string() + " is a release already: export from the project it came from"};
    auto resolved = releaseTarget(project, target, options);
    if (!resolved) return resolved.error();
    const fs::path absoluteTarget = *resolved;
    std::error_code ec;

    // Every ledger says the label set is public because the spec declares it: a project an older
    // dpmix created from a source that did not declare it cannot make that claim (docs/PRIVACY.md, "Privacy budget").
    if (auto undeclared = refuseUndeclaredLabels(project.spec().sensitive.written))
        return Error{"cannot export a DP release of " + project.path().string() + ": " + undeclared->message};
    auto chosen = chooseRuns(project, options);
    if (!chosen) return chosen.error();
    const ProjectSpec spec = releasedSpec(project.spec());
    auto facts = releasedFacts(project, spec);
    if (!facts) return facts.error();

    std::vector<RunLedgers> ledgers;
    for (const auto& c : *chosen)
        ledgers.push_back({c.run, c.hasLedger ? std::vector<LedgerRecord>{c.ledger} : std::vector<LedgerRecord>{}});
    auto budget = budgetOf(project.spec(), ledgers);
    if (!budget) return budget.error();
    // Every exit checks the cap: a bundle that alone spends more than the data set may is no
    // release this project can make (the cap of the budget store and of the spec, the smaller).
    auto dataset = projectBudget(project);
    if (!dataset) return dataset.error();
    if (dataset->cap && !(budget->total.epsilon <= *dataset->cap * (1.0 + 1e-12)))
        return Error{"the chosen runs compose to epsilon " + privacy::formatNumber(budget->total.epsilon) + " on " +
                     budget->unit + ", over the data set's privacy budget cap " + privacy::formatNumber(*dataset->cap) +
                     ": no release was written. Choose fewer runs (--runs), or runs that spent less"};

    const ReleaseManifest manifest = releaseManifest(project, *chosen, options, *budget);

    const fs::path temp = absoluteTarget.string() + temporarySuffix();
    const fs::path modelsDir = absoluteTarget.parent_path() / (absoluteTarget.stem().string() + ".models");
    ReleaseSummary summary{absoluteTarget, manifest, {}, 0};
    std::vector<fs::path> writtenFiles;
    auto cleanUp = [&] {
        removeDatabaseFiles(temp);
        for (const auto& f : writtenFiles) fs::remove(f, ec);
        if (fs::is_empty(modelsDir, ec)) fs::remove(modelsDir, ec);
    };
    try {
        {
            auto created = ProjectFile::create(temp, spec, *facts, /*replace=*/true);
            if (!created) return created.error();
        }
        if (auto e = writeReleaseContent(project, temp, *chosen, options, manifest, modelsDir, summary, writtenFiles)) {
            cleanUp();
            return *e;
        }
        checkWrittenRelease(temp);
    } catch (const std::exception& e) {
        cleanUp();
        return storageError(absoluteTarget, "export the release", e);
    }
    bool published = false;
    try {
        published = publish(temp, absoluteTarget, options.replace);
    } catch (const std::exception& e) {
        cleanUp();
        return storageError(absoluteTarget, "publish the release", e);
    }
    if (!published) {
        cleanUp();
        return Error{"-o " + target.string() + ": already exists (another process created it meanwhile)"};
    }
    return summary;
}

}  // namespace dpmix::project
