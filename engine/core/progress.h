#pragma once
// Progress reporting from a stage to whoever runs it (CLI prints, GUI queues a signal).
#include <functional>
#include <string>

namespace dpmix {

struct ProgressEvent {
    std::string stage;    // e.g. "mixture"
    long long done = 0;   // units finished (steps, runs, examples)
    long long total = 0;  // 0 when unknown
    std::string message;  // optional human-readable detail, e.g. "loss 0.412"
    // The whole job's completed share in [0, 1] when the job knows its plan (core/job_meter.h);
    // -1 when it does not. done/total stay the current stage's.
    double jobFraction = -1.0;
};

using ProgressCallback = std::function<void(const ProgressEvent&)>;

inline void report(const ProgressCallback& cb, ProgressEvent event) {
    if (cb) cb(event);
}

}  // namespace dpmix
