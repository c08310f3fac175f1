#include "engine/project/schema.h"

#include "engine/project/hash_chain.h"
#include "engine/project/run_transitions.h"
#include "engine/project/sqlite_db.h"

#include <string>

namespace dpmix::project {
namespace {

// The current (v6) schema, in three parts: the tables before `runs`, `runs` (runsTableSql:
// shared with the v2 → v3 rebuild), the tables after it. Rows of every table except `runs`'
// mutable columns are covered by the hash chain; `runs.status`, timestamps, message and owner
// change while a run goes on.
constexpr const char* kSchemaBeforeRuns = R"SQL(
CREATE TABLE spec(
  id INTEGER PRIMARY KEY,
  spec_json TEXT NOT NULL,
  created_at TEXT NOT NULL,
  created_by TEXT NOT NULL,
  row_hash TEXT);
CREATE TABLE sources(
  id INTEGER PRIMARY KEY,
  role TEXT NOT NULL CHECK(role IN ('public', 'sensitive')),
  name TEXT NOT NULL UNIQUE,
  loader TEXT NOT NULL,
  path TEXT NOT NULL,
  options_json TEXT NOT NULL,
  user_level INTEGER NOT NULL DEFAULT 0,
  kind TEXT NOT NULL,
  examples INTEGER NOT NULL,
  users INTEGER NOT NULL,
  label_names_json TEXT NOT NULL,
  domains_json TEXT NOT NULL,
  channels INTEGER NOT NULL,
  height INTEGER NOT NULL,
  width INTEGER NOT NULL,
  content_hash TEXT NOT NULL,
  row_hash TEXT);
)SQL";

constexpr const char* kSchemaAfterRuns = R"SQL(
CREATE TABLE ledgers(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  recorded_at TEXT NOT NULL,
  ledger_json TEXT NOT NULL,
  recorded_epsilon REAL,
  recorded_delta REAL,
  row_hash TEXT);
CREATE TABLE lambdas(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  kind TEXT NOT NULL,
  names_json TEXT NOT NULL,
  values_json TEXT NOT NULL,
  row_hash TEXT);
CREATE TABLE metrics(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  name TEXT NOT NULL,
  class_name TEXT NOT NULL,
  value REAL,
  row_hash TEXT);
CREATE TABLE curves(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  name TEXT NOT NULL,
  step INTEGER NOT NULL,
  value REAL,
  row_hash TEXT);
CREATE TABLE audits(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  name TEXT NOT NULL,
  false_positives INTEGER NOT NULL,
  false_negatives INTEGER NOT NULL,
  negatives INTEGER NOT NULL,
  positives INTEGER NOT NULL,
  delta REAL NOT NULL,
  confidence REAL NOT NULL,
  epsilon_lower_bound REAL NOT NULL,
  details_json TEXT NOT NULL,
  row_hash TEXT);
CREATE TABLE logs(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  at TEXT NOT NULL,
  level TEXT NOT NULL,
  message TEXT NOT NULL,
  row_hash TEXT);
CREATE TABLE models(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  name TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  file_name TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  row_hash TEXT);
CREATE TABLE release(
  id INTEGER PRIMARY KEY,
  manifest_json TEXT NOT NULL,
  row_hash TEXT);
CREATE TABLE working_settings(
  id INTEGER PRIMARY KEY CHECK(id = 1),
  settings_json TEXT NOT NULL,
  saved_at TEXT NOT NULL);
CREATE INDEX ledgers_run ON ledgers(run_id);
CREATE INDEX lambdas_run ON lambdas(run_id);
CREATE INDEX metrics_run ON metrics(run_id);
CREATE INDEX curves_run ON curves(run_id, name, step);
CREATE INDEX audits_run ON audits(run_id);
CREATE INDEX logs_run ON logs(run_id);
CREATE INDEX models_run ON models(run_id);
)SQL";

// v6: the tables of tamper evidence (run_transitions.h, seal.h, file_signature.h).
constexpr const char* kSealTables = R"SQL(
CREATE TABLE run_transitions(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  status TEXT NOT NULL,
  at TEXT NOT NULL,
  message TEXT NOT NULL,
  row_hash TEXT);
CREATE INDEX run_transitions_run ON run_transitions(run_id);
CREATE TABLE seal(
  id INTEGER PRIMARY KEY CHECK(id = 1),
  state_json TEXT NOT NULL,
  seal_hash TEXT NOT NULL);
CREATE TABLE signatures(
  id INTEGER PRIMARY KEY,
  public_key TEXT NOT NULL,
  signed_at TEXT NOT NULL,
  seal_hash TEXT NOT NULL,
  manifest_hash TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  signature TEXT NOT NULL);
)SQL";

// `runs` as of v3. The owner (process_identity.h) is the process that queued or last started
// the run; it tells a later open whether a queued or running row still has a live process.
std::string runsTableSql(const std::string& name) {
    return "CREATE TABLE " + name + R"SQL((
  id INTEGER PRIMARY KEY,
  method TEXT NOT NULL,
  task TEXT NOT NULL,
  epsilon REAL,
  seed INTEGER NOT NULL,
  config_json TEXT NOT NULL,
  build_version TEXT NOT NULL,
  created_at TEXT NOT NULL,
  status TEXT NOT NULL CHECK(status IN ('queued', 'running', 'done', 'failed', 'cancelled', 'interrupted')),
  started_at TEXT,
  finished_at TEXT,
  message TEXT NOT NULL DEFAULT '',
  row_hash TEXT,
  owner_host TEXT,
  owner_pid INTEGER,
  owner_start TEXT);
)SQL";
}

void setVersion(Database& db, std::int64_t version) { db.exec("PRAGMA user_version = " + std::to_string(version)); }

// v1 → v2: add the hash-chain column everywhere and seal the rows that are already there.
void migrateV1ToV2(Database& db) {
    for (const ChainedTable& table : chainedTables())
        if (!table.addedLater) db.exec("ALTER TABLE " + std::string(table.name) + " ADD COLUMN row_hash TEXT");
    sealAllRows(db);
    setVersion(db, 2);
}

// v2 → v3: rebuild `runs` with the owner columns and the 'interrupted' status (SQLite's
// documented procedure for a changed constraint: new table, copy, drop, rename; foreign keys
// are off, so the rows of the other tables that reference runs(id) stay as they are). Ids and
// row hashes are copied, so the chain is unchanged. A run still queued or running in a v2 file
// has no recorded process; no later process can finish it, so it becomes interrupted.
void migrateV2ToV3(Database& db) {
    db.exec(runsTableSql("runs_v3"));
    db.exec(
        "INSERT INTO runs_v3(id, method, task, epsilon, seed, config_json, build_version, created_at, status, "
        "started_at, finished_at, message, row_hash) SELECT id, method, task, epsilon, seed, config_json, "
        "build_version, created_at, status, started_at, finished_at, message, row_hash FROM runs ORDER BY id");
    db.exec("DROP TABLE runs");
    db.exec("ALTER TABLE runs_v3 RENAME TO runs");
    db.exec(
        "UPDATE runs SET status = 'interrupted', finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), "
        "message = 'interrupted: left unfinished by a dpmix older than schema 3, which recorded no process "
        "for it; its ledgers are kept' WHERE status IN ('queued', 'running')");
    setVersion(db, 3);
}

// v3 → v4: the `release` table (empty in a project; one manifest row in an exported release).
void migrateV3ToV4(Database& db) {
    db.exec("CREATE TABLE release(id INTEGER PRIMARY KEY, manifest_json TEXT NOT NULL, row_hash TEXT)");
    setVersion(db, 4);
}

// v4 → v5: `working_settings`, the workbench's saved panel values (working_settings.h). Not
// chained: they are a draft for the next run, not a result; each run records its own config.
void migrateV4ToV5(Database& db) {
    db.exec(
        "CREATE TABLE working_settings(id INTEGER PRIMARY KEY CHECK(id = 1), settings_json TEXT NOT NULL, "
        "saved_at TEXT NOT NULL)");
    setVersion(db, 5);
}

// v5 → v6: the seal tables. Each run's status as found becomes its first transition (nothing
// vouches for its earlier history); the seal itself is written when the migration commits.
void migrateV5ToV6(Database& db) {
    db.exec(kSealTables);
    Statement runs(db.handle(),
                   "SELECT id, status, coalesce(finished_at, started_at, created_at) FROM runs ORDER BY id");
    while (runs.step())
        recordTransition(db, runs.integer(0), runs.text(1), runs.text(2),
                         "as found when the file was migrated to schema 6 (earlier transitions were not recorded)");
    setVersion(db, 6);
}

}  // namespace

void createCurrentSchema(Database& db) {
    db.exec(std::string(kSchemaBeforeRuns) + runsTableSql("runs") + kSchemaAfterRuns + kSealTables);
    db.exec("PRAGMA application_id = " + std::to_string(kApplicationId));
    setVersion(db, kSchemaVersion);
}

void migrateToCurrent(Database& db, std::int64_t fromVersion) {
    if (fromVersion < 1 || fromVersion >= kSchemaVersion)
        throw SqliteError("no migration from schema version " + std::to_string(fromVersion));
    std::int64_t version = fromVersion;
    if (version == 1) {
        migrateV1ToV2(db);
        version = 2;
    }
    if (version == 2) {
        migrateV2ToV3(db);
        version = 3;
    }
    if (version == 3) {
        migrateV3ToV4(db);
        version = 4;
    }
    if (version == 4) {
        migrateV4ToV5(db);
        version = 5;
    }
    if (version == 5) {
        migrateV5ToV6(db);
        version = 6;
    }
    // Future steps: if (version == 6) { migrateV6ToV7(db); version = 7; } ...
}

}  // namespace dpmix::project
