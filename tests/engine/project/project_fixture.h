#pragma once
// Small in-memory specs and raw-SQL helpers shared by the project-file tests.
#include "engine/project/hash_chain.h"
#include "engine/project/project_file.h"
#include "engine/project/project_spec.h"
#include "engine/project/seal.h"
#include "engine/project/sqlite_db.h"

#include <sqlite3.h>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace dpmix::project::testing {

inline ProjectSpec tinySpec() {
    ProjectSpec spec;
    spec.name = "tiny";
    spec.description = "two public label tasks over four classes";
    SpecSource pub;
    pub.written = {
        "public-images", "idx", "public/images.idx", {{"labels", "public/labels.idx"}, {"classes", "a,b,c,d"}}};
    spec.publicSources.push_back(pub);
    spec.sensitive.written = {"private-images", "idx", "private/images.idx", {{"classes", "a,b,c,d"}}};
    spec.publicTasks = {{"ab", {"a", "b"}}, {"cd", {"c", "d"}}};
    spec.sensitiveTasks = {{"ac", {"a", "c"}}};
    spec.privacy.epsilons = {1.0, 2.0};
    spec.privacy.delta = 1e-5;
    spec.privacy.rho = 0.1;
    spec.seeds = {0, 1};
    return spec;
}

inline std::vector<SourceFacts> tinyFacts() {
    SourceFacts pub{dpmix::data::SourceKind::Images, 60, {"a", "b", "c", "d"}, {}, 0, std::string(64, 'a'), 1, 4, 4};
    SourceFacts priv{dpmix::data::SourceKind::Images, 40, {"a", "b", "c", "d"}, {}, 0, std::string(64, 'b'), 1, 4, 4};
    return {pub, priv};
}

/// Runs SQL on a file with the raw C API (what a tamperer or an old dpmix would do).
inline void rawExec(const std::string& file, const std::string& sql) {
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK)
        throw std::runtime_error("open " + file);
    char* message = nullptr;
    const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message);
    const std::string text = message ? message : "";
    sqlite3_free(message);
    sqlite3_close(db);
    if (rc != SQLITE_OK) throw std::runtime_error("SQL failed: " + text + " in: " + sql);
}

inline long long rawInteger(const std::string& file, const std::string& sql) {
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK)
        throw std::runtime_error("open " + file);
    sqlite3_stmt* stmt = nullptr;
    long long value = -1;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK && sqlite3_step(stmt) == SQLITE_ROW)
        value = sqlite3_column_int64(stmt, 0);
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return value;
}

inline std::string rawText(const std::string& file, const std::string& sql) {
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK)
        throw std::runtime_error("open " + file);
    sqlite3_stmt* stmt = nullptr;
    std::string value;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK && sqlite3_step(stmt) == SQLITE_ROW)
        if (const auto* text = sqlite3_column_text(stmt, 0)) value = reinterpret_cast<const char*>(text);
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return value;
}

/// Recomputes the hash chain and the seal over the file's content as it is (what a tamperer
/// who has dpmix's code could do after an edit): neither shows the edit any more.
inline void resealBehindTheApi(const std::string& file) {
    Database db(file, Database::Mode::ReadWrite);
    db.exec("BEGIN IMMEDIATE");
    sealAllRows(db);
    writeSeal(db);
    db.exec("COMMIT");
}

inline std::string readBytes(const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

inline void writeBytes(const std::string& file, const std::string& bytes) {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << bytes;
}

}  // namespace dpmix::project::testing
