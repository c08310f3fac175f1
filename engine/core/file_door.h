#pragma once
// The one door to the file system for paths that come from outside: a project, a spec, an
// output named with -o, data, model files, CSV inputs, job folders. Why one door: a path a user
// types or a received file names can be a FIFO (opening it blocks forever), a device
// (/dev/zero reads without end), a loop of symbolic links, a name too long for the system, or a
// sparse file of a terabyte; each of these once ended a program in a hang, SIGABRT
// (std::filesystem_error) or std::bad_alloc (docs/RELIABILITY.md). Here:
//   * nothing throws: every std::filesystem call takes an error code, and every failure is an
//     Error whose message names the path, says what went wrong in words (a name too long, a
//     loop of links) and what was expected;
//   * a file that is read must be a regular file, also behind a link: the opened descriptor is
//     checked (fstat), and opening never blocks (O_NONBLOCK), so a FIFO swapped in between a
//     check and the open is refused too;
//   * the size is checked against a limit before anything is allocated, and an allocation that
//     still fails is an Error, not std::bad_alloc.
// The layering test tests/architecture/tst_file_door checks that no other engine or program code
// calls std::filesystem's throwing overloads, fopen, open or std::ifstream.
#include "engine/core/result.h"

#include <cstdint>
#include <string>

namespace dpmix::files {

/// What a path names, following symbolic links.
enum class Kind { Missing, Regular, Directory, Other /* FIFO, socket, device */ };

/// The kind of `path`. Missing when it (or a parent) does not exist; an Error for a name too
/// long, a loop of links, a permission problem or a parent that is not a folder.
Result<Kind> kindOf(const std::string& path);

/// True when `path` exists (whatever it is), false when it does not or cannot be looked at.
/// For the quick checks whose failure is reported later by an open or a read.
bool exists(const std::string& path);
/// True when `path` is a folder (following links); false otherwise, errors included.
bool isDirectory(const std::string& path);
/// True when `path` exists and is itself a symbolic link (not followed).
bool isSymlink(const std::string& path);

/// The message for the OS error `err` met on `path`, e.g. "'x': the name is too long (...)".
std::string describeError(const std::string& path, int err);
/// `path` as messages show it: at most ~200 characters (a 5,000-component path is cut, with its
/// length said), so an error stays one readable line.
std::string shown(const std::string& path);

/// An Error unless `path` is an existing regular file (following links). `what` names what the
/// caller expects, e.g. "a project file", "a spec (.json)".
Status requireRegularFile(const std::string& path, const std::string& what);

/// The size of a regular file (following links); the Error is requireRegularFile's.
Result<std::uint64_t> regularFileSize(const std::string& path, const std::string& what);

/// The whole content of a regular file of at most `maxBytes` bytes.
Result<std::string> readRegularFile(const std::string& path, const std::string& what, std::uint64_t maxBytes);

/// At most the first `count` bytes of a regular file (its header).
Result<std::string> readPrefix(const std::string& path, const std::string& what, std::size_t count);

/// An Error unless `path` can be written as a new or replaced file: the name is not too long,
/// its folder exists, and it is not a folder, FIFO, socket or device (a write would block or go
/// to a device). Nothing is created.
Status checkOutputPath(const std::string& path, const std::string& what);

/// Copies a regular file of at most `maxBytes` to `to`, which must not exist yet (O_EXCL).
Status copyRegularFile(const std::string& from, const std::string& to, std::uint64_t maxBytes);

/// `path` made absolute (from the current folder), lexically; an Error names the path.
Result<std::string> absolute(const std::string& path);

/// Removes a file or an empty folder; false when it did not exist or could not be removed.
bool removeQuietly(const std::string& path);
/// Removes a folder and everything under it; the count removed (0 on any error).
std::uintmax_t removeTreeQuietly(const std::string& path);
/// Renames a file or folder (replacing a file at `to`); the Error names both.
Status rename(const std::string& from, const std::string& to);
/// Creates a folder and its parents; fine when it exists already.
Status createDirectories(const std::string& path);

// Secrets (the owner's signing key, engine/project/owner_key.h): a key file nobody else can
// read, in a folder nobody else can list (docs/PRIVACY.md, "Signed files").
/// Creates `path` (and its parents) when missing and makes the last folder 0700; an existing
/// folder keeps its mode. An Error when `path` exists but is not a folder.
Status createPrivateDirectory(const std::string& path);
/// Writes `text` to a new regular file with permission bits `mode` (e.g. 0600), never replacing
/// a file or following a link there (O_EXCL | O_NOFOLLOW), and syncs it; a failed write removes
/// the file again.
Status writeNewFile(const std::string& path, const std::string& text, unsigned mode);
/// The permission bits (0777 part of the mode) of a regular file, following links; an Error as
/// requireRegularFile's otherwise (missing, a folder, a FIFO...).
Result<unsigned> permissionBits(const std::string& path, const std::string& what);

}  // namespace dpmix::files
