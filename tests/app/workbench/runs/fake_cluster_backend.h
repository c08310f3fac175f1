#pragma once
// A ClusterBackend that answers from memory and records what it was asked (no Slurm).
#include "app/workbench/runs/cluster_backend.h"

#include <QMutex>
#include <QMutexLocker>

namespace dpmix::workbench::testing {

class FakeClusterBackend : public ClusterBackend {
public:
    Status canSubmit() const override {
        QMutexLocker lock(&mutex);
        if (!cannotSubmit.empty()) return Error{cannotSubmit};
        return std::nullopt;
    }
    Result<executor::cluster::SubmitReport> submitStudy(project::ProjectFile&, const StudyRequest& request,
                                                        const ClusterSubmission& submission, const ProgressCallback&,
                                                        const CancellationToken&, const StudyLog&) override {
        QMutexLocker lock(&mutex);
        studies.push_back(request);
        submissions.push_back(submission);
        return report();
    }
    Result<executor::cluster::SubmitReport> submitAudit(project::ProjectFile&, const AuditRequest& request,
                                                        const ClusterSubmission& submission, const ProgressCallback&,
                                                        const CancellationToken&, const StudyLog&) override {
        QMutexLocker lock(&mutex);
        audits.push_back(request);
        submissions.push_back(submission);
        return report();
    }
    Result<std::vector<executor::cluster::JobStatus>> status(const std::filesystem::path&) const override {
        QMutexLocker lock(&mutex);
        ++statusCalls;
        if (!statusError.empty()) return Error{statusError};
        return jobs;
    }
    Result<std::vector<executor::cluster::MergeReport>> merge(project::ProjectFile&,
                                                              const std::string& jobId) override {
        QMutexLocker lock(&mutex);
        merged.push_back(jobId);
        executor::cluster::MergeReport r;
        r.jobId = jobId;
        r.imported = true;
        r.summary = "stored as run 7";
        for (auto& j : jobs)
            if (j.jobId == jobId) j.mergedRun = 7;
        return std::vector<executor::cluster::MergeReport>{r};
    }
    Status cancel(const std::filesystem::path&, const std::string& jobId) override {
        QMutexLocker lock(&mutex);
        cancelled.push_back(jobId);
        return std::nullopt;
    }
    Result<executor::cluster::SubmitReport> resubmitFailed(const std::filesystem::path&,
                                                           const std::string& jobId) override {
        QMutexLocker lock(&mutex);
        resubmitted.push_back(jobId);
        return report();
    }

    mutable QMutex mutex;
    std::string cannotSubmit;  // non-empty: canSubmit's error
    std::string statusError;   // non-empty: status's error
    std::vector<executor::cluster::JobStatus> jobs;
    mutable int statusCalls = 0;
    std::vector<StudyRequest> studies;
    std::vector<AuditRequest> audits;
    std::vector<ClusterSubmission> submissions;
    std::vector<std::string> merged, cancelled, resubmitted;

private:
    static executor::cluster::SubmitReport report() {
        executor::cluster::SubmitReport r;
        r.jobId = "job-1";
        r.slurmJobId = "42";
        r.units = 2;
        return r;
    }
};

/// A job of `kind` whose units have these states (unit i: states[i]).
inline executor::cluster::JobStatus jobWith(const std::string& id, const std::vector<std::string>& states,
                                            const std::string& kind = "run") {
    executor::cluster::JobStatus job;
    job.jobId = id;
    job.kind = kind;
    job.dir = "/tmp/" + id;
    for (std::size_t i = 0; i < states.size(); ++i) {
        executor::cluster::UnitStatus u;
        u.id = static_cast<long long>(i);
        u.state = states[i];
        if (states[i] == "failed") u.slurmState = "CANCELLED";
        u.log = "/tmp/" + id + "/logs/unit-" + std::to_string(i) + ".log";
        job.units.push_back(u);
    }
    return job;
}

}  // namespace dpmix::workbench::testing
