#pragma once
// The .dpmix schema: creation of the current version and forward migrations from older ones.
// The version lives in PRAGMA user_version, the file type in PRAGMA application_id.
//
// History:
//   v1  spec, sources, runs, ledgers and result tables (lambdas, metrics, curves, audits, logs,
//       models).
//   v2  every spec/source/run/ledger/result row carries row_hash, a SHA-256 chained over the
//       previous row's hash and the row's own content (hash_chain.h); migrating a v1 file
//       seals its existing rows in id order.
//   v3  runs record the process that runs them (owner_host, owner_pid, owner_start:
//       process_identity.h) and may be 'interrupted' (their process ended without finishing
//       them). Migrating a v2 file rebuilds `runs` (SQLite cannot change a CHECK constraint in
//       place), keeping every row, id and row_hash; queued or running rows, which no process
//       can be known to own, become interrupted.
//   v4  `release`: empty in a project; in a DP release made by `dpmix export-release`, one row
//       with the export's manifest (release_manifest.h), which makes the file read-only.
//   v5  `working_settings`: at most one row, the settings a user saved for the next run (the
//       workbench's panel values as JSON: working_settings.h). Outside the hash chain — they
//       are a draft, not a result — and never exported into a release.
//   v6  tamper evidence a reviewer can rely on: `run_transitions` (chained: every status a run
//       took, run_transitions.h), `seal` (one row: every chained table's row count and last
//       hash, and a digest of the runs' statuses, rewritten with every write: seal.h) and
//       `signatures` (the data owner's Ed25519 signatures over the seal: file_signature.h).
//       Migrating a v5 file records each run's current status as its first transition.
#include <cstdint>

namespace dpmix::project {

class Database;

inline constexpr std::int64_t kSchemaVersion = 6;
inline constexpr std::int64_t kApplicationId = 0x44504D58;  // "DPMX"

/// Creates every table of the current schema in an empty database (caller holds a transaction).
void createCurrentSchema(Database& db);

/// Upgrades a file at `fromVersion` (1 <= fromVersion < kSchemaVersion) step by step to the
/// current version (caller holds a transaction, so a failed step changes nothing, and has
/// turned foreign keys off: the v2 → v3 step rebuilds a parent table).
void migrateToCurrent(Database& db, std::int64_t fromVersion);

}  // namespace dpmix::project
