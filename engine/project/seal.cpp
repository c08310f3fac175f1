#include "engine/project/seal.h"

#include "engine/data/sha256.h"
#include "engine/project/hash_chain.h"
#include "engine/project/strict_json.h"

#include <nlohmann/json.hpp>

namespace dpmix::project {
namespace {

using nlohmann::json;

std::string sealHashOf(const std::string& stateJson) { return data::sha256Hex("dpmix-seal/1\n" + stateJson); }

// A run's status, timestamps and message change as it runs, so the chain leaves them out; the
// seal covers them as they are after the last write.
std::string runsDigest(Database& db) {
    Statement s(db.handle(), "SELECT id, status, started_at, finished_at, message FROM runs ORDER BY id");
    std::string digest = genesisHash();
    while (s.step()) {
        std::vector<SqlValue> values;
        for (int i = 0; i < 5; ++i) values.push_back(s.value(i));
        digest = rowHash(digest, "runs-state", values);
    }
    return digest;
}

// A field of the stored seal as dpmix writes it, or a stand-in that never matches: an edited
// seal may hold anything (a string for a count, a deep nesting), and is then reported, never thrown.
long long countField(const json& sealed) {
    const auto it = sealed.find("rows");
    return it != sealed.end() && it->is_number_integer() ? it->get<long long>() : -1;
}
std::string textField(const json& object, const char* key) {
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string describeCount(long long n) { return std::to_string(n) + (n == 1 ? " row" : " rows"); }

}  // namespace

bool hasSealTable(Database& db) {
    Statement s(db.handle(), "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'seal'");
    return s.step() && s.integer(0) > 0;
}

SealState computeSealState(Database& db) {
    json tables = json::object();
    for (const ChainedTable& table : chainedTables()) {
        if (chainedTableMissing(db, table)) continue;
        const std::string name = table.name;
        Statement count(db.handle(), "SELECT count(*) FROM " + name);
        (void)count.step();
        Statement head(db.handle(), "SELECT row_hash FROM " + name + " ORDER BY id DESC LIMIT 1");
        const std::string last = head.step() && !head.isNull(0) ? head.text(0) : genesisHash();
        tables[name] = {{"rows", count.integer(0)}, {"head", last}};
    }
    SealState state;
    state.json = json{{"tables", tables}, {"runs", runsDigest(db)}}.dump();
    state.hash = sealHashOf(state.json);
    return state;
}

void writeSeal(Database& db) {
    if (!hasSealTable(db)) return;
    const SealState state = computeSealState(db);
    Statement s(db.handle(), "INSERT OR REPLACE INTO seal(id, state_json, seal_hash) VALUES(1, ?, ?)");
    s.bind(1, state.json).bind(2, state.hash).run();
}

SealCheck checkSeal(Database& db) {
    SealCheck check;
    if (!hasSealTable(db)) return check;
    check.present = true;
    Statement s(db.handle(), "SELECT state_json, seal_hash FROM seal WHERE id = 1");
    if (!s.step()) {
        check.ok = false;
        check.problems.push_back("the seal row is missing (removed outside dpmix): the last rows are not covered");
        return check;
    }
    const std::string storedJson = s.text(0);
    check.storedHash = s.isNull(1) ? "" : s.text(1);
    if (sealHashOf(storedJson) != check.storedHash)
        check.problems.push_back("the seal itself was edited (its hash does not match what it records)");
    json stored;
    try {
        stored = parseStrictJson(storedJson);
    } catch (const std::exception&) {
        stored = json();  // reported below as unreadable
    }
    const json now = json::parse(computeSealState(db).json);
    if (!stored.is_object() || !stored.contains("tables") || !stored["tables"].is_object()) {
        check.problems.push_back("the seal cannot be read (not the JSON dpmix writes)");
    } else {
        for (const auto& [name, current] : now["tables"].items()) {
            const json sealed = stored["tables"].value(name, json());
            if (!sealed.is_object()) {
                check.problems.push_back("table " + name + ": not in the seal");
                continue;
            }
            const long long had = countField(sealed), has = current["rows"].get<long long>();
            if (had != has)
                check.problems.push_back("table " + name + ": sealed with " + describeCount(had) + ", has " +
                                         describeCount(has) + " now (rows were " + (has < had ? "deleted" : "added") +
                                         " outside dpmix)");
            else if (textField(sealed, "head") != current["head"].get<std::string>())
                check.problems.push_back("table " + name +
                                         ": its last row is not the one sealed (replaced outside dpmix)");
        }
        for (const auto& [name, sealed] : stored["tables"].items())
            if (!now["tables"].contains(name))
                check.problems.push_back("table " + name + ": sealed, but gone from the file (dropped outside dpmix)");
        if (textField(stored, "runs") != now["runs"].get<std::string>())
            check.problems.push_back(
                "a run's status, timestamps or message differ from the sealed ones (changed "
                "outside dpmix)");
    }
    check.ok = check.problems.empty();
    return check;
}

void keepSeal(Database& db) {
    Database::TransactionHooks hooks;
    hooks.afterBegin = [](Database& d) {
        const SealCheck check = checkSeal(d);
        if (check.ok) return;
        std::string why;
        for (const auto& p : check.problems) why += (why.empty() ? "" : "; ") + p;
        throw SealBroken(d.path() + ": the file was altered outside dpmix since its last write (" + why +
                         "); nothing was written. `dpmix inspect` shows what changed; continue from an intact copy");
    };
    hooks.beforeCommit = [](Database& d) { writeSeal(d); };
    db.setTransactionHooks(std::move(hooks));
}

}  // namespace dpmix::project
