#pragma once
// A thin RAII layer over the SQLite C API for the project module: one connection, prepared
// statements, and transactions that roll back unless committed. Errors are thrown as
// SqliteError inside the module and turned into dpmix::Error at the public API boundary, so a
// failed write never leaves a half-applied transaction behind.
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace dpmix::project {

struct SqliteError : std::runtime_error {
    explicit SqliteError(const std::string& what, int code = 0, int systemErrno = 0)
        : std::runtime_error(what), code(code), systemErrno(systemErrno) {}
    int code;         // SQLite's extended result code (0: not from SQLite)
    int systemErrno;  // the OS error behind an I/O error (EFBIG: the file-size limit), or 0
    /// Another connection held the lock for longer than the busy timeout.
    bool busy() const;
};

/// One column value as SQLite returned it (NULL, INTEGER, REAL, TEXT; BLOBs are read as text).
using SqlValue = std::variant<std::monostate, std::int64_t, double, std::string>;

class Statement {
public:
    Statement(sqlite3* db, const std::string& sql);
    ~Statement();
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;

    Statement& bind(int index, std::int64_t value);
    Statement& bind(int index, int value) { return bind(index, static_cast<std::int64_t>(value)); }
    Statement& bind(int index, double value);
    Statement& bind(int index, const std::string& value);
    Statement& bind(int index, const char* value) { return bind(index, std::string(value)); }
    Statement& bindNull(int index);
    Statement& bind(int index, const std::optional<double>& value);

    /// Advances to the next row; false when done. Throws on error.
    bool step();
    /// Runs a statement that returns no rows.
    void run();
    void reset();

    int columnCount() const;
    bool isNull(int column) const;
    std::int64_t integer(int column) const;
    double real(int column) const;
    std::string text(int column) const;
    SqlValue value(int column) const;
    sqlite3* database() const { return db_; }

private:
    sqlite3* db_;
    sqlite3_stmt* stmt_ = nullptr;
    std::string sql_;
};

class Database {
public:
    /// ReadOnly: SQLITE_OPEN_READONLY (a WAL file still needs its -shm, which SQLite creates
    /// next to it when the folder allows). ReadOnlyImmutable: `immutable=1`, no locks and no
    /// -shm at all, for a file nobody can change (a read-only folder without a -wal).
    enum class Mode { ReadWrite, ReadWriteCreate, ReadOnly, ReadOnlyImmutable };
    static constexpr int kDefaultBusyTimeoutMs = 10000;
    Database(const std::string& path, Mode mode);
    ~Database();
    Database(const Database&) = delete;
    Database& operator=(const Database&) = delete;

    void exec(const std::string& sql);
    std::int64_t pragmaInteger(const std::string& name);
    std::int64_t lastInsertRowId() const;
    void setBusyTimeout(int milliseconds);
    sqlite3* handle() const { return db_; }
    const std::string& path() const { return path_; }
    /// Removes `folder` (a private copy this connection reads) once the connection is closed.
    void removeFolderOnClose(std::string folder) { removeOnClose_ = std::move(folder); }

    /// Called by every Transaction of this connection: `afterBegin` once it holds the write
    /// lock (it may throw to refuse the write), `beforeCommit` just before COMMIT (what it
    /// writes commits with the transaction). The project file keeps its seal this way (seal.h).
    struct TransactionHooks {
        std::function<void(Database&)> afterBegin, beforeCommit;
    };
    void setTransactionHooks(TransactionHooks hooks) { hooks_ = std::move(hooks); }
    const TransactionHooks& transactionHooks() const { return hooks_; }

private:
    sqlite3* db_ = nullptr;
    std::string path_;
    std::string removeOnClose_;
    std::pair<unsigned long long, unsigned long long> fileId_{0, 0};  // device, inode; {0, 0}: none
    TransactionHooks hooks_;
};

/// True when this process holds an open Database on the file `path` names (same device and
/// inode). Closing any descriptor of a file drops every POSIX lock this process holds on it,
/// SQLite's included: code that opens a project's files itself (its header, its -shm) asks
/// first, and holds openRegistryLock() while it has them open, so that no Database of this
/// process opens them meanwhile.
bool openInThisProcess(const std::string& path);
std::unique_lock<std::recursive_mutex> openRegistryLock();

/// BEGIN IMMEDIATE on construction, ROLLBACK on destruction unless commit() was called.
class Transaction {
public:
    explicit Transaction(Database& db);
    ~Transaction();
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;
    void commit();

private:
    Database& db_;
    bool done_ = false;
};

}  // namespace dpmix::project
