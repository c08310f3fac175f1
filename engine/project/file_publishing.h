#pragma once
// Internal to the project module: how a new project file appears on disk. A file is built under
// a temporary name and published by a rename that never replaces a file another process has
// published meanwhile (project_file.cpp's create, release_export.cpp's export).
#include <filesystem>

namespace dpmix::project {
class Database;
}

namespace dpmix::project::detail {

/// Holds an exclusive flock on a folder while a new project is published into it, so that two
/// processes creating the same file (and clearing the side files of an earlier one) take turns.
/// Best effort where the file system has no flock on folders: the no-replace publish still
/// guarantees that no project is replaced.
class FolderLock {
public:
    explicit FolderLock(const std::filesystem::path& folder);
    ~FolderLock();
    FolderLock(const FolderLock&) = delete;
    FolderLock& operator=(const FolderLock&) = delete;

private:
    int fd_ = -1;
};

/// Moves a finished temporary project to `file` unless `file` exists. False: it exists (the
/// temporary file is left for the caller to remove). Holds the folder lock throughout.
bool publishNoReplace(const std::filesystem::path& temp, const std::filesystem::path& file);

/// Publishes `temp` as `file`: with `replace`, over an existing file (its stale -wal and -shm
/// removed first, so they are not replayed into the new one), else as publishNoReplace.
bool publish(const std::filesystem::path& temp, const std::filesystem::path& file, bool replace);

/// Removes a database file and its -wal, -shm and -journal side files (errors ignored).
void removeDatabaseFiles(const std::filesystem::path& file);

/// WAL, synchronous FULL, foreign keys on: every connection that writes a project.
void configureConnection(Database& db);

}  // namespace dpmix::project::detail
