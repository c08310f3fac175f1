#include "engine/core/file_door.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <new>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace dpmix::files {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kShownPathChars = 200;

std::string bytesInWords(std::uint64_t n) {
    const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double value = static_cast<double>(n);
    int unit = 0;
    while (value >= 1024 && unit < 5) {
        value /= 1024;
        ++unit;
    }
    if (unit == 0) return std::to_string(n) + " bytes";
    char text[32];
    std::snprintf(text, sizeof text, "%.1f %s", value, units[unit]);
    return text;
}

Kind kindOfMode(mode_t mode) {
    if (S_ISREG(mode)) return Kind::Regular;
    if (S_ISDIR(mode)) return Kind::Directory;
    return Kind::Other;
}

std::string otherKindWords(mode_t mode) {
    if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
    return "not a regular file";
}

std::string notRegular(const std::string& path, mode_t mode, const std::string& what) {
    if (S_ISDIR(mode)) return "'" + shown(path) + "' is a folder: expected " + what;
    return "'" + shown(path) + "' is not a regular file (" + otherKindWords(mode) + "): expected " + what;
}

// Opens a regular file for reading without ever blocking, and checks what was opened.
Result<int> openRegular(const std::string& path, const std::string& what, struct stat& st) {
    if (path.empty()) return Error{"an empty path: expected " + what};
    if (path.find('\0') != std::string::npos) return Error{"'" + shown(path) + "' holds a NUL byte: expected " + what};
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        const int err = errno;
        if (err == ENXIO || err == ENODEV || err == EWOULDBLOCK) {  // a FIFO or socket that cannot be opened
            struct stat lst {};
            if (::stat(path.c_str(), &lst) == 0) return Error{notRegular(path, lst.st_mode, what)};
        }
        return Error{describeError(path, err)};
    }
    if (::fstat(fd, &st) != 0) {
        const int err = errno;
        ::close(fd);
        return Error{describeError(path, err)};
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd);
        return Error{notRegular(path, st.st_mode, what)};
    }
    // Reads of a regular file never block; blocking mode back on keeps read() simple.
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    return fd;
}

Status readAll(int fd, const std::string& path, char* into, std::size_t size) {
    std::size_t done = 0;
    while (done < size) {
        const ssize_t n = ::read(fd, into + done, size - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return Error{"cannot read '" + shown(path) + "': " + std::strerror(errno)};
        if (n == 0) return Error{"'" + shown(path) + "' became shorter while it was read (another process changed it)"};
        done += static_cast<std::size_t>(n);
    }
    return std::nullopt;
}

}  // namespace

std::string shown(const std::string& path) {
    std::string out;
    for (char c : path) {
        if (c == '\0') {
            out += "\\0";
            continue;
        }
        out += c;
    }
    if (out.size() <= kShownPathChars) return out;
    return out.substr(0, 80) + "…" + out.substr(out.size() - 80) + " (a path of " + std::to_string(path.size()) +
           " bytes)";
}

std::string describeError(const std::string& path, int err) {
    const std::string p = "'" + shown(path) + "'";
    switch (err) {
        case ENAMETOOLONG:
            return p + ": the name is too long (a file name has at most 255 bytes and a path at most 4,095 here)";
        case ELOOP: return p + ": a loop of symbolic links (or more than 40 links followed in a row)";
        case ENOENT: return p + " does not exist";
        case ENOTDIR: return p + ": a part of the path before the last is not a folder";
        case EACCES: return p + ": permission denied";
        case EISDIR: return p + " is a folder";
        default: return p + ": " + std::strerror(err);
    }
}

Result<Kind> kindOf(const std::string& path) {
    if (path.empty()) return Kind::Missing;
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) return kindOfMode(st.st_mode);
    const int err = errno;
    if (err == ENOENT) return Kind::Missing;
    return Error{describeError(path, err)};
}

bool exists(const std::string& path) {
    struct stat st {};
    return !path.empty() && ::stat(path.c_str(), &st) == 0;
}

bool isDirectory(const std::string& path) {
    struct stat st {};
    return !path.empty() && ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool isSymlink(const std::string& path) {
    struct stat st {};
    return !path.empty() && ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

Status requireRegularFile(const std::string& path, const std::string& what) {
    if (path.empty()) return Error{"an empty path: expected " + what};
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return Error{describeError(path, errno)};
    if (!S_ISREG(st.st_mode)) return Error{notRegular(path, st.st_mode, what)};
    return std::nullopt;
}

Result<std::uint64_t> regularFileSize(const std::string& path, const std::string& what) {
    if (auto e = requireRegularFile(path, what)) return *e;
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return Error{describeError(path, errno)};
    return static_cast<std::uint64_t>(st.st_size);
}

Result<std::string> readRegularFile(const std::string& path, const std::string& what, std::uint64_t maxBytes) {
    struct stat st {};
    auto fd = openRegular(path, what, st);
    if (!fd) return fd.error();
    const auto size = static_cast<std::uint64_t>(st.st_size);
    if (size > maxBytes) {
        ::close(*fd);
        return Error{"'" + shown(path) + "' is " + bytesInWords(size) + ", more than the " + bytesInWords(maxBytes) +
                     " expected of " + what + "; nothing was read"};
    }
    std::string bytes;
    try {
        bytes.resize(static_cast<std::size_t>(size));
    } catch (const std::bad_alloc&) {
        ::close(*fd);
        return Error{"'" + shown(path) + "': not enough memory to read its " + bytesInWords(size)};
    }
    const Status read = readAll(*fd, path, bytes.data(), bytes.size());
    ::close(*fd);
    if (read) return *read;
    return bytes;
}

Result<std::string> readPrefix(const std::string& path, const std::string& what, std::size_t count) {
    struct stat st {};
    auto fd = openRegular(path, what, st);
    if (!fd) return fd.error();
    std::string bytes(std::min<std::uint64_t>(count, static_cast<std::uint64_t>(st.st_size)), '\0');
    const Status read = readAll(*fd, path, bytes.data(), bytes.size());
    ::close(*fd);
    if (read) return *read;
    return bytes;
}

Status checkOutputPath(const std::string& path, const std::string& what) {
    if (path.empty()) return Error{"an empty path: expected " + what};
    if (path.find('\0') != std::string::npos) return Error{"'" + shown(path) + "' holds a NUL byte: expected " + what};
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
        if (!S_ISREG(st.st_mode)) return Error{notRegular(path, st.st_mode, what)};
        return std::nullopt;
    }
    const int err = errno;
    if (err != ENOENT) return Error{describeError(path, err)};
    // Missing: its folder must exist (and the name fit).
    const fs::path parent = fs::path(path).parent_path();
    const std::string folder = parent.empty() ? "." : parent.string();
    if (::stat(folder.c_str(), &st) != 0) return Error{describeError(folder, errno) + " (the folder of " + what + ")"};
    if (!S_ISDIR(st.st_mode)) return Error{"'" + shown(folder) + "' is not a folder (the folder of " + what + ")"};
    const long nameMax = ::pathconf(folder.c_str(), _PC_NAME_MAX);
    if (nameMax > 0 && fs::path(path).filename().string().size() > static_cast<std::size_t>(nameMax))
        return Error{describeError(path, ENAMETOOLONG)};
    if (path.size() >= 4096) return Error{describeError(path, ENAMETOOLONG)};
    return std::nullopt;
}

Status copyRegularFile(const std::string& from, const std::string& to, std::uint64_t maxBytes) {
    struct stat st {};
    auto in = openRegular(from, "a file to copy", st);
    if (!in) return in.error();
    if (static_cast<std::uint64_t>(st.st_size) > maxBytes) {
        ::close(*in);
        return Error{"'" + shown(from) + "' is " + bytesInWords(static_cast<std::uint64_t>(st.st_size)) +
                     ", more than the " + bytesInWords(maxBytes) + " a copy may take"};
    }
    const int out = ::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (out < 0) {
        const int err = errno;
        ::close(*in);
        return Error{"cannot create " + describeError(to, err)};
    }
    char buffer[1 << 16];
    Status failed;
    while (!failed) {
        const ssize_t n = ::read(*in, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) failed = Error{"cannot read '" + shown(from) + "': " + std::strerror(errno)};
        if (n <= 0) break;
        for (ssize_t done = 0; done < n && !failed;) {
            const ssize_t w = ::write(out, buffer + done, static_cast<std::size_t>(n - done));
            if (w < 0 && errno == EINTR) continue;
            if (w < 0)
                failed = Error{"cannot write '" + shown(to) + "': " + std::strerror(errno)};
            else
                done += w;
        }
    }
    ::close(*in);
    if (::close(out) != 0 && !failed) failed = Error{"cannot write '" + shown(to) + "': " + std::strerror(errno)};
    if (failed) ::unlink(to.c_str());
    return failed;
}

Result<std::string> absolute(const std::string& path) {
    std::error_code ec;
    const fs::path p = fs::absolute(fs::path(path), ec);
    if (ec) return Error{describeError(path, ec.value())};
    return p.lexically_normal().string();
}

bool removeQuietly(const std::string& path) {
    std::error_code ec;
    return fs::remove(fs::path(path), ec) && !ec;
}

std::uintmax_t removeTreeQuietly(const std::string& path) {
    std::error_code ec;
    const auto n = fs::remove_all(fs::path(path), ec);
    return ec || n == static_cast<std::uintmax_t>(-1) ? 0 : n;
}

Status rename(const std::string& from, const std::string& to) {
    if (::rename(from.c_str(), to.c_str()) == 0) return std::nullopt;
    const int err = errno;
    return Error{"cannot rename '" + shown(from) + "' to " + describeError(to, err)};
}

Status createDirectories(const std::string& path) {
    std::error_code ec;
    fs::create_directories(fs::path(path), ec);
    if (ec) return Error{"cannot create the folder " + describeError(path, ec.value())};
    return std::nullopt;
}

Status createPrivateDirectory(const std::string& path) {
    if (path.empty()) return Error{"an empty path: expected a folder"};
    if (path.find('\0') != std::string::npos) return Error{"'" + shown(path) + "' holds a NUL byte: expected a folder"};
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
        if (!S_ISDIR(st.st_mode)) return Error{"'" + shown(path) + "' exists and is not a folder"};
        return std::nullopt;
    }
    if (errno != ENOENT) return Error{describeError(path, errno)};
    const fs::path parent = fs::path(path).parent_path();
    if (!parent.empty())
        if (auto e = createDirectories(parent.string())) return *e;
    if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST)
        return Error{"cannot create the folder " + describeError(path, errno)};
    if (::chmod(path.c_str(), 0700) != 0) return Error{"cannot make the folder private: " + describeError(path, errno)};
    return std::nullopt;
}

Status writeNewFile(const std::string& path, const std::string& text, unsigned mode) {
    if (path.empty()) return Error{"an empty path: expected a file to create"};
    if (path.find('\0') != std::string::npos) return Error{"'" + shown(path) + "' holds a NUL byte"};
    const int fd =
        ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, static_cast<mode_t>(mode));
    if (fd < 0) {
        const int err = errno;
        if (err == EEXIST) return Error{"'" + shown(path) + "' already exists: nothing was replaced"};
        return Error{"cannot create " + describeError(path, err)};
    }
    Status failed;
    for (std::size_t done = 0; done < text.size() && !failed;) {
        const ssize_t w = ::write(fd, text.data() + done, text.size() - done);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0)
            failed = Error{"cannot write '" + shown(path) + "': " + std::strerror(errno)};
        else
            done += static_cast<std::size_t>(w);
    }
    // The umask may have taken bits away; never more than asked.
    if (!failed && ::fchmod(fd, static_cast<mode_t>(mode)) != 0)
        failed = Error{"cannot set the permissions of '" + shown(path) + "': " + std::strerror(errno)};
    if (!failed && ::fsync(fd) != 0) failed = Error{"cannot write '" + shown(path) + "': " + std::strerror(errno)};
    if (::close(fd) != 0 && !failed) failed = Error{"cannot write '" + shown(path) + "': " + std::strerror(errno)};
    if (failed) ::unlink(path.c_str());
    return failed;
}

Result<unsigned> permissionBits(const std::string& path, const std::string& what) {
    if (auto e = requireRegularFile(path, what)) return *e;
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return Error{describeError(path, errno)};
    return static_cast<unsigned>(st.st_mode & 0777);
}

}  // namespace dpmix::files
