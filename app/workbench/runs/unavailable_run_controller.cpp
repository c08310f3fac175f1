// The honest placeholder for the run controller when the DP-MixMin stages are not built in.
#include "app/workbench/runs/run_controller.h"

namespace dpmix::workbench {

Result<QList<StageJob>> UnavailableRunController::planRun(const widgets::RunParameters&) {
    return Error{
        "Runs are not available in this build: the DP-MixMin stages (engine/pipeline) are not part of "
        "it yet. The parameters and the privacy calculator work; running will come with the pipeline."};
}

}  // namespace dpmix::workbench
