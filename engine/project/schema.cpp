#include "engine/project/schema.h"

#include "engine/project/hash_chain.h"
#include "engine/project/sqlite_db.h"

#include <string>

namespace dpmix::project {
namespace {

// The current (v2) schema. Rows of every table except `runs`' mutable status columns are
// covered by the hash chain; `runs.status`, timestamps and message change while a run goes on.
constexpr const char* kCurrentSchemaSql = R"SQL(
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
CREATE TABLE runs(
  id INTEGER PRIMARY KEY,
  method TEXT NOT NULL,
  task TEXT NOT NULL,
  epsilon REAL,
  seed INTEGER NOT NULL,
  config_json TEXT NOT NULL,
  build_version TEXT NOT NULL,
  created_at TEXT NOT NULL,
  status TEXT NOT NULL CHECK(status IN ('queued', 'running', 'done', 'failed', 'cancelled')),
  started_at TEXT,
  finished_at TEXT,
  message TEXT NOT NULL DEFAULT '',
  row_hash TEXT);
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
CREATE INDEX ledgers_run ON ledgers(run_id);
CREATE INDEX lambdas_run ON lambdas(run_id);
CREATE INDEX metrics_run ON metrics(run_id);
CREATE INDEX curves_run ON curves(run_id, name, step);
CREATE INDEX audits_run ON audits(run_id);
CREATE INDEX logs_run ON logs(run_id);
CREATE INDEX models_run ON models(run_id);
)SQL";

void setVersion(Database& db, std::int64_t version) {
    db.exec("PRAGMA user_version = " + std::to_string(version));
}

// v1 → v2: add the hash-chain column everywhere and seal the rows that are already there.
void migrateV1ToV2(Database& db) {
    for (const ChainedTable& table : chainedTables())
        db.exec("ALTER TABLE " + std::string(table.name) + " ADD COLUMN row_hash TEXT");
    sealAllRows(db);
    setVersion(db, 2);
}

}  // namespace

void createCurrentSchema(Database& db) {
    db.exec(kCurrentSchemaSql);
    db.exec("PRAGMA application_id = " + std::to_string(kApplicationId));
    setVersion(db, kSchemaVersion);
}

void migrateToCurrent(Database& db, std::int64_t fromVersion) {
    if (fromVersion < 1 || fromVersion >= kSchemaVersion)
        throw SqliteError("no migration from schema version " + std::to_string(fromVersion));
    if (fromVersion == 1) migrateV1ToV2(db);
    // Future steps: if (version == 2) migrateV2ToV3(db); ...
}

}  // namespace dpmix::project
