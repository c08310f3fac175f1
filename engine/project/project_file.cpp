#include "engine/project/project_file.h"

#include "engine/core/file_door.h"
#include "engine/core/version.h"
#include "engine/data/image_fit.h"
#include "engine/data/sha256.h"
#include "engine/privacy/ledger_json.h"
#include "engine/project/file_publishing.h"
#include "engine/project/process_identity.h"
#include "engine/project/project_file_support.h"
#include "engine/project/run_transitions.h"
#include "engine/project/schema.h"
#include "engine/project/seal.h"
#include "engine/project/spec_fact_checks.h"
#include "engine/project/spec_json.h"
#include "engine/project/sqlite_db.h"
#include "engine/project/wal_check.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace dpmix::project {
using namespace detail;
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

bool writable(const fs::path& p) { return ::access(p.c_str(), W_OK) == 0; }

void bindOwner(Statement& s, int first, const ProcessIdentity& p) {
    s.bind(first, p.host).bind(first + 1, static_cast<std::int64_t>(p.pid));
    if (p.start.empty())
        s.bindNull(first + 2);
    else
        s.bind(first + 2, p.start);
}

void insertSource(Database& db, SourceRole role, const SpecSource& source, const SourceFacts& facts) {
    const data::SourceSpec& s = source.resolved.path.empty() ? source.written : source.resolved;
    json options = json::object();
    for (const auto& [k, v] : s.options) options[k] = v;
    Statement insert(db.handle(),
                     "INSERT INTO sources(role, name, loader, path, options_json, user_level, kind, examples, users, "
                     "label_names_json, domains_json, channels, height, width, content_hash) "
                     "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    insert.bind(1, nameOf(role)).bind(2, s.name).bind(3, s.loader).bind(4, s.path).bind(5, options.dump());
    insert.bind(6, source.userLevel ? 1 : 0)
        .bind(7, data::nameOf(facts.kind))
        .bind(8, static_cast<std::int64_t>(facts.examples));
    insert.bind(9, static_cast<std::int64_t>(facts.users)).bind(10, jsonStrings(facts.labelNames));
    insert.bind(11, jsonStrings(facts.domains)).bind(12, facts.channels).bind(13, facts.height);
    insert.bind(14, facts.width).bind(15, facts.contentHash);
    insert.run();
    sealRow(db, chainedTable("sources"), db.lastInsertRowId());
}

bool allowedTransition(RunStatus from, RunStatus to) {
    switch (from) {
        case RunStatus::Queued:
            return to == RunStatus::Running || to == RunStatus::Cancelled || to == RunStatus::Failed ||
                   to == RunStatus::Interrupted;
        case RunStatus::Running:
            return to == RunStatus::Done || to == RunStatus::Failed || to == RunStatus::Cancelled ||
                   to == RunStatus::Interrupted;
        default: return false;  // done, failed, cancelled and interrupted are final
    }
}

// Why a run cannot be done: a result SQLite holds as NULL (a NaN metric; a NaN/∞ λ weight,
// which JSON writes as null) or a ledger without a number for ε or δ. Empty: nothing wrong.
std::string nonFiniteResultOf(Database& db, long long runId) {
    auto count = [&](const std::string& sql) {
        Statement s(db.handle(), sql);
        s.bind(1, static_cast<std::int64_t>(runId));
        return s.step() ? s.integer(0) : 0;
    };
    if (count("SELECT count(*) FROM metrics WHERE run_id = ? AND value IS NULL") > 0)
        return "a metric that is not a number";
    if (count("SELECT count(*) FROM lambdas WHERE run_id = ? AND values_json LIKE '%null%'") > 0)
        return "a λ weight that is not a finite number";
    if (count(
            "SELECT count(*) FROM ledgers WHERE run_id = ? AND (recorded_epsilon IS NULL OR recorded_delta IS NULL)") >
        0)
        return "a ledger whose ε or δ is not a number";
    return {};
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
    const std::string status = s.text(8);
    r.startedAt = optionalText(s, 9);
    r.finishedAt = optionalText(s, 10);
    r.message = s.text(11);
    if (s.columnCount() > 14 && !s.isNull(13))
        r.owner = {s.isNull(12) ? std::string() : s.text(12), s.integer(13), s.isNull(14) ? std::string() : s.text(14)};
    // A status outside the schema (only possible behind the API) is never read as a state the
    // run could be in: it reads as failed, and the message says what was stored.
    if (!parseRunStatus(status, r.status)) {
        r.status = RunStatus::Failed;
        r.message = "invalid status '" + status + "' stored in the file (outside the schema); " + r.message;
    }
    return r;
}

constexpr const char* kRunColumns =
    "id, method, task, epsilon, seed, config_json, build_version, created_at, status, started_at, finished_at, message";
// v3 and later also record the run's process (a v2 file read read-only has no such columns).
constexpr const char* kRunOwnerColumns = ", owner_host, owner_pid, owner_start";

}  // namespace

std::string toString(RunStatus status) {
    switch (status) {
        case RunStatus::Queued: return "queued";
        case RunStatus::Running: return "running";
        case RunStatus::Done: return "done";
        case RunStatus::Failed: return "failed";
        case RunStatus::Cancelled: return "cancelled";
        case RunStatus::Interrupted: return "interrupted";
    }
    return "queued";
}

bool parseRunStatus(const std::string& text, RunStatus& out) {
    for (RunStatus s : {RunStatus::Queued, RunStatus::Running, RunStatus::Done, RunStatus::Failed, RunStatus::Cancelled,
                        RunStatus::Interrupted})
        if (toString(s) == text) {
            out = s;
            return true;
        }
    return false;
}

std::string utcTimestamp() {
    const auto now = std::chrono::system_clock::now();
    const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
    const auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
    std::tm tm{};
    gmtime_r(&seconds, &tm);
    char buffer[40];
    std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                  tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(millis));
    return buffer;
}

bool isSqliteFile(const fs::path& file) {
    if (openInThisProcess(file.string())) return true;  // reading it would drop this process's locks on it
    auto registry = openRegistryLock();
    // Through the door: a FIFO or device is not read (it would block or never end).
    auto header = files::readPrefix(file.string(), "a project file", 16);
    return header && *header == std::string("SQLite format 3\0", 16);
}

ProjectFile::ProjectFile(fs::path path, std::unique_ptr<Database> db, bool readOnly)
    : path_(std::move(path)), db_(std::move(db)), readOnly_(readOnly) {}
ProjectFile::ProjectFile(ProjectFile&&) noexcept = default;
ProjectFile& ProjectFile::operator=(ProjectFile&&) noexcept = default;
ProjectFile::~ProjectFile() = default;

fs::path ProjectFile::modelsDir() const { return path_.parent_path() / (path_.stem().string() + ".models"); }

void ProjectFile::setBusyTimeout(int milliseconds) { db_->setBusyTimeout(milliseconds); }

Status ProjectFile::refuseWrite(const std::string& action) const {
    if (!readOnly_) return std::nullopt;
    if (isRelease())
        return Error{path_.string() + ": cannot " + action +
                     ": the file is a DP release (made by dpmix export-release), which is read-only; add runs to the "
                     "project it was exported from"};
    return Error{path_.string() + ": cannot " + action +
                 ": the project is open read-only (the file or its folder is not writable, or it was opened "
                 "read-only); open a writable copy to add runs"};
}

Result<ProjectFile> ProjectFile::create(const fs::path& file, const ProjectSpec& spec,
                                        const std::vector<SourceFacts>& facts, bool replace) {
    return createImpl(file, spec, facts, replace ? IfExists::Replace : IfExists::Fail, nullptr);
}

Result<ProjectFile> ProjectFile::createOrOpen(const fs::path& file, const ProjectSpec& spec,
                                              const std::vector<SourceFacts>& facts, bool* created) {
    return createImpl(file, spec, facts, IfExists::Open, created);
}

Result<ProjectFile> ProjectFile::openExisting(const fs::path& file, const ProjectSpec& spec) {
    auto project = open(file);
    if (!project) return project.error();
    // A spec that does not name its accountant continues the project with the one it has (a
    // project an older dpmix created keeps RDP); the rest must be the same spec.
    ProjectSpec incoming = spec;
    if (!incoming.privacy.accountantNamed) incoming.privacy.accountant = project->spec().privacy.accountant;
    if (projectSpecToJson(project->spec()) != projectSpecToJson(incoming))
        return Error{file.string() +
                     " exists and was created from a different spec; open the project file itself, "
                     "or remove it to start over from the spec"};
    return project;
}

Result<ProjectFile> ProjectFile::createImpl(const fs::path& file, const ProjectSpec& spec,
                                            const std::vector<SourceFacts>& facts, IfExists ifExists, bool* created) {
    if (created) *created = false;
    if (facts.size() != spec.publicSources.size() + 1)
        return Error{"internal: " + std::to_string(facts.size()) + " source summaries for " +
                     std::to_string(spec.publicSources.size() + 1) + " sources"};
    if (auto e = checkSpecAgainstFacts(spec, facts)) return *e;
    if (auto e = files::checkOutputPath(file.string(), "a project file (.dpmix) to create")) return *e;
    const std::string exists = file.string() + " already exists (choose another name, or replace it with --force)";
    if (files::exists(file.string())) {  // a fast answer; publishing below is what makes it safe
        if (ifExists == IfExists::Fail) return Error{exists};
        if (ifExists == IfExists::Open) return openExisting(file, spec);
    }

    const fs::path temp = file.string() + temporarySuffix();
    removeDatabaseFiles(temp);
    bool published = false;
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
                insertSource(db, SourceRole::Public, spec.publicSources[i], facts[i]);
            insertSource(db, SourceRole::Sensitive, spec.sensitive, facts.back());
            t.commit();
        }  // closing the last connection checkpoints the WAL into the file
        // Without Replace, another process may have published this file since the check above
        // (two `dpmix run S.json` started together): it is never replaced.
        published = publish(temp, file, ifExists == IfExists::Replace);
    } catch (const std::exception& e) {
        removeDatabaseFiles(temp);
        return storageError(file, "create the project", e);
    }
    if (!published) {
        removeDatabaseFiles(temp);
        if (ifExists == IfExists::Fail) return Error{exists};
        return openExisting(file, spec);  // the other process's project, if it is the same study
    }
    if (created) *created = true;
    return open(file);
}

namespace {

// Opens `name` read-only without ever writing it (docs/PROJECT_FILE.md, "Read-only open"):
// * a rollback-journal file (a DP release), or a WAL file whose -wal is absent or empty and
//   that no connection uses, holds everything in the file: immutable (no locks, no side files,
//   and a stray -journal or -wal is never read);
// * a WAL file a connection is using now: SQLite's read-only mode, which reads the live -wal
//   through its -shm and never checkpoints into the file;
// * a leftover -wal (no connection): replayed in a private copy and read from there if it
//   belongs to the file (wal_check.h), refused otherwise.
Result<std::unique_ptr<Database>> openReadOnlyDatabase(const std::string& name, const SideFiles& side) {
    auto probe = [](Database& db) {
        (void)db.pragmaInteger("application_id");
        (void)db.pragmaInteger("user_version");
        Statement s(db.handle(), "SELECT count(*) FROM sqlite_master");
        (void)s.step();
    };
    if (!side.walMode || (!side.live && !side.walHoldsData)) {
        auto db = std::make_unique<Database>(name, Database::Mode::ReadOnlyImmutable);
        probe(*db);
        return db;
    }
    if (!side.live) {
        auto copy = replayLeftoverWalAside(name);
        if (copy) return copy;
        // A writer that opened or closed the file meanwhile makes the -wal its own, or removes it.
        auto again = inspectSideFiles(name);
        if (!again || (again->walHoldsData && !again->live)) return copy.error();
        return openReadOnlyDatabase(name, *again);
    }
    try {
        auto db = std::make_unique<Database>(name, Database::Mode::ReadOnly);
        probe(*db);
        return db;
    } catch (const SqliteError& first) {
        throw SqliteError(std::string(first.what()) + "; its write-ahead log " + name +
                              "-wal is in use by another process, and reading it needs " + name +
                              "-shm, which cannot be opened here: copy the project file together with its -wal to a "
                              "writable folder and open the copy",
                          first.code);
    }
}

}  // namespace

namespace {

// The path is an existing regular file and an SQLite database: a project file to look at further.
Status checkProjectFileKind(const fs::path& file, const std::string& name) {
    auto kind = files::kindOf(name);
    if (!kind) return Error{kind.error().message + ": expected a project file (.dpmix)"};
    if (*kind == files::Kind::Missing) return Error{name + ": no such project file"};
    if (*kind == files::Kind::Directory) return Error{name + ": is a folder, not a project file"};
    if (auto e = files::requireRegularFile(name, "a project file (.dpmix)")) return *e;
    if (!isSqliteFile(file))
        return Error{name +
                     ": not a dpmix project file (not an SQLite database; a project file is made with "
                     "`dpmix new SPEC.json -o FILE.dpmix`)"};
    return std::nullopt;
}

// The database is a dpmix project this build reads as it is: its application id, and a schema
// version it knows (an older one only where it may migrate, that is, write).
Status checkSchemaVersion(std::int64_t applicationId, std::int64_t version, bool readOnly, const std::string& name) {
    if (applicationId != kApplicationId)
        return Error{name + ": an SQLite database, but not a dpmix project (application_id " +
                     std::to_string(applicationId) + ", expected " + std::to_string(kApplicationId) + ")"};
    if (version > kSchemaVersion)
        return Error{name + ": written by a newer dpmix (schema version " + std::to_string(version) + "; this dpmix " +
                     versionString() + " reads versions up to " + std::to_string(kSchemaVersion) +
                     "). Open it with a newer dpmix; the file was not changed."};
    if (version < 1)
        return Error{name + ": a dpmix project without a schema version (user_version " + std::to_string(version) +
                     "); the file is damaged"};
    if (readOnly && version < 2)
        return Error{name + ": written by an older dpmix (schema version " + std::to_string(version) +
                     "); reading it needs a migration, which writes: open a writable copy"};
    return std::nullopt;
}

// Brings an older file to the current schema. Rebuilding a parent table needs foreign keys off,
// which only takes effect outside a transaction. Another process may have migrated the file since
// the version was read: read it again under the write lock.
void migrateToCurrentSchema(Database& db) {
    db.exec("PRAGMA foreign_keys = OFF");
    {
        Transaction t(db);
        const std::int64_t version = db.pragmaInteger("user_version");
        if (version < kSchemaVersion) migrateToCurrent(db, version);
        t.commit();
    }
    db.exec("PRAGMA foreign_keys = ON");
}

}  // namespace

Result<ProjectFile> ProjectFile::open(const fs::path& file, OpenMode mode) {
    const std::string name = file.string();
    // No Database of this process opens the file while its header and side files are looked at
    // (closing a descriptor of it would drop this process's SQLite locks).
    auto registry = openRegistryLock();
    if (auto bad = checkProjectFileKind(file, name)) return *bad;
    auto side = inspectSideFiles(name);
    if (!side) return Error{name + ": cannot open the project: " + side.error().message};
    auto folderPath = files::absolute(name);
    if (!folderPath) return Error{name + ": cannot open the project: " + folderPath.error().message};
    const fs::path folder = fs::path(*folderPath).parent_path();
    const bool canWrite = writable(file) && writable(folder);
    if (mode == OpenMode::ReadWrite && !canWrite)
        return Error{name + ": cannot open the project for writing: " +
                     (writable(file) ? "its folder " + folder.string() : std::string("the file")) +
                     " is not writable (it can still be read: dpmix inspect, dpmix-workbench --read-only)"};
    // A rollback-journal file beside its -journal is a release SQLite would roll back on a write
    // open: such a file is only read.
    const bool journalled = !side->walMode && side->journal;
    const bool readOnly = mode == OpenMode::ReadOnly || (mode == OpenMode::Auto && (!canWrite || journalled));
    try {
        std::unique_ptr<Database> db;
        if (readOnly) {
            auto opened = openReadOnlyDatabase(name, *side);
            if (!opened) return Error{name + ": cannot open the project: " + opened.error().message};
            db = std::move(opened).value();
        } else {
            // A leftover -wal is SQLite's to replay into the file on this open: only once it is
            // known to be the file's own.
            if (side->walMode && side->walHoldsData && !side->live) {
                auto checked = replayLeftoverWalAside(name);
                // A writer that opened or closed the file meanwhile makes the -wal its own, or removes it.
                auto again = checked ? side : inspectSideFiles(name);
                if (!checked && (!again || (again->walHoldsData && !again->live)))
                    return Error{name + ": cannot open the project: " + checked.error().message};
            }
            db = std::make_unique<Database>(name, Database::Mode::ReadWrite);
        }
        registry.unlock();
        // Only reads until the file is known to be ours and not newer than this build.
        const auto applicationId = db->pragmaInteger("application_id");
        auto version = db->pragmaInteger("user_version");
        if (auto bad = checkSchemaVersion(applicationId, version, readOnly, name)) return *bad;
        // A release is never written, not even to switch its journal to WAL: it keeps its
        // rollback journal, so reading it creates no side files (a reviewer's read-only copy).
        const bool release = holdsReleaseManifest(*db);
        if (release && mode == OpenMode::ReadWrite)
            return Error{name +
                         ": is a DP release (made by dpmix export-release): it opens read-only, and runs "
                         "are added to the project it was exported from"};
        const bool readOnlyNow = readOnly || release;
        if (!readOnlyNow) {
            configureConnection(*db);
            if (version < kSchemaVersion) migrateToCurrentSchema(*db);
        }
        ProjectFile project(fs::path(*folderPath), std::move(db), readOnlyNow);
        if (auto failed = project.loadSpec()) return *failed;
        project.loadReleaseManifest();
        if (!readOnlyNow) {
            try {
                project.recoverInterruptedRuns();
            } catch (const SealBroken&) {
                // An altered file: recovery is a write and is refused; the file still opens, so
                // that reading commands can report what changed (integrity_report.h).
            }
            project.removeStaleTemporaryFiles();
        }
        return project;
    } catch (const std::exception& e) {
        return storageError(file, "open the project", e);
    }
}

void ProjectFile::recoverInterruptedRuns() {
    // A cheap look first (no lock): is any queued or running run owned by a dead process?
    auto deadRuns = [&] {
        std::vector<std::pair<long long, ProcessIdentity>> dead;
        Statement s(db_->handle(),
                    "SELECT id, owner_host, owner_pid, owner_start FROM runs WHERE status IN ('queued', 'running') "
                    "AND owner_pid IS NOT NULL ORDER BY id");
        while (s.step()) {
            ProcessIdentity owner{s.text(1), s.integer(2), optionalText(s, 3)};
            if (processLiveness(owner) == Liveness::Dead) dead.emplace_back(s.integer(0), owner);
        }
        return dead;
    };
    if (deadRuns().empty()) return;
    Transaction t(*db_);
    const auto dead = deadRuns();  // again under the write lock: another process may have taken one
    Statement update(db_->handle(),
                     "UPDATE runs SET status = 'interrupted', finished_at = ?, message = ? WHERE id = ?");
    Statement log(db_->handle(), "INSERT INTO logs(run_id, at, level, message) VALUES(?,?,?,?)");
    RowSealer sealer(*db_, chainedTable("logs"));
    const std::string now = utcTimestamp();
    for (const auto& [id, owner] : dead) {
        const std::string message = "interrupted: the process that ran it (pid " + std::to_string(owner.pid) + " on " +
                                    owner.host +
                                    ") ended without finishing it (killed, crashed or out of disk space); its "
                                    "ledgers are kept, and what it released stays accounted for";
        update.bind(1, now).bind(2, message).bind(3, static_cast<std::int64_t>(id)).run();
        log.bind(1, static_cast<std::int64_t>(id)).bind(2, now).bind(3, "warning").bind(4, message).run();
        sealer.seal(db_->lastInsertRowId());
        recordTransition(*db_, id, "interrupted", now, message);
        interruptedOnOpen_.push_back(id);
    }
    t.commit();
}

void ProjectFile::removeStaleTemporaryFiles() {
    auto sweep = [&](const fs::path& folder, const std::string& prefixOfBase) {
        std::error_code ec;
        for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
            const std::string name = it->path().filename().string();
            const auto at = name.find(".tmp-");
            if (at == std::string::npos || name.rfind(prefixOfBase, 0) != 0) continue;
            if (!isStaleTemporaryFile(name, name.substr(0, at))) continue;
            std::error_code removeError;
            if (fs::remove(it->path(), removeError))
                removedTemporaryFiles_.push_back(fs::relative(it->path(), path_.parent_path(), removeError).string());
        }
    };
    // The project's own (an interrupted `dpmix new`: F.dpmix.tmp-..., with -wal/-shm) and the
    // models folder's (a model write that failed or was killed: <sha256>.bin.tmp-...).
    sweep(path_.parent_path(), path_.filename().string() + ".tmp-");
    sweep(modelsDir(), "");
}

Status ProjectFile::loadSpec() {
    Statement s(db_->handle(), "SELECT spec_json, created_at, created_by FROM spec ORDER BY id LIMIT 1");
    if (!s.step()) return Error{path_.string() + ": the project has no spec"};
    specJson_ = s.text(0);
    createdAt_ = s.text(1);
    createdBy_ = s.text(2);
    // Stored specs without privacy.accountant predate the PRV accountant: RDP certified them.
    auto spec =
        parseProjectSpec(specJson_, SpecLocation{path_.parent_path(), {}, false, false, privacy::Accountant::Rdp},
                         path_.string() + " (stored spec)");
    if (!spec) return spec.error();
    spec_ = std::move(spec).value();
    return std::nullopt;
}

Result<std::vector<SourceRecord>> ProjectFile::sources() const {
    try {
        Statement s(
            db_->handle(),
            "SELECT role, name, loader, path, options_json, user_level, kind, examples, users, label_names_json, "
            "domains_json, channels, height, width, content_hash FROM sources ORDER BY id");
        std::vector<SourceRecord> out;
        while (s.step()) {
            SourceRecord r;
            r.name = s.text(1);
            const auto role = parseSourceRole(s.text(0));
            const auto kind = data::parseSourceKind(s.text(6));
            if (!role || !kind)
                return Error{path_.string() + ": source '" + r.name +
                             "': " + (role ? "kind " + kind.error().message : "role " + role.error().message)};
            r.role = *role;
            r.loader = s.text(2);
            r.path = s.text(3);
            r.optionsJson = s.text(4);
            r.userLevel = s.integer(5) != 0;
            r.facts.kind = *kind;
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
    if (auto e = refuseWrite("add a run")) return *e;
    try {
        Transaction t(*db_);
        Statement s(db_->handle(),
                    "INSERT INTO runs(method, task, epsilon, seed, config_json, build_version, created_at, status, "
                    "owner_host, owner_pid, owner_start) VALUES(?,?,?,?,?,?,?,'queued',?,?,?)");
        s.bind(1, run.method).bind(2, run.task).bind(3, run.epsilon).bind(4, static_cast<std::int64_t>(run.seed));
        const std::string now = utcTimestamp();
        s.bind(5, run.configJson).bind(6, versionString()).bind(7, now);
        bindOwner(s, 8, currentProcess());
        s.run();
        const auto id = db_->lastInsertRowId();
        sealRow(*db_, chainedTable("runs"), id);
        recordTransition(*db_, id, "queued", now, "");
        t.commit();
        return static_cast<long long>(id);
    } catch (const std::exception& e) {
        return storageError(path_, "add a run", e);
    }
}

std::string ProjectFile::runOwnerColumns() const {
    if (hasRunOwners_ < 0) {
        Statement s(db_->handle(), "SELECT count(*) FROM pragma_table_info('runs') WHERE name = 'owner_pid'");
        hasRunOwners_ = s.step() && s.integer(0) > 0 ? 1 : 0;
    }
    return hasRunOwners_ ? kRunOwnerColumns : "";
}

Result<RunRecord> ProjectFile::run(long long runId) const {
    try {
        Statement s(db_->handle(),
                    std::string("SELECT ") + kRunColumns + runOwnerColumns() + " FROM runs WHERE id = ?");
        s.bind(1, static_cast<std::int64_t>(runId));
        if (!s.step()) return Error{path_.string() + ": run " + std::to_string(runId) + " does not exist"};
        return readRun(s);
    } catch (const std::exception& e) {
        return storageError(path_, "read run " + std::to_string(runId), e);
    }
}

Result<std::vector<RunRecord>> ProjectFile::runs() const {
    try {
        Statement s(db_->handle(), std::string("SELECT ") + kRunColumns + runOwnerColumns() + " FROM runs ORDER BY id");
        std::vector<RunRecord> out;
        while (s.step()) out.push_back(readRun(s));
        return out;
    } catch (const std::exception& e) {
        return storageError(path_, "read runs", e);
    }
}

Result<RunRecord> ProjectFile::setRunStatus(long long runId, RunStatus status, const std::string& message) {
    if (auto e = refuseWrite("update run " + std::to_string(runId))) return *e;
    try {
        Status refused;
        {
            Transaction t(*db_);
            auto current = run(runId);
            if (!current) return current.error();
            if (!allowedTransition(current->status, status))
                return Error{"run " + std::to_string(runId) + " is " + toString(current->status) +
                             "; it cannot become " + toString(status)};
            RunStatus stored = status;
            std::string storedMessage = message;
            if (status == RunStatus::Done) {
                if (const std::string why = nonFiniteResultOf(*db_, runId); !why.empty()) {
                    stored = RunStatus::Failed;
                    storedMessage = "failed: it has " + why + "; a run with such a result is never done";
                    refused = Error{path_.string() + ": run " + std::to_string(runId) + " cannot be done: it has " +
                                    why + "; it is marked failed"};
                }
            }
            const std::string column = stored == RunStatus::Running ? "started_at" : "finished_at";
            const std::string now = utcTimestamp();
            Statement s(db_->handle(), "UPDATE runs SET status = ?, message = ?, " + column + " = ? WHERE id = ?");
            s.bind(1, toString(stored)).bind(2, storedMessage).bind(3, now).bind(4, static_cast<std::int64_t>(runId));
            s.run();
            recordTransition(*db_, runId, toString(stored), now, storedMessage);
            if (stored == RunStatus::Running) {  // whoever starts a run owns it from now on
                Statement owner(db_->handle(),
                                "UPDATE runs SET owner_host = ?, owner_pid = ?, owner_start = ? WHERE id = ?");
                bindOwner(owner, 1, currentProcess());
                owner.bind(4, static_cast<std::int64_t>(runId)).run();
            }
            t.commit();
        }
        if (refused) return *refused;
        return run(runId);
    } catch (const std::exception& e) {
        return storageError(path_, "update run " + std::to_string(runId), e);
    }
}

Result<long long> ProjectFile::recordLedger(long long runId, const privacy::Ledger& ledger,
                                            std::optional<double> reportedEpsilon) {
    if (auto e = refuseWrite("record the ledger of run " + std::to_string(runId))) return *e;
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

Result<ChainVerification> ProjectFile::verifyChain() const {
    try {
        return verifyChains(*db_);
    } catch (const std::exception& e) {
        return storageError(path_, "verify the hash chain", e);
    }
}

}  // namespace dpmix::project
