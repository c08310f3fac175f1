#pragma once
// The workbench's seam to Slurm (docs/CLUSTER.md, "From the workbench"): submit a study run or a
// mixture audit as one job array, and follow, merge, cancel and resubmit the project's jobs. The
// program injects the engine's (engine_cluster.h); the window and its tests see this interface
// only, so they neither link LibTorch nor need a Slurm.
#include "app/workbench/runs/engine_run_controller.h"
#include "app/workbench/runs/run_action.h"
#include "engine/executor/cluster_jobs.h"

#include <filesystem>
#include <string>
#include <vector>

namespace dpmix::workbench {

class ClusterBackend {
public:
    virtual ~ClusterBackend() = default;

    /// Whether this host can submit (sbatch on PATH); the error says why not. Cheap: the Run menu
    /// asks it whenever it updates.
    virtual Status canSubmit() const = 0;

    /// Freezes and submits on a worker thread, with the project open there (a proxy may be
    /// trained first, as a local run would). Nothing is submitted on an error.
    virtual Result<executor::cluster::SubmitReport> submitStudy(
        project::ProjectFile& project, const StudyRequest& request, const ClusterSubmission& submission,
        const ProgressCallback& progress, const CancellationToken& cancel, const StudyLog& log) = 0;
    virtual Result<executor::cluster::SubmitReport> submitAudit(
        project::ProjectFile& project, const AuditRequest& request, const ClusterSubmission& submission,
        const ProgressCallback& progress, const CancellationToken& cancel, const StudyLog& log) = 0;

    /// The project's jobs with each unit's state (reads the job directories, asks squeue/sacct:
    /// call it off the GUI thread). No jobs folder: an empty list.
    virtual Result<std::vector<executor::cluster::JobStatus>> status(const std::filesystem::path& project) const = 0;
    /// Stores the finished job's runs in the project (single writer; idempotent).
    virtual Result<std::vector<executor::cluster::MergeReport>> merge(project::ProjectFile& project,
                                                                      const std::string& jobId) = 0;
    virtual Status cancel(const std::filesystem::path& project, const std::string& jobId) = 0;
    virtual Result<executor::cluster::SubmitReport> resubmitFailed(const std::filesystem::path& project,
                                                                   const std::string& jobId) = 0;
};

}  // namespace dpmix::workbench
