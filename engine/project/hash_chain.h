#pragma once
// Tamper evidence for the project file: every spec/source/run/ledger/result row stores
// row_hash = SHA-256 over the previous row's hash (same table, by id) and the row's own
// content, so editing, reordering or deleting a row (other than the last) breaks the chain at
// that row. It detects accidental or casual edits; it is not a signature (anyone can reseal).
// The last rows are covered by the seal (seal.h: row counts and chain heads), run status by the
// chained run_transitions table, origin by the owner's signature (file_signature.h).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/project/sqlite_db.h"

namespace dpmix::data {
class Sha256;
}

namespace dpmix::project {

/// Feeds one field into a hash as its tag, decimal length, ':' and the bytes: unambiguous
/// whatever the content. The chain's row hashes and the signature's content digest both use it.
void appendHashField(data::Sha256& h, char tag, const std::string& bytes);
/// Feeds one stored value: NULL, integer, real (as "%.17g", which round-trips) or text, tagged
/// by its type so that 1, 1.0 and "1" hash apart.
void appendHashValue(data::Sha256& h, const SqlValue& v);

struct ChainedTable {
    const char* name;
    std::vector<const char*> columns;  // hashed columns in order (id first)
    bool addedLater = false;           // absent from an older file read without migrating it
};

/// The chained tables in the order verification walks them.
const std::vector<ChainedTable>& chainedTables();
const ChainedTable& chainedTable(const std::string& name);

/// True when a table added by a later schema is absent from this (older, unmigrated) file.
bool chainedTableMissing(Database& db, const ChainedTable& table);

/// The hash that precedes a table's first row.
const std::string& genesisHash();

/// SHA-256 over previous hash, table name and the values (type-tagged, length-prefixed).
std::string rowHash(const std::string& previousHash, const std::string& table, const std::vector<SqlValue>& values);

/// Computes and stores row_hash of one freshly inserted row (caller holds a transaction).
void sealRow(Database& db, const ChainedTable& table, std::int64_t rowId);

/// Seals rows appended one after another to one table within one transaction: the previous
/// hash is carried forward and the statements are prepared once (for batches like curves).
class RowSealer {
public:
    RowSealer(Database& db, const ChainedTable& table);
    void seal(std::int64_t rowId);  // rowId must be larger than every id sealed before

private:
    const ChainedTable& table_;
    Statement select_, update_;
    std::string previous_;
};

/// Reseals every row of every chained table (used by the v1 → v2 migration).
void sealAllRows(Database& db);

struct ChainBreak {
    std::string table;
    std::int64_t rowId = 0;
    std::string storedHash;
    std::string expectedHash;
};

struct ChainVerification {
    bool ok = true;
    long long rowsChecked = 0;
    std::optional<ChainBreak> firstBreak;  // the first row (in chainedTables() order) that fails
};

ChainVerification verifyChains(Database& db);

}  // namespace dpmix::project
