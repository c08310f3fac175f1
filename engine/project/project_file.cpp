#include "engine/project/project_file.h"

#include "engine/core/version.h"
#include "engine/privacy/ledger_json.h"
#include "engine/project/schema.h"
#include "engine/data/sha256.h"
#include "engine/project/spec_json.h"
#include "engine/project/sqlite_db.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <set>
#include <sstream>

#include <unistd.h>

namespace dpmix::project {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string jsonStrings(const std::vector<std::string>& values) { return json(values).dump(); }

std::vector<std::string> stringsFromJson(const std::string& text) {
    const json j = json::parse(text, nullptr, false);
    std::vector<std::string> out;
    if (j.is_array())
        for (const auto& v : j)
            if (v.is_string()) out.push_back(v.get<std::string>());
    return out;
}

std::optional<double> optionalReal(const Statement& s, int column) {
    if (s.isNull(column)) return std::nullopt;
    return s.real(column);
}

std::string optionalText(const Statement& s, int column) { return s.isNull(column) ? std::string() : s.text(column); }

Error storageError(const fs::path& file, const std::string& action, const std::exception& e) {
    return Error{file.string() + ": cannot " + action + ": " + e.what()};
}

void removeDatabaseFiles(const fs::path& file) {
    std::error_code ignored;
    fs::remove(file, ignored);
    fs::remove(file.string() + "-wal", ignored);
    fs::remove(file.string() + "-shm", ignored);
    fs::remove(file.string() + "-journal", ignored);
}

void configureConnection(Database& db) {
    db.exec("PRAGMA journal_mode = WAL");
    // FULL: a commit is on disk before the call returns (NORMAL would survive a process kill
    // but could lose the last commits on power loss).
    db.exec("PRAGMA synchronous = FULL");
    db.exec("PRAGMA foreign_keys = ON");
}

void requireRun(Database& db, long long runId) {
    Statement s(db.handle(), "SELECT 1 FROM runs WHERE id = ?");
    s.bind(1, static_cast<std::int64_t>(runId));
    if (!s.step()) throw SqliteError("run " + std::to_string(runId) + " does not exist");
}

// Checks that every task class is a label of the data it is defined over.
std::optional<Error> checkTasksAgainstFacts(const ProjectSpec& spec, const std::vector<SourceFacts>& facts) {
    std::set<std::string> publicLabels;
    for (std::size_t i = 0; i < spec.publicSources.size(); ++i)
        publicLabels.insert(facts[i].labelNames.begin(), facts[i].labelNames.end());
    const SourceFacts& sensitive = facts.back();
    const std::set<std::string> sensitiveLabels(sensitive.labelNames.begin(), sensitive.labelNames.end());
    auto check = [](const std::vector<LabelTask>& tasks, const std::set<std::string>& labels,
                    const std::string& scope, const std::string& what) -> std::optional<Error> {
        for (std::size_t t = 0; t < tasks.size(); ++t)
            for (std::size_t c = 0; c < tasks[t].classes.size(); ++c)
                if (!labels.count(tasks[t].classes[c])) {
                    std::string list;
                    for (const auto& l : labels) list += (list.empty() ? "" : ", ") + ("\"" + l + "\"");
                    return Error{"tasks." + scope + "[" + std::to_string(t) + "].classes[" + std::to_string(c) +
                                 "]: \"" + tasks[t].classes[c] + "\" is not a label of " + what +
                                 (labels.empty() ? " (it has no labels)" : " (labels: " + list + ")")};
                }
        return std::nullopt;
    };
    if (auto e = check(spec.publicTasks, publicLabels, "public", "the public sources")) return e;
    if (auto e = check(spec.sensitiveTasks, sensitiveLabels, "sensitive",
                       "the sensitive source \"" + spec.sensitive.written.name + "\""))
        return e;
    if (spec.sensitive.userLevel && sensitive.users <= 0)
        return Error{"sensitive.user_level: true, but the sensitive source \"" + spec.sensitive.written.name +
                     "\" has no user ids (user-level privacy needs one user per example)"};
    return std::nullopt;
}

void insertSource(Database& db, const std::string& role, const SpecSource& source, const SourceFacts& facts) {
    const data::SourceSpec& s = source.resolved.path.empty() ? source.written : source.resolved;
    json options = json::object();
    for (const auto& [k, v] : s.options) options[k] = v;
    Statement insert(db.handle(),
                     "INSERT INTO sources(role, name, loader, path, options_json, user_level, kind, examples, users, "
                     "label_names_json, domains_json, channels, height, width, content_hash) "
                     "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    insert.bind(1, role).bind(2, s.name).bind(3, s.loader).bind(4, s.path).bind(5, options.dump());
    insert.bind(6, source.userLevel ? 1 : 0).bind(7, facts.kind).bind(8, static_cast<std::int64_t>(facts.examples));
    insert.bind(9, static_cast<std::int64_t>(facts.users)).bind(10, jsonStrings(facts.labelNames));
    insert.bind(11, jsonStrings(facts.domains)).bind(12, facts.channels).bind(13, facts.height);
    insert.bind(14, facts.width).bind(15, facts.contentHash);
    insert.run();
    sealRow(db, chainedTable("sources"), db.lastInsertRowId());
}

bool allowedTransition(RunStatus from, RunStatus to) {
    switch (from) {
    case RunStatus::Queued: return to == RunStatus::Running || to == RunStatus::Cancelled || to == RunStatus::Failed;
    case RunStatus::Running: return to == RunStatus::Done || to == RunStatus::Failed || to == RunStatus::Cancelled;
    default: return false;
    }
}

RunRecord readRun(const Statement& s) {
    RunRecord r;
    r.id = s.integer(0);
    r.method = s.text(1);
    r.task = s.text(2);
    r.epsilon = optionalReal(s, 3);
    r.seed = s.integer(4);
    r.configJson = s.text(5);
    r.buildVersion = s.text(6);
    r.createdAt = s.text(7);
    parseRunStatus(s.text(8), r.status);
    r.startedAt = optionalText(s, 9);
    r.finishedAt = optionalText(s, 10);
    r.message = s.text(11);
    return r;
}

constexpr const char* kRunColumns =
    "id, method, task, epsilon, seed, config_json, build_version, created_at, status, started_at, finished_at, message";

}  // namespace

std::string toString(RunStatus status) {
    switch (status) {
    case RunStatus::Queued: return "queued";
    case RunStatus::Running: return "running";
    case RunStatus::Done: return "done";
    case RunStatus::Failed: return "failed";
    case RunStatus::Cancelled: return "cancelled";
    }
    return "queued";
}

bool parseRunStatus(const std::string& text, RunStatus& out) {
    for (RunStatus s : {RunStatus::Queued, RunStatus::Running, RunStatus::Done, RunStatus::Failed, RunStatus::Cancelled})
        if (toString(s) == text) {
            out = s;
            return true;
        }
    return false;
}

std::string utcTimestamp() {
    const auto now = std::chrono::system_clock::now();
    const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
    const auto millis =
        std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
    std::tm tm{};
    gmtime_r(&seconds, &tm);
    char buffer[40];
    std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                  tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(millis));
    return buffer;
}

bool isSqliteFile(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    char header[16] = {};
    if (!in.read(header, sizeof header)) return false;
    return std::string(header, sizeof header) == std::string("SQLite format 3\0", 16);
}

ProjectFile::ProjectFile(fs::path path, std::unique_ptr<Database> db) : path_(std::move(path)), db_(std::move(db)) {}
ProjectFile::ProjectFile(ProjectFile&&) noexcept = default;
ProjectFile& ProjectFile::operator=(ProjectFile&&) noexcept = default;
ProjectFile::~ProjectFile() = default;

fs::path ProjectFile::modelsDir() const { return path_.parent_path() / (path_.stem().string() + ".models"); }

Result<ProjectFile> ProjectFile::create(const fs::path& file, const ProjectSpec& spec,
                                        const std::vector<SourceFacts>& facts, bool replace) {
    if (facts.size() != spec.publicSources.size() + 1)
        return Error{"internal: " + std::to_string(facts.size()) + " source summaries for " +
                     std::to_string(spec.publicSources.size() + 1) + " sources"};
    if (auto e = checkTasksAgainstFacts(spec, facts)) return *e;
    if (fs::exists(file) && !replace)
        return Error{file.string() + " already exists (choose another name, or replace it with --force)"};
    if (fs::is_directory(file)) return Error{file.string() + " is a folder"};

    const fs::path temp = file.string() + ".tmp-" + std::to_string(::getpid());
    removeDatabaseFiles(temp);
    try {
        {
            Database db(temp.string(), Database::Mode::ReadWriteCreate);
            configureConnection(db);
            Transaction t(db);
            createCurrentSchema(db);
            Statement insert(db.handle(), "INSERT INTO spec(spec_json, created_at, created_by) VALUES(?,?,?)");
            insert.bind(1, projectSpecToJson(spec)).bind(2, utcTimestamp()).bind(3, versionString()).run();
            sealRow(db, chainedTable("spec"), db.lastInsertRowId());
            for (std::size_t i = 0; i < spec.publicSources.size(); ++i)
                insertSource(db, "public", spec.publicSources[i], facts[i]);
            insertSource(db, "sensitive", spec.sensitive, facts.back());
            t.commit();
        }  // closing the last connection checkpoints the WAL into the file
        // A stale -wal of the file being replaced would be replayed into the new one: drop it.
        removeDatabaseFiles(file);
        fs::rename(temp, file);
    } catch (const std::exception& e) {
        removeDatabaseFiles(temp);
        return storageError(file, "create the project", e);
    }
    return open(file);
}

Result<ProjectFile> ProjectFile::open(const fs::path& file) {
    const std::string name = file.string();
    std::error_code ec;
    if (!fs::exists(file, ec)) return Error{name + ": no such project file"};
    if (fs::is_directory(file, ec)) return Error{name + ": is a folder, not a project file"};
    if (!isSqliteFile(file))
        return Error{name + ": not a dpmix project file (not an SQLite database; a project file is made with "
                            "`dpmix new SPEC.json -o FILE.dpmix`)"};
    try {
        auto db = std::make_unique<Database>(name, Database::Mode::ReadWrite);
        // Only reads until the file is known to be ours and not newer than this build.
        const auto applicationId = db->pragmaInteger("application_id");
        const auto version = db->pragmaInteger("user_version");
        if (applicationId != kApplicationId)
            return Error{name + ": an SQLite database, but not a dpmix project (application_id " +
                         std::to_string(applicationId) + ", expected " + std::to_string(kApplicationId) + ")"};
        if (version > kSchemaVersion)
            return Error{name + ": written by a newer dpmix (schema version " + std::to_string(version) +
                         "; this dpmix " + versionString() + " reads versions up to " +
                         std::to_string(kSchemaVersion) + "). Open it with a newer dpmix; the file was not changed."};
        if (version < 1)
            return Error{name + ": a dpmix project without a schema version (user_version " + std::to_string(version) +
                         "); the file is damaged"};
        configureConnection(*db);
        if (version < kSchemaVersion) {
            Transaction t(*db);
            migrateToCurrent(*db, version);
            t.commit();
        }
        ProjectFile project(fs::absolute(file), std::move(db));
        if (auto loaded = project.loadSpec(); !loaded) return loaded.error();
        return project;
    } catch (const std::exception& e) {
        return storageError(file, "open the project", e);
    }
}

Result<bool> ProjectFile::loadSpec() {
    Statement s(db_->handle(), "SELECT spec_json, created_at, created_by FROM spec ORDER BY id LIMIT 1");
    if (!s.step()) return Error{path_.string() + ": the project has no spec"};
    specJson_ = s.text(0);
    createdAt_ = s.text(1);
    createdBy_ = s.text(2);
    auto spec = parseProjectSpec(specJson_, SpecLocation{path_.parent_path(), {}, false}, path_.string() + " (stored spec)");
    if (!spec) return spec.error();
    spec_ = std::move(spec).value();
    return true;
}

Result<std::vector<SourceRecord>> ProjectFile::sources() const {
    try {
        Statement s(db_->handle(),
                    "SELECT role, name, loader, path, options_json, user_level, kind, examples, users, label_names_json, "
                    "domains_json, channels, height, width, content_hash FROM sources ORDER BY id");
        std::vector<SourceRecord> out;
        while (s.step()) {
            SourceRecord r;
            r.role = s.text(0);
            r.name = s.text(1);
            r.loader = s.text(2);
            r.path = s.text(3);
            r.optionsJson = s.text(4);
            r.userLevel = s.integer(5) != 0;
            r.facts.kind = s.text(6);
            r.facts.examples = s.integer(7);
            r.facts.users = s.integer(8);
            r.facts.labelNames = stringsFromJson(s.text(9));
            r.facts.domains = stringsFromJson(s.text(10));
            r.facts.channels = static_cast<int>(s.integer(11));
            r.facts.height = static_cast<int>(s.integer(12));
            r.facts.width = static_cast<int>(s.integer(13));
            r.facts.contentHash = s.text(14);
            out.push_back(std::move(r));
        }
        return out;
    } catch (const std::exception& e) {
        return storageError(path_, "read sources", e);
    }
}

Result<long long> ProjectFile::addRun(const NewRun& run) {
    if (run.method.empty()) return Error{"run method: empty (expected e.g. \"dp-mixmin\")"};
    if (run.epsilon && !(*run.epsilon > 0)) return Error{"run epsilon: expected ε > 0 or none"};
    if (json::parse(run.configJson, nullptr, false).is_discarded())
        return Error{"run config: not valid JSON: " + run.configJson.substr(0, 60)};
    try {
        Transaction t(*db_);
        Statement s(db_->handle(),
                    "INSERT INTO runs(method, task, epsilon, seed, config_json, build_version, created_at, status) "
                    "VALUES(?,?,?,?,?,?,?,'queued')");
        s.bind(1, run.method).bind(2, run.task).bind(3, run.epsilon).bind(4, static_cast<std::int64_t>(run.seed));
        s.bind(5, run.configJson).bind(6, versionString()).bind(7, utcTimestamp()).run();
        const auto id = db_->lastInsertRowId();
        sealRow(*db_, chainedTable("runs"), id);
        t.commit();
        return static_cast<long long>(id);
    } catch (const std::exception& e) {
        return storageError(path_, "add a run", e);
    }
}

Result<RunRecord> ProjectFile::run(long long runId) const {
    try {
        Statement s(db_->handle(), std::string("SELECT ") + kRunColumns + " FROM runs WHERE id = ?");
        s.bind(1, static_cast<std::int64_t>(runId));
        if (!s.step()) return Error{path_.string() + ": run " + std::to_string(runId) + " does not exist"};
        return readRun(s);
    } catch (const std::exception& e) {
        return storageError(path_, "read run " + std::to_string(runId), e);
    }
}

Result<std::vector<RunRecord>> ProjectFile::runs() const {
    try {
        Statement s(db_->handle(), std::string("SELECT ") + kRunColumns + " FROM runs ORDER BY id");
        std::vector<RunRecord> out;
        while (s.step()) out.push_back(readRun(s));
        return out;
    } catch (const std::exception& e) {
        return storageError(path_, "read runs", e);
    }
}

Result<RunRecord> ProjectFile::setRunStatus(long long runId, RunStatus status, const std::string& message) {
    try {
        {
            Transaction t(*db_);
            auto current = run(runId);
            if (!current) return current.error();
            if (!allowedTransition(current->status, status))
                return Error{"run " + std::to_string(runId) + " is " + toString(current->status) + "; it cannot become " +
                             toString(status)};
            const std::string column = status == RunStatus::Running ? "started_at" : "finished_at";
            Statement s(db_->handle(), "UPDATE runs SET status = ?, message = ?, " + column + " = ? WHERE id = ?");
            s.bind(1, toString(status)).bind(2, message).bind(3, utcTimestamp()).bind(4, static_cast<std::int64_t>(runId));
            s.run();
            t.commit();
        }
        return run(runId);
    } catch (const std::exception& e) {
        return storageError(path_, "update run " + std::to_string(runId), e);
    }
}

Result<long long> ProjectFile::recordLedger(long long runId, const privacy::Ledger& ledger,
                                            std::optional<double> reportedEpsilon) {
    try {
        const privacy::LedgerTotal total = ledger.total();
        Transaction t(*db_);
        requireRun(*db_, runId);
        Statement s(db_->handle(),
                    "INSERT INTO ledgers(run_id, recorded_at, ledger_json, recorded_epsilon, recorded_delta) "
                    "VALUES(?,?,?,?,?)");
        s.bind(1, static_cast<std::int64_t>(runId)).bind(2, utcTimestamp()).bind(3, privacy::ledgerToJson(ledger));
        s.bind(4, reportedEpsilon.value_or(total.epsilon)).bind(5, total.delta).run();
        const auto id = db_->lastInsertRowId();
        sealRow(*db_, chainedTable("ledgers"), id);
        t.commit();
        return static_cast<long long>(id);
    } catch (const std::exception& e) {
        return storageError(path_, "record the ledger of run " + std::to_string(runId), e);
    }
}

Result<std::vector<LedgerRecord>> ProjectFile::ledgers(long long runId) const {
    try {
        Statement s(db_->handle(),
                    "SELECT id, run_id, recorded_at, ledger_json, recorded_epsilon, recorded_delta FROM ledgers "
                    "WHERE run_id = ? ORDER BY id");
        s.bind(1, static_cast<std::int64_t>(runId));
        std::vector<LedgerRecord> out;
        while (s.step()) {
            LedgerRecord r;
            r.id = s.integer(0);
            r.runId = s.integer(1);
            r.recordedAt = s.text(2);
            r.ledgerJson = s.text(3);
            // SQLite stores NaN as NULL; an infinite ε (non-private) round-trips as a REAL.
            r.recordedEpsilon = s.isNull(4) ? std::nan("") : s.real(4);
            r.recordedDelta = s.isNull(5) ? std::nan("") : s.real(5);
            out.push_back(std::move(r));
        }
        return out;
    } catch (const std::exception& e) {
        return storageError(path_, "read ledgers", e);
    }
}

Result<long long> ProjectFile::addLambda(const LambdaRecord& lambda) {
    if (lambda.values.empty()) return Error{"λ (" + lambda.kind + "): empty weight vector"};
    if (!lambda.names.empty() && lambda.names.size() != lambda.values.size())
        return Error{"λ (" + lambda.kind + "): " + std::to_string(lambda.names.size()) + " names for " +
                     std::to_string(lambda.values.size()) + " weights"};
    try {
        Transaction t(*db_);
        requireRun(*db_, lambda.runId);
        Statement s(db_->handle(), "INSERT INTO lambdas(run_id, kind, names_json, values_json) VALUES(?,?,?,?)");
        s.bind(1, static_cast<std::int64_t>(lambda.runId)).bind(2, lambda.kind).bind(3, jsonStrings(lambda.names));
        s.bind(4, json(lambda.values).dump()).run();
        const auto id = db_->lastInsertRowId();
        sealRow(*db_, chainedTable("lambdas"), id);
        t.commit();
        return static_cast<long long>(id);
    } catch (const std::exception& e) {
        return storageError(path_, "add λ", e);
    }
}

Result<long long> ProjectFile::addMetrics(const std::vector<MetricRecord>& metrics) {
    try {
        Transaction t(*db_);
        Statement s(db_->handle(), "INSERT INTO metrics(run_id, name, class_name, value) VALUES(?,?,?,?)");
        RowSealer sealer(*db_, chainedTable("metrics"));
        for (const MetricRecord& m : metrics) {
            requireRun(*db_, m.runId);
            s.bind(1, static_cast<std::int64_t>(m.runId)).bind(2, m.name).bind(3, m.className).bind(4, m.value).run();
            sealer.seal(db_->lastInsertRowId());
        }
        t.commit();
        return static_cast<long long>(metrics.size());
    } catch (const std::exception& e) {
        return storageError(path_, "add metrics", e);
    }
}

Result<long long> ProjectFile::addCurve(long long runId, const std::string& name, const std::vector<CurvePoint>& points) {
    if (name.empty()) return Error{"curve name: empty"};
    try {
        Transaction t(*db_);
        requireRun(*db_, runId);
        Statement s(db_->handle(), "INSERT INTO curves(run_id, name, step, value) VALUES(?,?,?,?)");
        RowSealer sealer(*db_, chainedTable("curves"));
        for (const CurvePoint& p : points) {
            s.bind(1, static_cast<std::int64_t>(runId)).bind(2, name).bind(3, static_cast<std::int64_t>(p.step));
            s.bind(4, p.value).run();
            sealer.seal(db_->lastInsertRowId());
        }
        t.commit();
        return static_cast<long long>(points.size());
    } catch (const std::exception& e) {
        return storageError(path_, "add curve \"" + name + "\"", e);
    }
}

Result<long long> ProjectFile::addAudit(const AuditRecord& a) {
    if (json::parse(a.detailsJson, nullptr, false).is_discarded()) return Error{"audit details: not valid JSON"};
    try {
        Transaction t(*db_);
        requireRun(*db_, a.runId);
        Statement s(db_->handle(),
                    "INSERT INTO audits(run_id, name, false_positives, false_negatives, negatives, positives, delta, "
                    "confidence, epsilon_lower_bound, details_json) VALUES(?,?,?,?,?,?,?,?,?,?)");
        s.bind(1, static_cast<std::int64_t>(a.runId)).bind(2, a.name);
        s.bind(3, static_cast<std::int64_t>(a.counts.falsePositives));
        s.bind(4, static_cast<std::int64_t>(a.counts.falseNegatives));
        s.bind(5, static_cast<std::int64_t>(a.counts.negatives)).bind(6, static_cast<std::int64_t>(a.counts.positives));
        s.bind(7, a.delta).bind(8, a.confidence).bind(9, a.epsilonLowerBound).bind(10, a.detailsJson).run();
        const auto id = db_->lastInsertRowId();
        sealRow(*db_, chainedTable("audits"), id);
        t.commit();
        return static_cast<long long>(id);
    } catch (const std::exception& e) {
        return storageError(path_, "add an audit", e);
    }
}

Result<long long> ProjectFile::addLog(long long runId, const std::string& level, const std::string& message) {
    try {
        Transaction t(*db_);
        requireRun(*db_, runId);
        Statement s(db_->handle(), "INSERT INTO logs(run_id, at, level, message) VALUES(?,?,?,?)");
        s.bind(1, static_cast<std::int64_t>(runId)).bind(2, utcTimestamp()).bind(3, level).bind(4, message).run();
        const auto id = db_->lastInsertRowId();
        sealRow(*db_, chainedTable("logs"), id);
        t.commit();
        return static_cast<long long>(id);
    } catch (const std::exception& e) {
        return storageError(path_, "add a log line", e);
    }
}

Result<ModelRecord> ProjectFile::storeModel(long long runId, const std::string& name, const std::string& bytes) {
    ModelRecord m;
    m.runId = runId;
    m.name = name;
    m.contentHash = data::sha256Hex(bytes);
    m.fileName = m.contentHash + ".bin";
    m.bytes = static_cast<long long>(bytes.size());
    try {
        requireRun(*db_, runId);
        const fs::path dir = modelsDir();
        fs::create_directories(dir);
        const fs::path target = dir / m.fileName;
        // Content-addressed: an existing file with this name already holds these bytes.
        if (!fs::exists(target)) {
            const fs::path temp = target.string() + ".tmp-" + std::to_string(::getpid());
            {
                std::ofstream out(temp, std::ios::binary | std::ios::trunc);
                out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
                out.flush();
                if (!out) throw std::runtime_error("cannot write " + temp.string());
            }
            fs::rename(temp, target);
        }
        Transaction t(*db_);
        Statement s(db_->handle(),
                    "INSERT INTO models(run_id, name, content_hash, file_name, bytes) VALUES(?,?,?,?,?)");
        s.bind(1, static_cast<std::int64_t>(runId)).bind(2, name).bind(3, m.contentHash).bind(4, m.fileName);
        s.bind(5, static_cast<std::int64_t>(m.bytes)).run();
        sealRow(*db_, chainedTable("models"), db_->lastInsertRowId());
        t.commit();
        return m;
    } catch (const std::exception& e) {
        return storageError(path_, "store model \"" + name + "\"", e);
    }
}

Result<std::string> ProjectFile::loadModel(const ModelRecord& model) const {
    const fs::path file = modelsDir() / model.fileName;
    std::ifstream in(file, std::ios::binary);
    if (!in) return Error{file.string() + ": model file missing (it must sit next to the project file)"};
    std::ostringstream bytes;
    bytes << in.rdbuf();
    const std::string data = bytes.str();
    if (data::sha256Hex(data) != model.contentHash)
        return Error{file.string() + ": content does not match its recorded SHA-256 " + model.contentHash};
    return data;
}

Result<std::vector<LambdaRecord>> ProjectFile::lambdas(long long runId) const {
    try {
        Statement s(db_->handle(), "SELECT run_id, kind, names_json, values_json FROM lambdas WHERE run_id = ? ORDER BY id");
        s.bind(1, static_cast<std::int64_t>(runId));
        std::vector<LambdaRecord> out;
        while (s.step()) {
            LambdaRecord r;
            r.runId = s.integer(0);
            r.kind = s.text(1);
            r.names = stringsFromJson(s.text(2));
            const json values = json::parse(s.text(3), nullptr, false);
            if (values.is_array())
                for (const auto& v : values) r.values.push_back(v.is_number() ? v.get<double>() : std::nan(""));
            out.push_back(std::move(r));
        }
        return out;
    } catch (const std::exception& e) {
        return storageError(path_, "read λ", e);
    }
}

Result<std::vector<MetricRecord>> ProjectFile::metrics(long long runId) const {
    try {
        Statement s(db_->handle(), "SELECT run_id, name, class_name, value FROM metrics WHERE run_id = ? ORDER BY id");
        s.bind(1, static_cast<std::int64_t>(runId));
        std::vector<MetricRecord> out;
        while (s.step())
            out.push_back({s.integer(0), s.text(1), s.text(2), s.isNull(3) ? std::nan("") : s.real(3)});
        return out;
    } catch (const std::exception& e) {
        return storageError(path_, "read metrics", e);
    }
}

Result<std::vector<std::string>> ProjectFile::curveNames(long long runId) const {
    try {
        Statement s(db_->handle(), "SELECT name FROM curves WHERE run_id = ? GROUP BY name ORDER BY MIN(id)");
        s.bind(1, static_cast<std::int64_t>(runId));
        std::vector<std::string> out;
        while (s.step()) out.push_back(s.text(0));
        return out;
    } catch (const std::exception& e) {
        return storageError(path_, "read curve names", e);
    }
}

Result<std::vector<CurvePoint>> ProjectFile::curve(long long runId, const std::string& name) const {
    try {
        Statement s(db_->handle(), "SELECT step, value FROM curves WHERE run_id = ? AND name = ? ORDER BY step, id");
        s.bind(1, static_cast<std::int64_t>(runId)).bind(2, name);
        std::vector<CurvePoint> out;
        while (s.step()) out.push_back({s.integer(0), s.isNull(1) ? std::nan("") : s.real(1)});
        return out;
    } catch (const std::exception& e) {
        return storageError(path_, "read curve \"" + name + "\"", e);
    }
}

Result<std::vector<AuditRecord>> ProjectFile::audits(long long runId) const {
    try {
        Statement s(db_->handle(),
                    "SELECT run_id, name, false_positives, false_negatives, negatives, positives, delta, confidence, "
                    "epsilon_lower_bound, details_json FROM audits WHERE run_id = ? ORDER BY id");
        s.bind(1, static_cast<std::int64_t>(runId));
        std::vector<AuditRecord> out;
        while (s.step()) {
            AuditRecord a;
            a.runId = s.integer(0);
            a.name = s.text(1);
            a.counts = {s.integer(2), s.integer(3), s.integer(4), s.integer(5)};
            a.delta = s.real(6);
            a.confidence = s.real(7);
            a.epsilonLowerBound = s.real(8);
            a.detailsJson = s.text(9);
            out.push_back(std::move(a));
        }
        return out;
    } catch (const std::exception& e) {
        return storageError(path_, "read audits", e);
    }
}

Result<std::vector<LogRecord>> ProjectFile::logs(long long runId) const {
    try {
        Statement s(db_->handle(), "SELECT run_id, at, level, message FROM logs WHERE run_id = ? ORDER BY id");
        s.bind(1, static_cast<std::int64_t>(runId));
        std::vector<LogRecord> out;
        while (s.step()) out.push_back({s.integer(0), s.text(1), s.text(2), s.text(3)});
        return out;
    } catch (const std::exception& e) {
        return storageError(path_, "read logs", e);
    }
}

Result<std::vector<ModelRecord>> ProjectFile::models(long long runId) const {
    try {
        Statement s(db_->handle(),
                    "SELECT run_id, name, content_hash, file_name, bytes FROM models WHERE run_id = ? ORDER BY id");
        s.bind(1, static_cast<std::int64_t>(runId));
        std::vector<ModelRecord> out;
        while (s.step()) out.push_back({s.integer(0), s.text(1), s.text(2), s.text(3), s.integer(4)});
        return out;
    } catch (const std::exception& e) {
        return storageError(path_, "read models", e);
    }
}

Result<ChainVerification> ProjectFile::verifyChain() const {
    try {
        return verifyChains(*db_);
    } catch (const std::exception& e) {
        return storageError(path_, "verify the hash chain", e);
    }
}

}  // namespace dpmix::project
