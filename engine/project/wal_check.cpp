#include "engine/project/wal_check.h"

#include "engine/core/file_door.h"
#include "engine/project/hash_chain.h"
#include "engine/project/schema.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace dpmix::project {
namespace {

// SQLite's unix VFS: every connection in WAL mode holds a read lock on this byte of the -shm
// (the "DMS" slot: 120 bytes of lock slots, then SQLITE_SHM_NLOCK = 8) for as long as it is open.
constexpr off_t kShmDmsByte = 128;
constexpr std::uint64_t kMaxCopyBytes = std::uint64_t(1) << 40;

std::string fileName(const std::string& path) {
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// A present side file must be a plain file: lstat, so that a link is refused, not followed.
Result<bool> sideFile(const std::string& file, const std::string& suffix, std::uint64_t* size) {
    const std::string side = file + suffix;
    struct stat st {};
    if (::lstat(side.c_str(), &st) != 0) {
        if (errno == ENOENT) return false;
        return Error{files::describeError(side, errno)};
    }
    if (!S_ISREG(st.st_mode))
        return Error{"'" + files::shown(side) + "' is not a regular file (" +
                     (S_ISLNK(st.st_mode) ? std::string("a symbolic link") : std::string("a FIFO, socket or device")) +
                     "): SQLite's " + suffix.substr(1) + " file of " + fileName(file) +
                     " is a plain file it writes itself. Move it out of the folder, then open " + fileName(file) +
                     " again"};
    if (size) *size = static_cast<std::uint64_t>(st.st_size);
    return true;
}

// Whether another process holds the -shm's DMS lock (F_GETLK never reports this process's own).
bool anotherProcessUsesWal(const std::string& shm) {
    const int fd = ::open(shm.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return false;
    struct stat st {};
    bool live = false;
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        struct flock probe {};
        probe.l_type = F_WRLCK;
        probe.l_whence = SEEK_SET;
        probe.l_start = kShmDmsByte;
        probe.l_len = 1;
        live = ::fcntl(fd, F_GETLK, &probe) == 0 && probe.l_type != F_UNLCK;
    }
    ::close(fd);
    return live;
}

// The last row (id, row_hash) of each sealed table of a database, in chainedTables() order.
struct LastRow {
    std::string table;
    std::int64_t id = 0;
    std::string rowHash;
};

bool hasTable(Database& db, const std::string& table) {
    Statement s(db.handle(), "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?");
    s.bind(1, table);
    return s.step();
}

std::vector<LastRow> lastRows(Database& db) {
    std::vector<LastRow> rows;
    for (const ChainedTable& t : chainedTables()) {
        if (!hasTable(db, t.name)) continue;
        const std::string table = t.name;
        bool sealed = true;
        try {
            Statement probe(db.handle(), "SELECT row_hash FROM " + table + " LIMIT 0");
        } catch (const SqliteError&) {
            sealed = false;  // a schema-1 file: no row hashes yet
        }
        Statement s(db.handle(), "SELECT id, " + std::string(sealed ? "row_hash" : "''") + " FROM " + table +
                                     " ORDER BY id DESC LIMIT 1");
        if (s.step()) rows.push_back({table, s.integer(0), s.text(1)});
    }
    return rows;
}

// A private folder for the copy: $TMPDIR or /tmp.
Result<std::string> privateFolder() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/dpmix-wal-check-XXXXXX";
    std::vector<char> name(pattern.begin(), pattern.end());
    name.push_back('\0');
    if (!::mkdtemp(name.data()))
        return Error{"cannot create a private folder to check it in (" + pattern + "): " + std::strerror(errno)};
    return std::string(name.data());
}

std::string whatToDo(const std::string& file) {
    const std::string name = fileName(file);
    return "SQLite would have written it into the project on opening, destroying it; dpmix opened nothing and " + name +
           " is unchanged. Move " + name + "-wal (and " + name +
           "-shm, if present) out of the folder — a copied or restored folder can hold another file's — then open " +
           name + " again: it holds everything up to its last checkpoint";
}

}  // namespace

Result<SideFiles> inspectSideFiles(const std::string& file) {
    SideFiles side;
    if (openInThisProcess(file)) {
        side.live = true;  // this process's own connection: its files are SQLite's, in use
        return side;
    }
    auto header = files::readPrefix(file, "a project file", 20);
    if (!header) return header.error();
    side.walMode = header->size() >= 20 && static_cast<unsigned char>((*header)[18]) == 2;
    // Whether a connection is live first, the -wal after: a writer that closes in between has
    // deleted its -wal by then (SQLite removes it before it lets go of the -shm's lock).
    auto shm = sideFile(file, "-shm", nullptr);
    if (!shm) return shm.error();
    side.live = *shm && anotherProcessUsesWal(file + "-shm");
    std::uint64_t walSize = 0;
    auto wal = sideFile(file, "-wal", &walSize);
    if (!wal) return wal.error();
    auto journal = sideFile(file, "-journal", nullptr);
    if (!journal) return journal.error();
    side.walHoldsData = *wal && walSize > 0;
    side.journal = *journal;
    return side;
}

Result<std::unique_ptr<Database>> replayLeftoverWalAside(const std::string& file) {
    const std::string name = fileName(file);
    auto folder = privateFolder();
    if (!folder)
        return Error{file + "-wal holds changes no process is writing, and checking that they belong to " + name +
                     " failed: " + folder.error().message};
    const std::string copy = *folder + "/project.dpmix";
    auto refuse = [&](const std::string& why) -> Error {
        files::removeTreeQuietly(*folder);
        return Error{files::shown(file) + "-wal does not belong to " + name + ": " + why + ". " + whatToDo(file)};
    };
    auto failed = [&](const std::string& why) -> Error {
        files::removeTreeQuietly(*folder);
        return Error{files::shown(file) +
                     "-wal holds changes no process is writing, and checking that they belong to " + name +
                     " failed (" + why + "); " + name +
                     " was not opened. Free space in the temporary folder (TMPDIR) and try again, or move " + name +
                     "-wal out of the folder to open the file as of its last checkpoint"};
    };
    if (auto e = files::copyRegularFile(file, copy, kMaxCopyBytes)) return failed(e->message);
    // What the file holds on its own (immutable: its -wal is ignored).
    std::vector<LastRow> before;
    try {
        Database alone(copy, Database::Mode::ReadOnlyImmutable);
        before = lastRows(alone);
    } catch (const std::exception& e) {
        return refuse(std::string("the file cannot be read without it (") + e.what() + ")");
    }
    if (auto e = files::copyRegularFile(file + "-wal", copy + "-wal", kMaxCopyBytes)) return failed(e->message);
    try {
        {
            Database replayed(copy, Database::Mode::ReadWrite);
            // Each statement ends before the checkpoint (an unfinished read would lock it out).
            auto why = [&]() -> std::string {
                {
                    Statement check(replayed.handle(), "PRAGMA quick_check(1)");
                    const std::string verdict = check.step() ? check.text(0) : std::string("no answer");
                    if (verdict != "ok") return "replayed, it gives a damaged database (" + verdict + ")";
                }
                if (replayed.pragmaInteger("application_id") != kApplicationId)
                    return "replayed, it gives a database that is not a dpmix project";
                for (const LastRow& row : before) {
                    if (!hasTable(replayed, row.table))
                        return "replayed, it removes the table " + row.table + " the file holds";
                    Statement s(replayed.handle(), "SELECT " + std::string(row.rowHash.empty() ? "''" : "row_hash") +
                                                       " FROM " + row.table + " WHERE id = ?");
                    s.bind(1, row.id);
                    if (!s.step())
                        return "replayed, it loses rows the file holds (table " + row.table + ", row id " +
                               std::to_string(row.id) + ")";
                    if (s.text(0) != row.rowHash)
                        return "replayed, it changes rows the file holds (table " + row.table + ", row id " +
                               std::to_string(row.id) + ": another database's log)";
                }
                return {};
            }();
            if (!why.empty()) return refuse(why);
            replayed.exec("PRAGMA wal_checkpoint(TRUNCATE)");
        }
        auto db = std::make_unique<Database>(copy, Database::Mode::ReadOnlyImmutable);
        db->removeFolderOnClose(*folder);
        return db;
    } catch (const SqliteError& e) {
        // The copy of the file alone read fine: a replayed copy that does not is the -wal's doing,
        // unless the temporary folder itself failed (full, unwritable, out of memory).
        const int primary = e.code & 0xff;
        if (primary == 5 /* BUSY */ || primary == 6 /* LOCKED */ || primary == 7 /* NOMEM */ ||
            primary == 10 /* IOERR */ || primary == 13 /* FULL */ || primary == 14 /* CANTOPEN */)
            return failed(e.what());
        return refuse(std::string("replayed, it gives a damaged database (") + e.what() + ")");
    } catch (const std::exception& e) {
        return failed(e.what());
    }
}

}  // namespace dpmix::project
