// A fork, a pipe, a deadline: see isolated_call.h.
#include "engine/data/isolated_call.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace dpmix::data {
namespace {

void writeAll(int fd, const std::string& bytes) {
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        done += static_cast<std::size_t>(n);
    }
}

[[noreturn]] void runChild(int fd, const std::function<Result<std::string>()>& work) {
    // The parent's crash handlers (a test harness's stack printer) are not for the child's death.
    for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL}) ::signal(sig, SIG_DFL);
    std::string out;
    try {
        auto result = work();
        out = result ? "O" + *result : "E" + result.error().message;
    } catch (...) {
        out = "Ethe work failed with an exception";
    }
    writeAll(fd, out);
    ::close(fd);
    ::_exit(0);  // no atexit handlers, no destructors of the parent's objects
}

// Reads the child's pipe until it closes or the deadline passes (false).
bool readUntilClosed(int fd, std::string& out, int seconds) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    char buffer[1 << 16];
    for (;;) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) return false;
        pollfd p{fd, POLLIN, 0};
        const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0) return false;
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return true;
        out.append(buffer, static_cast<std::size_t>(n));
    }
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

}  // namespace

Result<std::string> runIsolated(const std::function<Result<std::string>()>& work, int seconds) {
    int fds[2];
    if (::pipe(fds) != 0)
        return Error{std::string("cannot make a pipe for the reader process: ") + std::strerror(errno)};
    const pid_t child = ::fork();
    if (child < 0) {
        ::close(fds[0]);
        ::close(fds[1]);
        return Error{std::string("cannot start the reader process: ") + std::strerror(errno)};
    }
    if (child == 0) {
        ::close(fds[0]);
        runChild(fds[1], work);
    }
    ::close(fds[1]);
    std::string out;
    const bool finished = readUntilClosed(fds[0], out, seconds);
    ::close(fds[0]);
    if (!finished) ::kill(child, SIGKILL);
    int status = 0;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {}
    if (!finished) return Error{"the reader ran past " + std::to_string(seconds) + " s and was stopped"};
    if (WIFSIGNALED(status)) return Error{"the DICOM library " + signalName(WTERMSIG(status)) + " reading it"};
    if (out.empty()) return Error{"the reader process gave no answer"};
    if (out[0] == 'E') return Error{out.substr(1)};
    return out.substr(1);
}

}  // namespace dpmix::data
