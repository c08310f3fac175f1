#pragma once
// The trailing seal of a project file (schema v6): one row holding, for every chained table,
// its row count and the hash of its last row, and a digest of every run's status, timestamps
// and message. The hash chain (hash_chain.h) cannot see its own last rows go — delete the last
// run with its rows and what remains still chains — nor a run's status, which changes as the
// run goes on; the seal covers both. It is rewritten in the same transaction as every write
// (Database::TransactionHooks), and a write is refused when the file no longer matches it.
//
// Like the chain it is unkeyed: it catches accidents and naive edits (sqlite3 on the file);
// someone who recomputes it too is caught only by the owner's signature (file_signature.h).
#include "engine/project/sqlite_db.h"

#include <string>
#include <vector>

namespace dpmix::project {

/// What the seal records, computed from the file as it is now.
struct SealState {
    std::string json;  // {"tables": {name: {"rows": n, "head": hash}}, "runs": digest}, canonical
    std::string hash;  // SHA-256 of "dpmix-seal/1\n" + json: what a signature signs
};

SealState computeSealState(Database& db);

/// True when the file has a `seal` table (schema 6 or later).
bool hasSealTable(Database& db);

/// Writes the seal of the current content (caller holds a transaction); nothing without the table.
void writeSeal(Database& db);

struct SealCheck {
    bool present = false;               // false: a file older than schema 6, read without migrating it
    bool ok = true;                     // the stored seal matches the file (true when absent: nothing to check)
    std::vector<std::string> problems;  // what differs, in words
    std::string storedHash;             // the stored seal's hash (empty when absent)
};

/// Compares the stored seal with the file as it is.
SealCheck checkSeal(Database& db);

/// Makes every transaction of `db` refuse to write to a file whose seal does not match it
/// (someone edited it outside dpmix) and rewrite the seal before it commits.
void keepSeal(Database& db);

/// The refusal keepSeal's transactions throw: the file was altered outside dpmix.
struct SealBroken : SqliteError {
    using SqliteError::SqliteError;
};

}  // namespace dpmix::project
