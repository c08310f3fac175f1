#include "engine/core/job_meter.h"

#include <algorithm>

namespace dpmix {

JobMeter::JobMeter(ProgressCallback out) : out_(std::move(out)) {}

void JobMeter::setTotal(double cost) {
    std::lock_guard lock(mutex_);
    total_ = std::max(0.0, cost);
}

ProgressCallback JobMeter::phase(double cost, std::vector<Part> parts) {
    long long index = 0;
    {
        std::lock_guard lock(mutex_);
        started_ += current_;
        current_ = std::max(0.0, cost);
        currentDone_ = 0.0;
        parts_ = std::move(parts);
        index = ++phases_;
    }
    return [this, index](const ProgressEvent& e) { forward(e, index); };
}

double JobMeter::fraction() const {
    std::lock_guard lock(mutex_);
    if (total_ <= 0.0) return -1.0;
    return std::clamp((started_ + currentDone_) / total_, 0.0, 1.0);
}

void JobMeter::forward(ProgressEvent event, long long phaseIndex) {
    {
        std::lock_guard lock(mutex_);
        const double share =
            event.total > 0 ? std::clamp(static_cast<double>(event.done) / event.total, 0.0, 1.0) : 0.0;
        // A callback of an earlier phase (a stage still reporting after the next began) moves nothing.
        // The event's stage fills its part of the phase (after the parts before it), or the whole.
        double offset = 0.0, span = current_, before = 0.0;
        for (const Part& part : parts_) {
            if (part.stage == event.stage) {
                offset = before;
                span = part.cost;
                break;
            }
            before += part.cost;
        }
        if (phaseIndex == phases_) currentDone_ = std::max(currentDone_, std::min(current_, offset + span * share));
        // The plan is an estimate: never past 1, never backwards.
        event.jobFraction = total_ > 0.0 ? std::clamp((started_ + currentDone_) / total_, 0.0, 1.0) : -1.0;
    }
    if (out_) out_(event);
}

}  // namespace dpmix
