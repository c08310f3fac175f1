#include "engine/project/project_file_support.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include <fcntl.h>
#include <unistd.h>

namespace dpmix::project::detail {

namespace fs = std::filesystem;
using nlohmann::json;

std::string jsonStrings(const std::vector<std::string>& values) { return json(values).dump(); }

std::vector<std::string> stringsFromJson(const std::string& text) {
    const json j = json::parse(text, nullptr, false);
    std::vector<std::string> out;
    if (j.is_array())
        for (const auto& v : j)
            if (v.is_string()) out.push_back(v.get<std::string>());
    return out;
}

std::optional<double> optionalReal(const Statement& s, int column) {
    if (s.isNull(column)) return std::nullopt;
    return s.real(column);
}

std::string optionalText(const Statement& s, int column) { return s.isNull(column) ? std::string() : s.text(column); }

Error storageError(const fs::path& file, const std::string& action, const std::exception& e) {
    if (const auto* sql = dynamic_cast<const SqliteError*>(&e)) {
        const int primary = sql->code & 0xff;
        if (sql->busy())
            return Error{file.string() + ": project busy: another dpmix process holds " + file.filename().string() +
                         "; try again (could not " + action + ": " + e.what() + ")"};
        if (primary == 13 /* SQLITE_FULL */)
            return Error{file.string() + ": cannot " + action + ": the disk is full (" + e.what() +
                         "); nothing of this call was stored"};
        if (primary == 10 /* SQLITE_IOERR */ && sql->systemErrno == EFBIG)
            return Error{file.string() + ": cannot " + action +
                         ": the file-size limit of this process (ulimit -f) "
                         "was reached; nothing of this call was stored"};
        if (primary == 8 /* SQLITE_READONLY */)
            return Error{file.string() + ": cannot " + action + ": the project is read-only (" + e.what() + ")"};
    }
    return Error{file.string() + ": cannot " + action + ": " + e.what()};
}

// Writes `bytes` to `file` and syncs it; on any failure (ENOSPC on a full disk) the partial
// file is removed and the error thrown names the cause.
void writeFileDurably(const fs::path& file, const std::string& bytes) {
    const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw std::runtime_error("cannot create " + file.string() + ": " + std::strerror(errno));
    std::size_t done = 0;
    int error = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            error = errno;
            break;
        }
        done += static_cast<std::size_t>(n);
    }
    if (!error && ::fsync(fd) != 0) error = errno;
    if (::close(fd) != 0 && !error) error = errno;
    if (error) {
        ::unlink(file.c_str());
        throw std::runtime_error("cannot write " + file.string() + ": " + std::strerror(error) +
                                 (error == ENOSPC || error == EDQUOT || error == EFBIG
                                      ? " (the disk is full; the partial file was removed)"
                                      : " (the partial file was removed)"));
    }
}

std::string showNumber(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    char buffer[40];
    std::snprintf(buffer, sizeof buffer, "%.17g", v);
    return buffer;
}

void requireRun(Database& db, long long runId) {
    Statement s(db.handle(), "SELECT 1 FROM runs WHERE id = ?");
    s.bind(1, static_cast<std::int64_t>(runId));
    if (!s.step()) throw SqliteError("run " + std::to_string(runId) + " does not exist");
}

}  // namespace dpmix::project::detail
