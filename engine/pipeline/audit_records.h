#pragma once
// An audit's run and record, for the mixture audit (audit_stage.cpp) and the training audit
// (training_audit_stage.cpp) alike: the run's life (running, then done, failed or cancelled)
// around the audit's work, and the stored record (EVAL error counts, δ, confidence, ε_LB and the
// details JSON each stage writes for itself).
#include "engine/core/cancellation.h"
#include "engine/core/result.h"
#include "engine/project/project_file.h"
#include "engine/project/project_records.h"

#include <string>

namespace dpmix::pipeline {

template <typename AuditResult>
project::AuditRecord auditRecordOf(long long runId, const std::string& name, const AuditResult& r,
                                   std::string detailsJson) {
    project::AuditRecord record;
    record.runId = runId;
    record.name = name;
    record.counts = {r.falsePositives, r.falseNegatives, r.evalOut, r.evalIn};
    record.delta = r.delta;
    record.confidence = r.confidence;
    record.epsilonLowerBound = r.epsilonLB;
    record.detailsJson = std::move(detailsJson);
    return record;
}

/// Adds the audit's run, marks it running, and runs `work(runId)` (which stores the results): the
/// run ends done, failed with the Error's message, or cancelled (dpmix::Cancelled is rethrown).
template <typename Work>
Result<long long> runAuditRun(project::ProjectFile& project, const project::NewRun& run, Work&& work) {
    auto runId = project.addRun(run);
    if (!runId) return runId.error();
    if (auto s = project.setRunStatus(*runId, project::RunStatus::Running); !s) return s.error();
    Status outcome;
    try {
        outcome = work(*runId);
    } catch (const Cancelled&) {
        (void)project.setRunStatus(*runId, project::RunStatus::Cancelled, "cancelled by the user");
        throw;
    }
    if (outcome) {
        (void)project.setRunStatus(*runId, project::RunStatus::Failed, outcome->message);
        return *outcome;
    }
    if (auto s = project.setRunStatus(*runId, project::RunStatus::Done); !s) return s.error();
    return *runId;
}

}  // namespace dpmix::pipeline
