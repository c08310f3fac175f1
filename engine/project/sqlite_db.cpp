#include "engine/project/sqlite_db.h"

#include "engine/core/file_door.h"

#include <sqlite3.h>

#include <cctype>
#include <map>

#include <sys/stat.h>

namespace dpmix::project {
namespace {

[[noreturn]] void fail(sqlite3* db, const std::string& what) {
    throw SqliteError(what + ": " + (db ? sqlite3_errmsg(db) : "out of memory"),
                      db ? sqlite3_extended_errcode(db) : SQLITE_NOMEM, db ? sqlite3_system_errno(db) : 0);
}

// A file: URI for sqlite3_open_v2 (SQLITE_OPEN_URI): every byte outside [A-Za-z0-9/._~-]
// percent-encoded, so '?', '#' and '%' in a path are not read as URI syntax.
std::string fileUri(const std::string& path, const std::string& query) {
    static const char* hex = "0123456789ABCDEF";
    std::string uri = "file:";
    for (unsigned char c : path) {
        if (std::isalnum(c) || c == '/' || c == '.' || c == '_' || c == '~' || c == '-') {
            uri += static_cast<char>(c);
        } else {
            uri += '%';
            uri += hex[c >> 4];
            uri += hex[c & 15];
        }
    }
    return uri + "?" + query;
}

using FileId = std::pair<unsigned long long, unsigned long long>;

std::recursive_mutex& registryMutex() {
    static std::recursive_mutex m;
    return m;
}

std::map<FileId, int>& openFiles() {
    static std::map<FileId, int> files;
    return files;
}

FileId fileIdOf(const std::string& path) {
    struct stat st {};
    if (path.empty() || ::stat(path.c_str(), &st) != 0) return {0, 0};
    return {static_cast<unsigned long long>(st.st_dev), static_cast<unsigned long long>(st.st_ino)};
}

}  // namespace

std::unique_lock<std::recursive_mutex> openRegistryLock() { return std::unique_lock(registryMutex()); }

bool openInThisProcess(const std::string& path) {
    const FileId id = fileIdOf(path);
    if (id == FileId{0, 0}) return false;
    auto lock = openRegistryLock();
    const auto it = openFiles().find(id);
    return it != openFiles().end() && it->second > 0;
}

bool SqliteError::busy() const {
    const int primary = code & 0xff;
    return primary == SQLITE_BUSY || primary == SQLITE_LOCKED;
}

Statement::Statement(sqlite3* db, const std::string& sql) : db_(db), sql_(sql) {
    if (sqlite3_prepare_v2(db_, sql.c_str(), static_cast<int>(sql.size()), &stmt_, nullptr) != SQLITE_OK)
        fail(db_, "cannot prepare \"" + sql + "\"");
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement& Statement::bind(int index, std::int64_t value) {
    if (sqlite3_bind_int64(stmt_, index, value) != SQLITE_OK) fail(db_, "bind");
    return *this;
}
Statement& Statement::bind(int index, double value) {
    if (sqlite3_bind_double(stmt_, index, value) != SQLITE_OK) fail(db_, "bind");
    return *this;
}
Statement& Statement::bind(int index, const std::string& value) {
    if (sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT) != SQLITE_OK)
        fail(db_, "bind");
    return *this;
}
Statement& Statement::bindNull(int index) {
    if (sqlite3_bind_null(stmt_, index) != SQLITE_OK) fail(db_, "bind");
    return *this;
}
Statement& Statement::bind(int index, const std::optional<double>& value) {
    return value ? bind(index, *value) : bindNull(index);
}

bool Statement::step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail(db_, "\"" + sql_ + "\" failed");
}

void Statement::run() {
    while (step()) {}
    reset();
}

void Statement::reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
}

int Statement::columnCount() const { return sqlite3_column_count(stmt_); }
bool Statement::isNull(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }
std::int64_t Statement::integer(int column) const { return sqlite3_column_int64(stmt_, column); }
double Statement::real(int column) const { return sqlite3_column_double(stmt_, column); }
std::string Statement::text(int column) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
    return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column))) : std::string();
}

SqlValue Statement::value(int column) const {
    switch (sqlite3_column_type(stmt_, column)) {
        case SQLITE_NULL: return std::monostate{};
        case SQLITE_INTEGER: return integer(column);
        case SQLITE_FLOAT: return real(column);
        default: return text(column);
    }
}

Database::Database(const std::string& path, Mode mode) : path_(path) {
    int flags = SQLITE_OPEN_FULLMUTEX;
    std::string name = path;
    switch (mode) {
        case Mode::ReadWrite: flags |= SQLITE_OPEN_READWRITE; break;
        case Mode::ReadWriteCreate: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE; break;
        case Mode::ReadOnly:
            flags |= SQLITE_OPEN_READONLY | SQLITE_OPEN_URI;
            name = fileUri(path, "mode=ro");
            break;
        case Mode::ReadOnlyImmutable:
            flags |= SQLITE_OPEN_READONLY | SQLITE_OPEN_URI;
            name = fileUri(path, "mode=ro&immutable=1");
            break;
    }
    if (sqlite3_open_v2(name.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
        const std::string message = db_ ? sqlite3_errmsg(db_) : "out of memory";
        const int code = db_ ? sqlite3_extended_errcode(db_) : SQLITE_NOMEM;
        sqlite3_close(db_);
        db_ = nullptr;
        throw SqliteError("cannot open " + path + ": " + message, code);
    }
    sqlite3_extended_result_codes(db_, 1);
    fileId_ = fileIdOf(path);
    if (fileId_ != FileId{0, 0}) {
        auto lock = openRegistryLock();
        ++openFiles()[fileId_];
    }
    // Another process (the workbench, a second `dpmix run`) may hold the write lock for the
    // length of one transaction; wait that long before reporting the project busy.
    sqlite3_busy_timeout(db_, kDefaultBusyTimeoutMs);
}

void Database::setBusyTimeout(int milliseconds) { sqlite3_busy_timeout(db_, milliseconds); }

Database::~Database() {
    sqlite3_close_v2(db_);
    if (fileId_ != FileId{0, 0}) {
        auto lock = openRegistryLock();
        if (--openFiles()[fileId_] <= 0) openFiles().erase(fileId_);
    }
    if (!removeOnClose_.empty()) files::removeTreeQuietly(removeOnClose_);
}

void Database::exec(const std::string& sql) {
    char* message = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
        const std::string text = message ? message : sqlite3_errmsg(db_);
        sqlite3_free(message);
        throw SqliteError(text, sqlite3_extended_errcode(db_), sqlite3_system_errno(db_));
    }
}

std::int64_t Database::pragmaInteger(const std::string& name) {
    Statement s(db_, "PRAGMA " + name);
    if (!s.step()) throw SqliteError("PRAGMA " + name + " returned nothing");
    return s.integer(0);
}

std::int64_t Database::lastInsertRowId() const { return sqlite3_last_insert_rowid(db_); }

Transaction::Transaction(Database& db) : db_(db) {
    db_.exec("BEGIN IMMEDIATE");
    if (!db_.transactionHooks().afterBegin) return;
    try {
        db_.transactionHooks().afterBegin(db_);
    } catch (...) {  // the write is refused: release the lock, change nothing
        try {
            db_.exec("ROLLBACK");
        } catch (...) {}
        throw;
    }
}

Transaction::~Transaction() {
    if (!done_) {
        try {
            db_.exec("ROLLBACK");
        } catch (...) {  // nothing more can be done in a destructor; the connection stays usable
        }
    }
}

void Transaction::commit() {
    if (db_.transactionHooks().beforeCommit) db_.transactionHooks().beforeCommit(db_);
    db_.exec("COMMIT");
    done_ = true;
}

}  // namespace dpmix::project
