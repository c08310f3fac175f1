#pragma once
// Small pieces every long-running `dpmix` command shares: comma lists, Ctrl-C as a cooperative
// cancel, and progress lines on stderr.
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"

#include <string>
#include <vector>

namespace dpmix::cli {

/// "a,b,,c" → {"a", "b", "c"}.
std::vector<std::string> splitList(const std::string& text);

/// While alive, Ctrl-C (SIGINT) cancels `token` instead of killing the process, so the stage in
/// flight stops at its next check and its run is marked cancelled. Restores the previous handler.
class InterruptCancels {
public:
    explicit InterruptCancels(const CancellationToken& token);
    ~InterruptCancels();
    InterruptCancels(const InterruptCancels&) = delete;
    InterruptCancels& operator=(const InterruptCancels&) = delete;

private:
    void (*previous_)(int);
};

/// Progress to stderr as "[stage] done/total  message", one line per whole percent.
ProgressCallback stderrProgress();

}  // namespace dpmix::cli
