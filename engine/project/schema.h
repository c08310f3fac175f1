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
#include <cstdint>

namespace dpmix::project {

class Database;

inline constexpr std::int64_t kSchemaVersion = 2;
inline constexpr std::int64_t kApplicationId = 0x44504D58;  // "DPMX"

/// Creates every table of the current schema in an empty database (caller holds a transaction).
void createCurrentSchema(Database& db);

/// Upgrades a file at `fromVersion` (1 <= fromVersion < kSchemaVersion) step by step to the
/// current version (caller holds a transaction, so a failed step changes nothing).
void migrateToCurrent(Database& db, std::int64_t fromVersion);

}  // namespace dpmix::project
