#pragma once
// Which process wrote something, and is it still alive? A run row records the process that
// runs it (host, pid, start token), and temporary files carry the same in their names, so a
// later open can tell a run or a file whose process is gone (killed with SIGKILL, crashed,
// out of disk) from one that is still being written by a live process (docs/RELIABILITY.md).
//
// The start token is the boot id and the process start time (/proc/<pid>/stat, field 22), so
// a recycled pid is not mistaken for the original process. A process on another host cannot
// be checked: it is reported Unknown, and callers leave its rows and files alone.
#include <filesystem>
#include <optional>
#include <string>

namespace dpmix::project {

struct ProcessIdentity {
    std::string host;  // gethostname()
    long long pid = 0;
    std::string start;  // "<boot id>/<start time in clock ticks>"; empty where /proc is missing
};

/// This process, now (the pid is read each time: a forked child is another process).
ProcessIdentity currentProcess();

enum class Liveness { Alive, Dead, Unknown };

/// Alive: the very process (same host, pid and start token) is running. Dead: it is not (no
/// such pid, a zombie, or the pid now belongs to a later process). Unknown: another host.
Liveness processLiveness(const ProcessIdentity& process);

/// The suffix of a temporary file written by this process: ".tmp-<pid>-<ticks>-<boot8>-<host>".
std::string temporarySuffix();

/// The owner of a temporary file named "<name>.tmp-..." (this build's suffix, with an optional
/// SQLite "-wal"/"-shm"/"-journal" after it; or the older ".tmp-<pid>", which has no host and
/// start token). nullopt: not a temporary file name.
std::optional<ProcessIdentity> temporaryFileOwner(const std::string& fileName);

/// True when `fileName` is a temporary file of `base` (base + ".tmp-...") whose process is dead.
bool isStaleTemporaryFile(const std::string& fileName, const std::string& base);

}  // namespace dpmix::project
