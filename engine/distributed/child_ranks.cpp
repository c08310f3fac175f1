#include "engine/distributed/child_ranks.h"

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>
#include <cstring>
#include <string>
#include <thread>

namespace dpmix::distributed {
namespace {

std::string describe(int rank, int status) {
    const std::string who = "rank " + std::to_string(rank);
    if (WIFSIGNALED(status)) return who + " was killed by signal " + std::to_string(WTERMSIG(status));
    if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
        return who + " failed (exit status " + std::to_string(WEXITSTATUS(status)) + ")";
    return {};
}

}  // namespace

ChildRanks::~ChildRanks() {
    for (Child& c : children_) {
        if (c.ended) continue;
        ::kill(c.pid, SIGKILL);
        reap(c, true);
    }
}

Status ChildRanks::start(int rank, const std::string& program, const std::vector<std::string>& args) {
    // Everything exec needs is built before fork: the child only calls async-signal-safe functions.
    std::vector<std::string> words{program};
    words.insert(words.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) return Error{"rank " + std::to_string(rank) + ": could not start a process: " + std::strerror(errno)};
    if (pid == 0) {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) ::_exit(1);  // the parent died before prctl
        // Only stdin, stdout and stderr go on: not the project file's, the store's or Gloo's sockets.
        ::close_range(3, ~0U, 0);
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    children_.push_back({rank, pid, false, 0});
    return std::nullopt;
}

void ChildRanks::reap(Child& c, bool block) {
    if (c.ended) return;
    int status = 0;
    const pid_t r = ::waitpid(c.pid, &status, block ? 0 : WNOHANG);
    if (r == c.pid || r < 0) {
        c.ended = true;
        c.status = r < 0 ? 0 : status;
    }
}

std::string ChildRanks::whatEnded(std::chrono::milliseconds grace) {
    const auto deadline = std::chrono::steady_clock::now() + grace;
    std::string out;
    for (Child& c : children_) {
        while (!c.ended && std::chrono::steady_clock::now() < deadline) {
            reap(c, false);
            if (!c.ended) std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        if (const std::string d = c.ended ? describe(c.rank, c.status) : std::string(); !d.empty())
            out += (out.empty() ? "" : "; ") + d;
    }
    return out;
}

Status ChildRanks::finish(std::chrono::milliseconds timeout) {
    std::string problems = whatEnded(timeout);
    for (Child& c : children_) {
        if (c.ended) continue;
        ::kill(c.pid, SIGKILL);
        reap(c, true);
        problems += (problems.empty() ? "" : "; ") + ("rank " + std::to_string(c.rank) + " did not end in time");
    }
    if (problems.empty()) return std::nullopt;
    return Error{problems};
}

}  // namespace dpmix::distributed
