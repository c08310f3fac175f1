#include "engine/project/hash_chain.h"

#include "engine/data/sha256.h"

#include <cstdio>
#include <stdexcept>

namespace dpmix::project {
void appendHashField(data::Sha256& h, char tag, const std::string& bytes) {
    const std::string head = std::string(1, tag) + std::to_string(bytes.size()) + ":";
    h.update(head);
    h.update(bytes);
}

void appendHashValue(data::Sha256& h, const SqlValue& v) {
    if (std::holds_alternative<std::monostate>(v)) {
        appendHashField(h, 'N', "");
    } else if (const auto* i = std::get_if<std::int64_t>(&v)) {
        appendHashField(h, 'I', std::to_string(*i));
    } else if (const auto* d = std::get_if<double>(&v)) {
        char buffer[40];
        std::snprintf(buffer, sizeof buffer, "%.17g", *d);  // round-trips every double
        appendHashField(h, 'R', buffer);
    } else {
        appendHashField(h, 'T', std::get<std::string>(v));
    }
}

namespace {

std::string selectColumns(const ChainedTable& table) {
    std::string cols;
    for (const char* c : table.columns) {
        if (!cols.empty()) cols += ", ";
        cols += c;
    }
    return cols;
}

std::vector<SqlValue> rowValues(const Statement& s, std::size_t count) {
    std::vector<SqlValue> values;
    values.reserve(count);
    for (std::size_t i = 0; i < count; ++i) values.push_back(s.value(static_cast<int>(i)));
    return values;
}

}  // namespace

// A table added by a later schema is missing from an older file that is read (read-only)
// without being migrated, and from a v1 file while it is migrated: nothing of it to seal or check.
bool chainedTableMissing(Database& db, const ChainedTable& table) {
    if (!table.addedLater) return false;
    Statement s(db.handle(), "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?");
    s.bind(1, std::string(table.name));
    return !s.step() || s.integer(0) == 0;
}

const std::vector<ChainedTable>& chainedTables() {
    static const std::vector<ChainedTable> tables = {
        {"spec", {"id", "spec_json", "created_at", "created_by"}},
        {"sources",
         {"id", "role", "name", "loader", "path", "options_json", "user_level", "kind", "examples", "users",
          "label_names_json", "domains_json", "channels", "height", "width", "content_hash"}},
        // Only a run's identity is sealed: status, timestamps and message change as it runs.
        {"runs", {"id", "method", "task", "epsilon", "seed", "config_json", "build_version", "created_at"}},
        {"ledgers", {"id", "run_id", "recorded_at", "ledger_json", "recorded_epsilon", "recorded_delta"}},
        {"lambdas", {"id", "run_id", "kind", "names_json", "values_json"}},
        {"metrics", {"id", "run_id", "name", "class_name", "value"}},
        {"curves", {"id", "run_id", "name", "step", "value"}},
        {"audits",
         {"id", "run_id", "name", "false_positives", "false_negatives", "negatives", "positives", "delta", "confidence",
          "epsilon_lower_bound", "details_json"}},
        {"logs", {"id", "run_id", "at", "level", "message"}},
        {"models", {"id", "run_id", "name", "content_hash", "file_name", "bytes"}},
        {"release", {"id", "manifest_json"}, true},
        // v6: every status a run took, in order (run_transitions.h), so a status edit is seen.
        {"run_transitions", {"id", "run_id", "status", "at", "message"}, true},
    };
    return tables;
}

const ChainedTable& chainedTable(const std::string& name) {
    for (const ChainedTable& t : chainedTables())
        if (name == t.name) return t;
    throw std::logic_error("not a chained table: " + name);
}

const std::string& genesisHash() {
    static const std::string zeros(64, '0');
    return zeros;
}

std::string rowHash(const std::string& previousHash, const std::string& table, const std::vector<SqlValue>& values) {
    data::Sha256 h;
    h.update("dpmix-row/1\n");
    appendHashField(h, 'P', previousHash);
    appendHashField(h, 'S', table);
    for (const SqlValue& v : values) appendHashValue(h, v);
    return h.hexDigest();
}

RowSealer::RowSealer(Database& db, const ChainedTable& table)
    : table_(table),
      select_(db.handle(), "SELECT " + selectColumns(table) + " FROM " + table.name + " WHERE id = ?"),
      update_(db.handle(), "UPDATE " + std::string(table.name) + " SET row_hash = ? WHERE id = ?") {}

void RowSealer::seal(std::int64_t rowId) {
    if (previous_.empty()) {  // first row of this batch: chain onto the table's last sealed row
        previous_ = genesisHash();
        Statement prev(select_.database(),
                       "SELECT row_hash FROM " + std::string(table_.name) + " WHERE id < ? ORDER BY id DESC LIMIT 1");
        prev.bind(1, rowId);
        if (prev.step()) previous_ = prev.text(0);
    }
    select_.bind(1, rowId);
    if (!select_.step())
        throw SqliteError(std::string(table_.name) + " row " + std::to_string(rowId) + " vanished before sealing");
    previous_ = rowHash(previous_, table_.name, rowValues(select_, table_.columns.size()));
    select_.reset();
    update_.bind(1, previous_).bind(2, rowId).run();
}

void sealRow(Database& db, const ChainedTable& table, std::int64_t rowId) { RowSealer(db, table).seal(rowId); }

void sealAllRows(Database& db) {
    for (const ChainedTable& table : chainedTables()) {
        if (chainedTableMissing(db, table)) continue;
        const std::string name = table.name;
        Statement rows(db.handle(), "SELECT " + selectColumns(table) + " FROM " + name + " ORDER BY id");
        Statement update(db.handle(), "UPDATE " + name + " SET row_hash = ? WHERE id = ?");
        std::string previous = genesisHash();
        while (rows.step()) {
            previous = rowHash(previous, name, rowValues(rows, table.columns.size()));
            update.bind(1, previous).bind(2, rows.integer(0)).run();
        }
    }
}

ChainVerification verifyChains(Database& db) {
    ChainVerification result;
    for (const ChainedTable& table : chainedTables()) {
        if (chainedTableMissing(db, table)) continue;
        const std::string name = table.name;
        Statement rows(db.handle(), "SELECT " + selectColumns(table) + ", row_hash FROM " + name + " ORDER BY id");
        const auto n = table.columns.size();
        std::string previous = genesisHash();
        while (rows.step()) {
            ++result.rowsChecked;
            const std::string expected = rowHash(previous, name, rowValues(rows, n));
            const std::string stored = rows.isNull(static_cast<int>(n)) ? "" : rows.text(static_cast<int>(n));
            if (stored != expected) {
                result.ok = false;
                result.firstBreak = ChainBreak{name, rows.integer(0), stored, expected};
                return result;
            }
            previous = stored;
        }
    }
    return result;
}

}  // namespace dpmix::project
