#include "engine/project/file_publishing.h"

#include "engine/project/seal.h"
#include "engine/project/sqlite_db.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>

#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <unistd.h>

namespace dpmix::project::detail {

namespace fs = std::filesystem;

FolderLock::FolderLock(const fs::path& folder) {
    fd_ = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd_ < 0) return;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(Database::kDefaultBusyTimeoutMs);
    while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
        if (errno == EINTR) continue;
        if (errno != EWOULDBLOCK) {  // not supported here
            ::close(fd_);
            fd_ = -1;
            return;
        }
        if (std::chrono::steady_clock::now() > deadline)
            throw SqliteError("another process is creating a project in " + folder.string(), 5 /* SQLITE_BUSY */);
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

FolderLock::~FolderLock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the lock
}

// Inside createImpl's try: the exception becomes the Error that names the file.
static void renameOrThrow(const fs::path& temp, const fs::path& file) {
    std::error_code ec;
    fs::rename(temp, file, ec);
    if (ec) throw std::runtime_error("cannot rename " + temp.string() + " to " + file.string() + ": " + ec.message());
}

bool publishNoReplace(const fs::path& temp, const fs::path& file) {
    FolderLock lock(file.parent_path().empty() ? fs::path(".") : file.parent_path());
    std::error_code ec;
    if (fs::exists(fs::symlink_status(file, ec))) return false;
    // Side files of an earlier project of this name (deleted without its -wal) would be
    // replayed into ours: nobody can be using them, since the file is absent and we hold the lock.
    for (const char* side : {"-wal", "-shm", "-journal"}) fs::remove(file.string() + side, ec);
#ifdef RENAME_NOREPLACE
    if (::renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, file.c_str(), RENAME_NOREPLACE) == 0) return true;
    if (errno == EEXIST) return false;
    if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
        throw std::runtime_error("cannot rename " + temp.string() + " to " + file.string() + ": " +
                                 std::strerror(errno));
#endif
    // No renameat2 here: a hard link fails atomically when the name is taken.
    if (::link(temp.c_str(), file.c_str()) == 0) {
        ::unlink(temp.c_str());
        return true;
    }
    if (errno == EEXIST) return false;
    // No hard links either (some network or FAT file systems): rename under the folder lock.
    if (fs::exists(fs::symlink_status(file, ec))) return false;
    renameOrThrow(temp, file);
    return true;
}

bool publish(const fs::path& temp, const fs::path& file, bool replace) {
    if (!replace) return publishNoReplace(temp, file);
    FolderLock lock(file.parent_path().empty() ? fs::path(".") : file.parent_path());
    removeDatabaseFiles(file);
    renameOrThrow(temp, file);
    return true;
}

void removeDatabaseFiles(const fs::path& file) {
    std::error_code ignored;
    fs::remove(file, ignored);
    fs::remove(file.string() + "-wal", ignored);
    fs::remove(file.string() + "-shm", ignored);
    fs::remove(file.string() + "-journal", ignored);
}

void configureConnection(Database& db) {
    db.exec("PRAGMA journal_mode = WAL");
    // FULL: a commit is on disk before the call returns (NORMAL would survive a process kill
    // but could lose the last commits on power loss).
    db.exec("PRAGMA synchronous = FULL");
    db.exec("PRAGMA foreign_keys = ON");
    keepSeal(db);  // every write checks and rewrites the file's seal (seal.h)
}

}  // namespace dpmix::project::detail
