#include "engine/project/budget_store.h"

#include "engine/privacy/ledger_json.h"
#include "engine/privacy/parameters.h"
#include "engine/project/project_file.h"
#include "engine/project/sqlite_db.h"

#include <sys/stat.h>

#include <algorithm>
#include <system_error>

namespace dpmix::project {
namespace fs = std::filesystem;
namespace {

// "DPMB": a budget store, not a project ("DPMX"), so neither is opened as the other.
constexpr std::int64_t kStoreApplicationId = 0x44504D42;
// Version 2 adds the attempts of cluster units (a v1 store gains the table when written).
constexpr std::int64_t kStoreSchemaVersion = 2;

// Spends are kept per release (one ledger entry each) with the process that ran them, so a
// reading can tell the runs an open reservation already covers.
constexpr const char* kStoreSchema = R"SQL(
CREATE TABLE IF NOT EXISTS datasets(
  id INTEGER PRIMARY KEY,
  content_hash TEXT NOT NULL,
  unit TEXT NOT NULL,
  cap REAL,
  created_at TEXT NOT NULL,
  UNIQUE(content_hash, unit));
CREATE TABLE IF NOT EXISTS reservations(
  id INTEGER PRIMARY KEY,
  dataset_id INTEGER NOT NULL REFERENCES datasets(id),
  project_key TEXT NOT NULL,
  project_path TEXT NOT NULL,
  what TEXT NOT NULL,
  created_at TEXT NOT NULL,
  settled_at TEXT,
  owner_host TEXT NOT NULL,
  owner_pid INTEGER NOT NULL,
  owner_start TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS planned(
  id INTEGER PRIMARY KEY,
  reservation_id INTEGER NOT NULL REFERENCES reservations(id),
  label TEXT NOT NULL,
  partition TEXT NOT NULL,
  entry_json TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS spent(
  id INTEGER PRIMARY KEY,
  dataset_id INTEGER NOT NULL REFERENCES datasets(id),
  project_key TEXT NOT NULL,
  project_path TEXT NOT NULL,
  run_id INTEGER NOT NULL,
  owner_host TEXT NOT NULL,
  owner_pid INTEGER NOT NULL,
  owner_start TEXT NOT NULL,
  label TEXT NOT NULL,
  partition TEXT NOT NULL,
  entry_json TEXT NOT NULL,
  recorded_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS attempts(
  id INTEGER PRIMARY KEY,
  grid_reservation INTEGER NOT NULL REFERENCES reservations(id),
  unit INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  reservation_id INTEGER REFERENCES reservations(id),
  slurm TEXT NOT NULL,
  started_at TEXT NOT NULL,
  kept_at TEXT,
  UNIQUE(grid_reservation, unit, attempt));
CREATE INDEX IF NOT EXISTS attempts_reservation ON attempts(reservation_id);
CREATE INDEX IF NOT EXISTS spent_run ON spent(dataset_id, project_key, run_id);
CREATE INDEX IF NOT EXISTS reservations_open ON reservations(dataset_id, settled_at);
)SQL";

bool sameProcess(const ProcessIdentity& a, const ProcessIdentity& b) {
    return a.pid != 0 && a.pid == b.pid && a.host == b.host && a.start == b.start;
}

// One release entry as a one-entry ledger (the ledger's own JSON form, so the store reads back
// exactly what the project recorded).
std::string entryJson(const privacy::LedgerEntry& entry) {
    privacy::Ledger ledger;
    ledger.record(entry);
    return privacy::ledgerToJson(ledger);
}

privacy::LedgerEntry entryFrom(const std::string& json, const std::string& where) {
    auto ledger = privacy::ledgerFromJson(json);
    if (!ledger || ledger->entries().size() != 1)
        throw SqliteError(where + ": a charge whose ledger entry cannot be read" +
                          (ledger ? std::string() : ": " + ledger.error().message));
    return ledger->entries().front();
}

std::int64_t datasetId(Database& db, const DatasetKey& key, bool create) {
    {
        Statement s(db.handle(), "SELECT id FROM datasets WHERE content_hash = ? AND unit = ?");
        s.bind(1, key.contentHash).bind(2, key.unit);
        if (s.step()) return s.integer(0);
    }
    if (!create) return 0;
    Statement s(db.handle(), "INSERT INTO datasets(content_hash, unit, created_at) VALUES(?,?,?)");
    s.bind(1, key.contentHash).bind(2, key.unit).bind(3, utcTimestamp());
    s.run();
    return db.lastInsertRowId();
}

bool hasAttemptsTable(Database& db) {
    Statement s(db.handle(), "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'attempts'");
    return s.step();
}

// Which reservations are a cluster unit's later attempt, and how many attempts each grid's units
// started (a version-1 store, read without writing, has none).
void readAttempts(Database& db, std::vector<StoredReservation>& reservations) {
    if (!hasAttemptsTable(db)) return;
    for (auto& r : reservations) {
        Statement a(db.handle(),
                    "SELECT grid_reservation, unit, attempt, slurm, kept_at FROM attempts WHERE reservation_id = ?");
        a.bind(1, static_cast<std::int64_t>(r.id));
        if (a.step()) r.attempt = AttemptOf{a.integer(0), a.integer(1), a.integer(2), a.text(3), !a.isNull(4)};
        Statement n(db.handle(), "SELECT count(*) FROM attempts WHERE grid_reservation = ?");
        n.bind(1, static_cast<std::int64_t>(r.id));
        if (n.step()) r.attemptsStarted = n.integer(0);
    }
}

DatasetCharges readCharges(Database& db, const DatasetKey& key, const std::string& storePath) {
    DatasetCharges out;
    const std::int64_t id = datasetId(db, key, false);
    if (id == 0) return out;
    out.known = true;
    {
        Statement s(db.handle(), "SELECT cap FROM datasets WHERE id = ?");
        s.bind(1, id);
        if (s.step() && !s.isNull(0)) out.cap = s.real(0);
    }
    {
        Statement s(db.handle(),
                    "SELECT project_key, project_path, run_id, owner_host, owner_pid, owner_start, label, partition, "
                    "entry_json FROM spent WHERE dataset_id = ? ORDER BY id");
        s.bind(1, id);
        while (s.step()) {
            StoredSpend spend;
            spend.projectKey = s.text(0);
            spend.projectPath = s.text(1);
            spend.runId = s.integer(2);
            spend.owner = {s.text(3), s.integer(4), s.text(5)};
            spend.release = {spend.runId, s.text(6), s.text(7), entryFrom(s.text(8), storePath)};
            out.spent.push_back(std::move(spend));
        }
    }
    {
        Statement s(db.handle(),
                    "SELECT id, project_key, project_path, what, created_at, owner_host, owner_pid, owner_start "
                    "FROM reservations WHERE dataset_id = ? AND settled_at IS NULL ORDER BY id");
        s.bind(1, id);
        while (s.step()) {
            StoredReservation r;
            r.id = s.integer(0);
            r.projectKey = s.text(1);
            r.projectPath = s.text(2);
            r.what = s.text(3);
            r.createdAt = s.text(4);
            r.owner = {s.text(5), s.integer(6), s.text(7)};
            r.ownerLiveness = processLiveness(r.owner);
            out.reservations.push_back(std::move(r));
        }
    }
    for (auto& r : out.reservations) {
        Statement s(db.handle(),
                    "SELECT label, partition, entry_json FROM planned WHERE reservation_id = ? ORDER BY id");
        s.bind(1, static_cast<std::int64_t>(r.id));
        while (s.step()) r.planned.push_back({0, s.text(0), s.text(1), entryFrom(s.text(2), storePath)});
    }
    readAttempts(db, out.reservations);
    return out;
}

// Replaces what the store holds for each of the project's runs by what its file says now.
void recordRuns(Database& db, std::int64_t dataset, const ProjectCharges& project) {
    Statement drop(db.handle(), "DELETE FROM spent WHERE dataset_id = ? AND project_key = ? AND run_id = ?");
    Statement add(
        db.handle(),
        "INSERT INTO spent(dataset_id, project_key, project_path, run_id, owner_host, owner_pid, owner_start, "
        "label, partition, entry_json, recorded_at) VALUES(?,?,?,?,?,?,?,?,?,?,?)");
    const std::string now = utcTimestamp();
    for (const RunCharge& run : project.runs) {
        drop.reset();
        drop.bind(1, dataset).bind(2, project.key).bind(3, static_cast<std::int64_t>(run.runId));
        drop.run();
        for (const auto& release : run.releases) {
            add.reset();
            add.bind(1, dataset)
                .bind(2, project.key)
                .bind(3, project.path)
                .bind(4, static_cast<std::int64_t>(run.runId));
            add.bind(5, run.owner.host).bind(6, static_cast<std::int64_t>(run.owner.pid)).bind(7, run.owner.start);
            add.bind(8, release.label).bind(9, release.partition).bind(10, entryJson(release.entry)).bind(11, now);
            add.run();
        }
    }
}

void createFolderPrivately(const fs::path& folder) {
    if (folder.empty()) return;
    std::error_code ec;
    if (fs::is_directory(folder, ec)) return;
    fs::create_directories(folder, ec);
    if (ec) throw SqliteError("cannot create the folder " + folder.string() + ": " + ec.message());
    ::chmod(folder.c_str(), 0700);  // the store says which data sets exist and what they spent
}

Error storeError(const fs::path& file, const std::string& action, const std::exception& e) {
    const auto* sqlite = dynamic_cast<const SqliteError*>(&e);
    if (sqlite && sqlite->busy())
        return Error{"budget store " + file.string() + " busy: another process held it for longer than " +
                     std::to_string(Database::kDefaultBusyTimeoutMs / 1000) + " s; nothing was changed, try again"};
    return Error{"budget store " + file.string() + ": cannot " + action + ": " + e.what()};
}

std::string shortHash(const std::string& hash) { return hash.size() > 12 ? hash.substr(0, 12) + "..." : hash; }

// Stores an open reservation of `planned`, owned by this process; returns its id.
long long insertReservation(Database& db, std::int64_t dataset, const std::string& projectKey,
                            const std::string& projectPath, const std::string& what,
                            const std::vector<privacy::BudgetRelease>& planned) {
    const ProcessIdentity me = currentProcess();
    Statement r(db.handle(),
                "INSERT INTO reservations(dataset_id, project_key, project_path, what, created_at, owner_host, "
                "owner_pid, owner_start) VALUES(?,?,?,?,?,?,?,?)");
    r.bind(1, dataset).bind(2, projectKey).bind(3, projectPath).bind(4, what).bind(5, utcTimestamp());
    r.bind(6, me.host).bind(7, static_cast<std::int64_t>(me.pid)).bind(8, me.start);
    r.run();
    const long long reservation = db.lastInsertRowId();
    Statement p(db.handle(), "INSERT INTO planned(reservation_id, label, partition, entry_json) VALUES(?,?,?,?)");
    for (const auto& release : planned) {
        p.reset();
        p.bind(1, static_cast<std::int64_t>(reservation)).bind(2, release.label).bind(3, release.partition);
        p.bind(4, entryJson(release.entry));
        p.run();
    }
    return reservation;
}

}  // namespace

std::vector<privacy::BudgetRelease> countedReleases(const DatasetCharges& charges, const ProjectCharges* project,
                                                    CountedParts* parts) {
    CountedParts counts;
    // A cluster unit's later attempt covers no run: its plan is a release beside the merged runs.
    auto covered = [&](const std::string& projectKey, const ProcessIdentity& owner) {
        return std::any_of(charges.reservations.begin(), charges.reservations.end(), [&](const StoredReservation& r) {
            return !r.attempt && r.projectKey == projectKey && sameProcess(r.owner, owner);
        });
    };
    auto inProject = [&](long long runId) {
        return project && std::any_of(project->runs.begin(), project->runs.end(),
                                      [&](const RunCharge& r) { return r.runId == runId; });
    };
    std::vector<privacy::BudgetRelease> out;
    for (const StoredSpend& s : charges.spent) {
        if (project && s.projectKey == project->key && inProject(s.runId)) continue;  // the file's view replaces it
        if (covered(s.projectKey, s.owner)) continue;
        out.push_back(s.release);
        ++counts.fromStore;
    }
    if (project)
        for (const RunCharge& run : project->runs) {
            if (covered(project->key, run.owner)) continue;
            out.insert(out.end(), run.releases.begin(), run.releases.end());
            counts.fromProject += static_cast<long long>(run.releases.size());
        }
    for (const auto& r : charges.reservations) {
        out.insert(out.end(), r.planned.begin(), r.planned.end());
        counts.planned += static_cast<long long>(r.planned.size());
    }
    if (parts) *parts = counts;
    return out;
}

CapCheck checkAgainstCap(const std::vector<privacy::BudgetRelease>& counted,
                         const std::vector<privacy::BudgetRelease>& planned) {
    std::vector<privacy::BudgetRelease> all = counted;
    all.insert(all.end(), planned.begin(), planned.end());
    return {privacy::composeBudget(counted).epsilon, privacy::composeBudget(all).epsilon};
}

namespace {

// The refusal of `planned` when it would bring the data set's total over the smaller of the
// store's cap and `runCap` (nullopt: within it, or no cap).
std::optional<Error> overCap(const DatasetCharges& charges, const ProjectCharges* project,
                             const std::vector<privacy::BudgetRelease>& planned, std::optional<double> runCap,
                             const DatasetKey& dataset, const fs::path& store, const std::string& who) {
    std::optional<double> cap = charges.cap;
    if (runCap && (!cap || *runCap < *cap)) cap = runCap;
    if (!cap || planned.empty()) return std::nullopt;
    const CapCheck check = checkAgainstCap(countedReleases(charges, project), planned);
    if (check.after <= *cap * (1.0 + 1e-12)) return std::nullopt;
    return Error{"privacy budget cap " + privacy::formatNumber(*cap) + ": " + who +
                 " would bring the sensitive data set's total (data set " + shortHash(dataset.contentHash) + ", unit " +
                 dataset.unit + ", budget store " + store.string() + ") from epsilon " +
                 privacy::formatNumber(check.before) + " to " + privacy::formatNumber(check.after) + " (" +
                 std::to_string(planned.size()) +
                 " DP release(s)), over the cap; nothing was run. The total counts every project on this data set "
                 "and every run still in progress. Raise the cap, or spend less (fewer epsilons, seeds or tasks, or "
                 "smaller epsilons)"};
}

}  // namespace

BudgetStore::BudgetStore(fs::path path, std::unique_ptr<Database> db) : path_(std::move(path)), db_(std::move(db)) {}
BudgetStore::BudgetStore(BudgetStore&&) noexcept = default;
BudgetStore& BudgetStore::operator=(BudgetStore&&) noexcept = default;
BudgetStore::~BudgetStore() = default;

Result<BudgetStore> BudgetStore::open(const fs::path& file) {
    try {
        createFolderPrivately(file.parent_path());
        std::error_code ec;
        const bool existed = fs::exists(file, ec);
        auto db = std::make_unique<Database>(file.string(), Database::Mode::ReadWriteCreate);
        if (!existed) ::chmod(file.c_str(), 0600);  // SQLite gives its journal the same mode
        // The header is read and the schema made in one write transaction: two processes that
        // open a new store at once take turns, and neither reads the header half written (an
        // application_id from before the other's commit and a version from after it).
        Transaction t(*db);
        const auto applicationId = db->pragmaInteger("application_id");
        const auto version = db->pragmaInteger("user_version");
        const bool blank = applicationId == 0 && version == 0;
        if (!blank && (applicationId != kStoreApplicationId || version > kStoreSchemaVersion))
            return Error{"budget store " + file.string() +
                         ": not a dpmix budget store of a version this dpmix reads "
                         "(application_id " +
                         std::to_string(applicationId) + ", version " + std::to_string(version) +
                         "); the file was not changed. Name another store (privacy.budget_store in the spec, or "
                         "DPMIX_BUDGET_STORE)"};
        if (version < kStoreSchemaVersion) {
            db->exec(kStoreSchema);
            db->exec("PRAGMA application_id = " + std::to_string(kStoreApplicationId));
            db->exec("PRAGMA user_version = " + std::to_string(kStoreSchemaVersion));
        }
        t.commit();
        return BudgetStore(file, std::move(db));
    } catch (const std::exception& e) {
        return storeError(file, "open it", e);
    }
}

Result<std::optional<BudgetStore>> BudgetStore::openForReading(const fs::path& file) {
    std::error_code ec;
    if (!fs::exists(file, ec)) return std::optional<BudgetStore>();
    try {
        auto db = std::make_unique<Database>(file.string(), Database::Mode::ReadOnly);
        // Both header fields from one snapshot (a creator may commit between two reads).
        db->exec("BEGIN");
        const auto applicationId = db->pragmaInteger("application_id");
        const auto version = db->pragmaInteger("user_version");
        db->exec("COMMIT");
        // An empty file is a store another process is creating right now: nothing charged yet.
        if (applicationId == 0 && version == 0) return std::optional<BudgetStore>();
        if (applicationId != kStoreApplicationId)
            return Error{"budget store " + file.string() + ": not a dpmix budget store (application_id " +
                         std::to_string(applicationId) +
                         "); name another store (privacy.budget_store in the spec, "
                         "or DPMIX_BUDGET_STORE)"};
        return std::optional<BudgetStore>(BudgetStore(file, std::move(db)));
    } catch (const std::exception& e) {
        return storeError(file, "read it", e);
    }
}

Result<DatasetCharges> BudgetStore::charges(const DatasetKey& dataset) const {
    try {
        return readCharges(*db_, dataset, path_.string());
    } catch (const std::exception& e) {
        return storeError(path_, "read the charges of data set " + shortHash(dataset.contentHash), e);
    }
}

Status BudgetStore::setCap(const DatasetKey& dataset, std::optional<double> cap) {
    if (cap && !(*cap > 0.0 && *cap <= 1e6))
        return Error{"budget cap " + privacy::formatNumber(*cap) + " is out of range: expected an epsilon in (0, 1e6]"};
    try {
        Transaction t(*db_);
        const auto id = datasetId(*db_, dataset, true);
        Statement s(db_->handle(), "UPDATE datasets SET cap = ? WHERE id = ?");
        s.bind(1, cap).bind(2, id);
        s.run();
        t.commit();
        return std::nullopt;
    } catch (const std::exception& e) {
        return storeError(path_, "set the cap", e);
    }
}

Result<long long> BudgetStore::reserve(const DatasetKey& dataset, const ProjectCharges& project,
                                       const std::vector<privacy::BudgetRelease>& planned, std::optional<double> runCap,
                                       const std::string& what) {
    try {
        Transaction t(*db_);  // BEGIN IMMEDIATE: a second reserver waits here, then sees this one
        const auto id = datasetId(*db_, dataset, true);
        recordRuns(*db_, id, project);
        const DatasetCharges charges = readCharges(*db_, dataset, path_.string());
        if (auto refusal = overCap(charges, &project, planned, runCap, dataset, path_, "this run")) return *refusal;
        long long reservation = 0;
        if (!planned.empty()) reservation = insertReservation(*db_, id, project.key, project.path, what, planned);
        t.commit();
        return reservation;
    } catch (const std::exception& e) {
        return storeError(path_, "reserve this run's budget", e);
    }
}

Result<AttemptGrant> BudgetStore::reserveAttempt(const DatasetKey& dataset, const AttemptRequest& request,
                                                 std::optional<double> runCap) {
    const std::string grid = "reservation " + std::to_string(request.gridReservation);
    try {
        Transaction t(*db_);  // BEGIN IMMEDIATE: two attempts of one unit get different numbers
        const auto id = datasetId(*db_, dataset, false);
        std::string projectKey, projectPath;
        {
            Statement s(db_->handle(),
                        "SELECT project_key, project_path, settled_at FROM reservations WHERE id = ? AND "
                        "dataset_id = ?");
            s.bind(1, static_cast<std::int64_t>(request.gridReservation)).bind(2, id);
            if (!s.step())
                return Error{"budget store " + path_.string() + " has no " + grid + " for this data set (data set " +
                             shortHash(dataset.contentHash) +
                             "): the unit cannot run under a reservation it cannot find; nothing was run"};
            if (!s.isNull(2))
                return Error{"budget store " + path_.string() + ": " + grid +
                             " was settled by the job's merge; another attempt would be a release the project never "
                             "counts; nothing was run"};
            projectKey = s.text(0);
            projectPath = s.text(1);
        }
        AttemptGrant grant;
        {
            Statement n(db_->handle(), "SELECT count(*) FROM attempts WHERE grid_reservation = ? AND unit = ?");
            n.bind(1, static_cast<std::int64_t>(request.gridReservation))
                .bind(2, static_cast<std::int64_t>(request.unit));
            n.step();
            grant.attempt = n.integer(0) + 1;
        }
        if (grant.attempt > 1) {
            const DatasetCharges charges = readCharges(*db_, dataset, path_.string());
            if (auto refusal = overCap(charges, nullptr, request.planned, runCap, dataset, path_,
                                       "attempt " + std::to_string(grant.attempt) + " of unit " +
                                           std::to_string(request.unit) + " (a release of its own)"))
                return *refusal;
            if (!request.planned.empty())
                grant.reservation = insertReservation(*db_, id, projectKey, projectPath,
                                                      "cluster " + grid + ", unit " + std::to_string(request.unit) +
                                                          ", attempt " + std::to_string(grant.attempt),
                                                      request.planned);
        }
        Statement a(db_->handle(),
                    "INSERT INTO attempts(grid_reservation, unit, attempt, reservation_id, slurm, started_at) "
                    "VALUES(?,?,?,?,?,?)");
        a.bind(1, static_cast<std::int64_t>(request.gridReservation))
            .bind(2, static_cast<std::int64_t>(request.unit))
            .bind(3, static_cast<std::int64_t>(grant.attempt));
        if (grant.reservation != 0)
            a.bind(4, static_cast<std::int64_t>(grant.reservation));
        else
            a.bindNull(4);
        a.bind(5, request.slurm).bind(6, utcTimestamp());
        a.run();
        t.commit();
        return grant;
    } catch (const std::exception& e) {
        return storeError(path_, "reserve unit " + std::to_string(request.unit) + "'s attempt", e);
    }
}

Status BudgetStore::settle(long long reservationId, const ProjectCharges& project) {
    try {
        Transaction t(*db_);
        std::int64_t dataset = 0;
        {
            Statement s(db_->handle(), "SELECT dataset_id FROM reservations WHERE id = ?");
            s.bind(1, static_cast<std::int64_t>(reservationId));
            if (!s.step())
                return Error{"budget store " + path_.string() + ": no reservation " + std::to_string(reservationId)};
            dataset = s.integer(0);
        }
        recordRuns(*db_, dataset, project);
        const std::string now = utcTimestamp();
        Statement s(db_->handle(), "UPDATE reservations SET settled_at = ? WHERE id = ? AND settled_at IS NULL");
        s.bind(1, now).bind(2, static_cast<std::int64_t>(reservationId));
        s.run();
        // The grid's merged runs replace its plan; its units' later attempts stay counted for good.
        Statement k(db_->handle(), "UPDATE attempts SET kept_at = ? WHERE grid_reservation = ? AND kept_at IS NULL");
        k.bind(1, now).bind(2, static_cast<std::int64_t>(reservationId));
        k.run();
        t.commit();
        return std::nullopt;
    } catch (const std::exception& e) {
        return storeError(path_, "settle reservation " + std::to_string(reservationId), e);
    }
}

Status BudgetStore::record(const DatasetKey& dataset, const ProjectCharges& project) {
    try {
        Transaction t(*db_);
        recordRuns(*db_, datasetId(*db_, dataset, true), project);
        t.commit();
        return std::nullopt;
    } catch (const std::exception& e) {
        return storeError(path_, "record the project's runs", e);
    }
}

}  // namespace dpmix::project
