#pragma once
// One bar and one ETA for a job of many stages. A study run is proxies, then per (seed, task) a
// mixture stage, then per method pretraining and fine-tuning: each stage reports its own done/total,
// so a per-stage ETA jumps from minutes to hours and back and says "0:00" at the end of every stage.
// The meter knows the job's plan as estimated costs (any unit, e.g. examples passed through the
// network), and forwards every event of the current phase with ProgressEvent::jobFraction =
// (cost of the phases before + this phase's cost × done/total) / the job's cost.
#include "engine/core/progress.h"

#include <mutex>
#include <string>
#include <vector>

namespace dpmix {

class JobMeter {
public:
    /// `out` receives every event, with jobFraction filled in once the total is known.
    explicit JobMeter(ProgressCallback out);
    JobMeter(const JobMeter&) = delete;
    JobMeter& operator=(const JobMeter&) = delete;

    /// The job's estimated cost; until it is set (> 0), events pass with jobFraction -1.
    void setTotal(double cost);
    /// A stage inside a phase (e.g. a downstream run's "pretrain", then "finetune"), in order, with
    /// its share of the phase's cost: its events fill that share only. What the parts leave of the
    /// phase (an evaluation that reports nothing) is done when the next phase starts.
    struct Part {
        std::string stage;
        double cost = 0.0;
    };
    /// Starts the next phase, of estimated `cost`: the previous one counts as done (a phase that
    /// reported nothing, e.g. a reused proxy, included). Returns the callback its stage reports to;
    /// it must not outlive the meter. Without parts, every event spans the whole phase.
    ProgressCallback phase(double cost, std::vector<Part> parts = {});
    /// The share of the job done so far (the current phase's progress included); -1 without a total.
    double fraction() const;

private:
    void forward(ProgressEvent event, long long phaseIndex);

    ProgressCallback out_;
    mutable std::mutex mutex_;
    double total_ = 0.0;
    double started_ = 0.0;      // cost of the phases before the current one
    double current_ = 0.0;      // the current phase's cost
    double currentDone_ = 0.0;  // its cost done so far
    std::vector<Part> parts_;   // the current phase's
    long long phases_ = 0;      // phases started
};

}  // namespace dpmix
