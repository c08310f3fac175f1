#pragma once
// The child processes of local ranks (local_ranks.h): started with fork + exec, ended and reaped by
// the object that started them, never left behind — a child also dies with its parent
// (PR_SET_PDEATHSIG), so a killed `dpmix run` leaves no rank waiting out its timeout.
#include "engine/core/result.h"

#include <sys/types.h>
#include <chrono>
#include <string>
#include <vector>

namespace dpmix::distributed {

class ChildRanks {
public:
    ChildRanks() = default;
    ~ChildRanks();  // SIGKILL to every child still running, then reaped
    ChildRanks(const ChildRanks&) = delete;
    ChildRanks& operator=(const ChildRanks&) = delete;

    /// Starts `program args…` as rank `rank`.
    Status start(int rank, const std::string& program, const std::vector<std::string>& args);
    /// Waits up to `timeout` for every child to end: an error names each rank that failed, was
    /// killed or is still running (then killed).
    Status finish(std::chrono::milliseconds timeout);
    /// What has become of the children so far, for an error message ("rank 1 was killed by
    /// signal 9"); waits up to `grace` for them to end first. Empty when all ended well or run.
    std::string whatEnded(std::chrono::milliseconds grace);

private:
    struct Child {
        int rank = 0;
        pid_t pid = -1;
        bool ended = false;
        int status = 0;
    };
    void reap(Child& c, bool block);
    std::vector<Child> children_;
};

}  // namespace dpmix::distributed
