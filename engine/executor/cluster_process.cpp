// Files and programs of a cluster job: the POSIX calls behind cluster_jobs.cpp.
#include "engine/executor/cluster_process.h"

#include "engine/executor/cluster_private_files.h"

#include "engine/project/project_file_support.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace dpmix::executor::cluster {
namespace fs = std::filesystem;

std::string readText(const fs::path& p, bool* ok) {
    std::ifstream in(p, std::ios::binary);
    if (ok) *ok = static_cast<bool>(in);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// Written under a temporary name in the same folder, flushed to disk, then renamed: a reader
// sees the whole file or none. Mode 0600: every file of a job folder is the owner's only.
Status writeAtomically(const fs::path& p, const std::string& text) {
    const fs::path tmp = p.parent_path() / ("." + p.filename().string() + ".tmp." + std::to_string(::getpid()));
    try {
        project::detail::writeFileDurably(tmp, text);
    } catch (const std::exception& e) {
        return Error{e.what()};
    }
    if (auto e = makePrivateFile(tmp)) {
        ::unlink(tmp.c_str());
        return e;
    }
    std::error_code ec;
    fs::rename(tmp, p, ec);
    if (ec) {
        ::unlink(tmp.c_str());
        return Error{"cannot publish " + p.string() + ": " + ec.message()};
    }
    return std::nullopt;
}

std::string shellQuote(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

std::optional<fs::path> findOnPath(const std::string& name) {
    const char* path = std::getenv("PATH");
    if (!path) return std::nullopt;
    std::stringstream dirs(path);
    std::string dir;
    while (std::getline(dirs, dir, ':')) {
        if (dir.empty()) continue;
        const fs::path candidate = fs::path(dir) / name;
        if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    return std::nullopt;
}

// Runs a program (found on PATH) with its output captured; no shell.
ProcessResult runProgram(const std::vector<std::string>& argv) {
    ProcessResult r;
    char outName[] = "/tmp/dpmix-proc-out-XXXXXX";
    char errName[] = "/tmp/dpmix-proc-err-XXXXXX";
    const int outFd = ::mkstemp(outName), errFd = ::mkstemp(errName);
    if (outFd < 0 || errFd < 0) {
        r.err = "cannot create a temporary file";
        return r;
    }
    const pid_t child = ::fork();
    if (child == 0) {
        ::dup2(outFd, 1);
        ::dup2(errFd, 2);
        const int devnull = ::open("/dev/null", O_RDONLY);
        if (devnull >= 0) ::dup2(devnull, 0);
        std::vector<char*> args;
        for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        ::execvp(args[0], args.data());
        std::fprintf(stderr, "cannot run %s: %s\n", args[0], std::strerror(errno));
        ::_exit(127);
    }
    int status = 0;
    if (child > 0) {
        while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {}
        r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    }
    ::close(outFd);
    ::close(errFd);
    r.out = readText(outName);
    r.err = readText(errName);
    ::unlink(outName);
    ::unlink(errName);
    return r;
}

std::string trimmed(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r')) s.pop_back();
    while (!s.empty() && (s.front() == '\n' || s.front() == ' ')) s.erase(s.begin());
    return s;
}

fs::path selfExecutable() {
    std::error_code ec;
    auto p = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path("dpmix") : p;
}

}  // namespace dpmix::executor::cluster
