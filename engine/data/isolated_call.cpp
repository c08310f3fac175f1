// A fork, a pipe, a deadline per item: see isolated_call.h. Each item crosses the pipe as a
// status byte ('O' result, 'E' error), an 8-byte length and the bytes.
#include "engine/data/isolated_call.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <optional>

namespace dpmix::data {
namespace {

using Work = std::function<Result<std::string>(std::size_t)>;

bool writeAll(int fd, const char* data, std::size_t size) {
    std::size_t done = 0;
    while (done < size) {
        const ssize_t n = ::write(fd, data + done, size - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        done += static_cast<std::size_t>(n);
    }
    return true;
}

[[noreturn]] void runChild(int fd, std::size_t first, std::size_t count, const Work& work) {
    // The parent's crash handlers (a test harness's stack printer) are not for the child's death.
    for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL}) ::signal(sig, SIG_DFL);
    ::signal(SIGPIPE, SIG_IGN);  // the parent stopped listening: the write fails, the child ends
    for (std::size_t i = first; i < count; ++i) {
        std::string out;
        char status = 'O';
        try {
            auto result = work(i);
            status = result ? 'O' : 'E';
            out = result ? std::move(result).value() : result.error().message;
        } catch (...) {
            status = 'E';
            out = "the work failed with an exception";
        }
        const std::uint64_t size = out.size();
        if (!writeAll(fd, &status, 1) || !writeAll(fd, reinterpret_cast<const char*>(&size), 8) ||
            !writeAll(fd, out.data(), out.size()))
            break;
    }
    ::close(fd);
    ::_exit(0);  // no atexit handlers, no destructors of the parent's objects
}

enum class Read { Done, Ended, Late };  // all bytes; the pipe ended (or failed); the deadline passed

Read readExactly(int fd, char* data, std::size_t size, std::chrono::steady_clock::time_point deadline) {
    std::size_t done = 0;
    while (done < size) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) return Read::Late;
        pollfd p{fd, POLLIN, 0};
        const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
        if (ready < 0 && errno == EINTR) continue;
        if (ready == 0) return Read::Late;
        if (ready < 0) return Read::Ended;
        const ssize_t n = ::read(fd, data + done, size - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return Read::Ended;
        done += static_cast<std::size_t>(n);
    }
    return Read::Done;
}

std::string signalName(int sig) {
    switch (sig) {
        case SIGABRT: return "aborted (SIGABRT: an assertion of the library)";
        case SIGSEGV: return "crashed (SIGSEGV)";
        case SIGBUS: return "crashed (SIGBUS)";
        case SIGFPE: return "crashed (SIGFPE)";
        case SIGKILL: return "was killed (SIGKILL: out of memory?)";
        default: return "died by signal " + std::to_string(sig);
    }
}

struct Child {
    pid_t pid = -1;
    int fd = -1;
};

Result<Child> startChild(std::size_t first, std::size_t count, const Work& work) {
    int fds[2];
    if (::pipe(fds) != 0)
        return Error{std::string("cannot make a pipe for the reader process: ") + std::strerror(errno)};
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(fds[0]);
        ::close(fds[1]);
        return Error{std::string("cannot start the reader process: ") + std::strerror(errno)};
    }
    if (pid == 0) {
        ::close(fds[0]);
        runChild(fds[1], first, count, work);
    }
    ::close(fds[1]);
    return Child{pid, fds[0]};
}

// Ends a child (killed unless it ended by itself) and says how: "" for a normal exit.
std::string endChild(const Child& child, bool kill) {
    ::close(child.fd);
    if (kill) ::kill(child.pid, SIGKILL);
    int status = 0;
    while (::waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {}
    return WIFSIGNALED(status) ? signalName(WTERMSIG(status)) : "";
}

struct Answer {
    Read read = Read::Ended;
    Result<std::string> result = Error{""};
};

// The next item's answer from the child, or how the pipe failed to give one.
Answer nextAnswer(int fd, int seconds) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    char status = 0;
    std::uint64_t size = 0;
    Answer a;
    a.read = readExactly(fd, &status, 1, deadline);
    if (a.read == Read::Done) a.read = readExactly(fd, reinterpret_cast<char*>(&size), 8, deadline);
    if (a.read != Read::Done) return a;
    std::string bytes;
    try {
        bytes.resize(size);
    } catch (const std::exception&) {
        a.read = Read::Ended;
        return a;
    }
    a.read = readExactly(fd, bytes.data(), size, deadline);
    if (status == 'E')
        a.result = Error{bytes};
    else
        a.result = std::move(bytes);
    return a;
}

}  // namespace

Status runIsolatedEach(std::size_t count, const Work& work, int seconds,
                       const std::function<bool(std::size_t, Result<std::string>)>& take) {
    std::size_t i = 0;
    while (i < count) {
        auto child = startChild(i, count, work);
        if (!child) return child.error();
        Read read = Read::Done;
        for (; i < count; ++i) {
            auto answer = nextAnswer(child->fd, seconds);
            read = answer.read;
            if (read != Read::Done) break;
            if (!take(i, std::move(answer.result))) {
                endChild(*child, true);
                return std::nullopt;
            }
        }
        if (i == count) {
            endChild(*child, false);
            break;
        }
        // The child died on item i or ran past the time limit: that item's error, then a new child.
        const bool late = read == Read::Late;
        const std::string how = endChild(*child, late);
        const std::string why = late          ? "the reader ran past " + std::to_string(seconds) + " s and was stopped"
                                : how.empty() ? "the reader process ended without an answer"
                                              : "the DICOM library " + how + " reading it";
        if (!take(i, Error{why})) return std::nullopt;
        ++i;
    }
    return std::nullopt;
}

Result<std::string> runIsolated(const std::function<Result<std::string>()>& work, int seconds) {
    Result<std::string> out = Error{"no answer"};
    auto started = runIsolatedEach(
        1, [&](std::size_t) { return work(); }, seconds,
        [&](std::size_t, Result<std::string> r) {
            out = std::move(r);
            return true;
        });
    if (started) return *started;
    return out;
}

}  // namespace dpmix::data
