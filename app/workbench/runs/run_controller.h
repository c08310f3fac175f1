#pragma once
// The seam between the workbench and the engine's pipeline (engine/pipeline, not yet built):
// turns validated run parameters into the stage jobs the JobRunner executes. The workbench
// ships UnavailableRunController until the pipeline lands; tests plug in fakes.
#include "app/workbench/runs/job_runner.h"
#include "app/workbench/runs/run_action.h"
#include "engine/core/result.h"
#include "engine/privacy/privacy_budget.h"
#include "widgets/run_parameters.h"

#include <QList>
#include <QString>

#include <optional>
#include <vector>

namespace dpmix::workbench {

struct StageJob {
    QString stage;  // shown in the jobs dock, e.g. "Mixture learning (seed 0)"
    JobWork work;
};

/// A run's estimated duration and the step timing it rests on.
struct RunTimeEstimate {
    double seconds = 0.0;
    double stepMilliseconds = 0.0;
    int batch = 0;
};

class RunController {
public:
    virtual ~RunController() = default;
    /// The jobs for one run, in order, or an Error saying why this run cannot start.
    virtual Result<QList<StageJob>> planRun(const widgets::RunParameters& parameters) = 0;
    /// The jobs for any Run-menu action. The default runs DP-MixMin through planRun and
    /// refuses the other kinds with a message naming them.
    virtual Result<QList<StageJob>> planAction(const RunAction& action) {
        if (action.kind == RunKind::DpMixMin) return planRun(action.parameters);
        return Error{
            ("\"" + runKindLabel(action.kind) + "\" needs the engine pipeline, which this build does not have.")
                .toStdString()};
    }
    /// Every DP release `action` would make, as the engine plans it on the project's data: exactly
    /// what the run reserves on the data set's budget when it starts. None when this controller
    /// cannot plan the action (the window then previews from the panel's values, a lower bound);
    /// an Error when the engine would refuse the run.
    virtual std::optional<Result<std::vector<privacy::BudgetRelease>>> plannedReleases(const RunAction& action) {
        (void)action;
        return std::nullopt;
    }
    /// How long `action` would take on this machine (pipeline::estimateStudyRun): none when this
    /// controller cannot estimate it; an Error when the engine would refuse the run.
    virtual std::optional<Result<RunTimeEstimate>> estimatedTime(const RunAction& action) {
        (void)action;
        return std::nullopt;
    }
    /// The project runs go into (empty: none open); a read-only project refuses runs.
    virtual void setProject(const QString& path, bool readOnly) {
        (void)path;
        (void)readOnly;
    }
    /// Where later runs train: "auto", "cpu" or "cuda" (Run ▸ Compute device).
    virtual void setComputeDevice(const QString& device) { (void)device; }
};

/// Says plainly that runs need the engine pipeline, which this build does not have yet.
class UnavailableRunController : public RunController {
public:
    Result<QList<StageJob>> planRun(const widgets::RunParameters& parameters) override;
};

}  // namespace dpmix::workbench
