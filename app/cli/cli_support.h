#pragma once
// Small pieces every long-running `dpmix` command shares: comma lists, Ctrl-C as a cooperative
// cancel, and progress lines on stderr.
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"

#include <functional>
#include <iostream>
#include <string>
#include <utility>
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

/// An engine error in the command line's words: a message about an option gets the flag's
/// dashes ("epsilon = 0 is out of range" → "--epsilon = 0 is out of range"), and the executors the
/// engine names get the flag that chooses them ("the local executor" → "--executor local").
std::string cliMessage(const Error& e);

/// Progress to stderr as "[stage] done/total  message", one line per whole percent, with the
/// whole job's share and time left when the job knows its plan (ProgressEvent::jobFraction).
ProgressCallback stderrProgress();

/// "  [job 34%, about 3:12 left]" from the job's completed share and the seconds since it began;
/// without the time until 2% and 10 s are behind it; empty when the share is unknown (< 0).
std::string jobProgressText(double fraction, double elapsedSeconds);

/// Runs one long stage the way every command does: Ctrl-C cancels `cancel`, its log lines go to
/// stderr as "<command>: line". Returns 0 with the stage's value in `out`; 130 after
/// "<command>: cancelled; <cancelledNote>"; 1 after the stage's error message.
template <typename T, typename Stage>
int runInterruptible(const std::string& command, const std::string& cancelledNote, const CancellationToken& cancel,
                     const ProgressCallback& progress, T& out, Stage&& stage) {
    InterruptCancels ctrlC(cancel);
    const std::function<void(const std::string&)> log = [&command](const std::string& line) {
        std::cerr << command << ": " << line << '\n';
    };
    try {
        auto result = std::forward<Stage>(stage)(progress, cancel, log);
        if (!result) {
            std::cerr << command << ": " << cliMessage(result.error()) << '\n';
            return 1;
        }
        out = std::move(result).value();
    } catch (const Cancelled&) {
        std::cerr << command << ": cancelled; " << cancelledNote << '\n';
        return 130;
    }
    return 0;
}

}  // namespace dpmix::cli
