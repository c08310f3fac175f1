#pragma once
// The engine's Slurm executor behind the workbench's ClusterBackend (engine/pipeline's
// cluster_submission.h and cluster_jobs.h). Kept out of dpmix_workbench_lib with the other
// engine adapters (engine_study.h), so that library and its tests do not link LibTorch.
#include "app/workbench/runs/cluster_backend.h"
#include "engine/pipeline/study_runner.h"

namespace dpmix::workbench {

class EngineClusterBackend : public ClusterBackend {
public:
    /// `workerProgram`: the dpmix command-line program each array task runs (`dpmix worker`).
    /// Empty: the `dpmix` next to this program (an installation puts both in one folder), else
    /// the one on PATH; a submission without either is refused.
    explicit EngineClusterBackend(std::string workerProgram = {});

    Status canSubmit() const override;
    Result<executor::cluster::SubmitReport> submitStudy(project::ProjectFile& project, const StudyRequest& request,
                                                        const ClusterSubmission& submission,
                                                        const ProgressCallback& progress,
                                                        const CancellationToken& cancel, const StudyLog& log) override;
    Result<executor::cluster::SubmitReport> submitAudit(project::ProjectFile& project, const AuditRequest& request,
                                                        const ClusterSubmission& submission,
                                                        const ProgressCallback& progress,
                                                        const CancellationToken& cancel, const StudyLog& log) override;
    Result<std::vector<executor::cluster::JobStatus>> status(const std::filesystem::path& project) const override;
    Result<std::vector<executor::cluster::MergeReport>> merge(project::ProjectFile& project,
                                                              const std::string& jobId) override;
    Status cancel(const std::filesystem::path& project, const std::string& jobId) override;
    Result<executor::cluster::SubmitReport> resubmitFailed(const std::filesystem::path& project,
                                                           const std::string& jobId) override;

    /// The worker program a submission would write into its script, or why there is none.
    Result<std::string> workerProgram() const;

private:
    std::string workerProgram_;
};

}  // namespace dpmix::workbench
