#include "engine/project/process_identity.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <fstream>
#include <sstream>
#include <vector>

#include <unistd.h>

namespace dpmix::project {
namespace {

namespace fs = std::filesystem;

std::string sanitizedHostName() {
    char buffer[256] = {};
    if (::gethostname(buffer, sizeof buffer - 1) != 0) return "unknown-host";
    std::string host(buffer);
    for (char& c : host)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_')) c = '_';
    return host.empty() ? "unknown-host" : host;
}

const std::string& hostName() {
    static const std::string host = sanitizedHostName();
    return host;
}

const std::string& bootId() {
    static const std::string id = [] {
        std::ifstream in("/proc/sys/kernel/random/boot_id");
        std::string text;
        std::getline(in, text);
        while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
        return text;
    }();
    return id;
}

bool procAvailable() {
    std::error_code ec;
    return fs::exists("/proc/self/stat", ec);
}

struct ProcStat {
    char state = '?';
    std::string startTicks;
};

// /proc/<pid>/stat: "pid (comm) state ppid ... starttime(22) ..."; comm may hold spaces and
// parentheses, so fields are counted after the last ')'.
std::optional<ProcStat> readStat(long long pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    if (!in) return std::nullopt;
    std::string line;
    std::getline(in, line);
    const auto close = line.rfind(')');
    if (close == std::string::npos) return std::nullopt;
    std::istringstream fields(line.substr(close + 1));
    std::vector<std::string> tokens;
    for (std::string t; fields >> t;) tokens.push_back(t);
    if (tokens.size() < 20) return std::nullopt;
    ProcStat s;
    s.state = tokens[0].empty() ? '?' : tokens[0][0];  // field 3
    s.startTicks = tokens[19];                         // field 22
    return s;
}

bool allDigits(const std::string& s) {
    if (s.empty()) return false;
    for (char c : s)
        if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    return true;
}

std::vector<std::string> split(const std::string& text, char separator) {
    std::vector<std::string> parts;
    std::string current;
    for (char c : text) {
        if (c == separator) {
            parts.push_back(current);
            current.clear();
        } else {
            current += c;
        }
    }
    parts.push_back(current);
    return parts;
}

}  // namespace

ProcessIdentity currentProcess() {
    ProcessIdentity p;
    p.host = hostName();
    p.pid = static_cast<long long>(::getpid());
    if (auto stat = readStat(p.pid); stat && !bootId().empty()) p.start = bootId() + "/" + stat->startTicks;
    return p;
}

Liveness processLiveness(const ProcessIdentity& process) {
    if (!process.host.empty() && process.host != hostName()) return Liveness::Unknown;
    if (process.pid <= 0) return Liveness::Unknown;
    if (procAvailable()) {
        const auto stat = readStat(process.pid);
        if (!stat) return Liveness::Dead;
        if (stat->state == 'Z' || stat->state == 'X') return Liveness::Dead;  // exited, not yet reaped
        if (process.start.empty()) return Liveness::Alive;                    // no start token: the pid is all we know
        const auto slash = process.start.find('/');
        if (slash == std::string::npos) return Liveness::Alive;
        const std::string boot = process.start.substr(0, slash), ticks = process.start.substr(slash + 1);
        // The recorded boot id may be a prefix (temporary file names carry 8 characters).
        if (boot.empty() || bootId().rfind(boot, 0) != 0) return Liveness::Dead;  // rebooted since
        return ticks == stat->startTicks ? Liveness::Alive : Liveness::Dead;      // else: a recycled pid
    }
    if (::kill(static_cast<pid_t>(process.pid), 0) == 0 || errno == EPERM) return Liveness::Alive;
    return Liveness::Dead;
}

std::string temporarySuffix() {
    const ProcessIdentity p = currentProcess();
    std::string ticks = "0", boot = "00000000";
    if (const auto slash = p.start.find('/'); slash != std::string::npos) {
        boot = p.start.substr(0, std::min<std::size_t>(8, slash));
        ticks = p.start.substr(slash + 1);
    }
    return ".tmp-" + std::to_string(p.pid) + "-" + ticks + "-" + boot + "-" + p.host;
}

std::optional<ProcessIdentity> temporaryFileOwner(const std::string& fileName) {
    const auto at = fileName.find(".tmp-");
    if (at == std::string::npos) return std::nullopt;
    std::string rest = fileName.substr(at + 5);
    for (const char* sidecar : {"-wal", "-shm", "-journal"}) {
        const std::string s(sidecar);
        if (rest.size() > s.size() && rest.compare(rest.size() - s.size(), s.size(), s) == 0) {
            rest.resize(rest.size() - s.size());
            break;
        }
    }
    ProcessIdentity owner;
    if (allDigits(rest)) {  // ".tmp-<pid>": written by an older dpmix, this host assumed
        owner.pid = std::stoll(rest);
        return owner;
    }
    const auto parts = split(rest, '-');
    if (parts.size() < 4 || !allDigits(parts[0]) || !allDigits(parts[1]) || parts[2].empty()) return std::nullopt;
    owner.pid = std::stoll(parts[0]);
    std::string host = parts[3];
    for (std::size_t i = 4; i < parts.size(); ++i) host += "-" + parts[i];
    owner.host = host;
    if (parts[1] != "0") owner.start = parts[2] + "/" + parts[1];
    return owner;
}

bool isStaleTemporaryFile(const std::string& fileName, const std::string& base) {
    const std::string prefix = base + ".tmp-";
    if (fileName.rfind(prefix, 0) != 0) return false;
    const auto owner = temporaryFileOwner(fileName);
    return owner && processLiveness(*owner) == Liveness::Dead;
}

}  // namespace dpmix::project
