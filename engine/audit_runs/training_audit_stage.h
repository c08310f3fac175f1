#pragma once
// The canary audit of a fine-tuning mechanism (engine/training_audit, docs/AUDIT.md "Auditing
// fine-tuning mechanisms") on a real study: the audited training set D is the first `examples`
// images of split B of one run seed (the data fine-tuning touches), labelled by one sensitive
// task; the canary is made from a held-out validation image (flipped label), from D's norms
// (large norm) or from the public images only (gradient-aligned). The result is stored in the
// project as a run of method "audit" whose AuditRecord names the mechanism and its claimed ε, so
// the ledger views can show the verdict (storedMechanismAudits, audit::claimVerdict).
//
// Like the mixture audit this is an experiment on the mechanism, not a release: its ledger holds
// one NonPrivate entry, and which validation image became the canary is not stored.
#include "engine/audit/claim_verdict.h"
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/pipeline/study_runner.h"
#include "engine/project/project_file.h"
#include "engine/training_audit/training_audit.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dpmix::audit_runs {

struct TrainingAuditStageOptions {
    std::string task;  // sensitive task (required)
    training_audit::AuditedMechanism mechanism = training_audit::AuditedMechanism::Dirichlet;
    training_audit::TrainingCanaryKind canary = training_audit::TrainingCanaryKind::FlippedLabel;
    long long runs = 1000;                          // R, per world
    std::optional<double> epsilon;                  // claimed ε; unset: the spec's first
    std::optional<privacy::Accountant> accountant;  // DP-SGD's σ; unset: the spec's
    std::uint64_t seed = 0;                         // ρ split, canary choice, audit seed
    int threads = 0;                                // 0 = all cores
    std::string device = "cpu";                     // where the audited trainings run
    long long examples = 0;                         // |D|; 0: min(1000, split B)
    long long steps = 50;                           // T
    int batch = 0;                                  // expected batch B; 0: |D| / 10 (q = 0.1)
    std::optional<double> learningRate;             // unset: the mechanism's default
    double normMultiple = 10.0;                     // large-norm canary: × the mean image norm
};

/// The values alone, before any project is opened (messages name the option: runs, epsilon,
/// examples, steps, batch, lr, norm-multiple, threads).
Status checkTrainingAuditValues(const TrainingAuditStageOptions& options);

/// checkTrainingAuditValues, the task, and that the study is an image study.
Status checkTrainingAuditStageOptions(const project::ProjectFile& project, const TrainingAuditStageOptions& options);

/// The AuditRecord name: "finetune-<mechanism>-<canary>", e.g. "finetune-dirichlet-large-norm".
std::string trainingAuditName(const TrainingAuditStageOptions& options);

struct TrainingAuditStageReport {
    long long runId = 0;
    std::string task, name;
    std::string canaryDescription;
    training_audit::TrainingAuditResult result;
};

/// Loads the study's images (no proxies needed), runs the audit and stores it. Progress: "audit".
Result<TrainingAuditStageReport> runTrainingAuditStage(project::ProjectFile& project,
                                                       const TrainingAuditStageOptions& options,
                                                       const ProgressCallback& progress = {},
                                                       const CancellationToken& cancel = {},
                                                       const pipeline::LogSink& log = {});

/// The audits of a mechanism among `records` (those whose details name a "mechanism" and its
/// claimed ε), for audit::claimVerdict. Records with damaged details are skipped.
std::vector<audit::StoredMechanismAudit> mechanismAuditsOf(const std::vector<project::AuditRecord>& records);

/// audit::claimVerdictLines for every ledger entry of the project's runs (audits aside), judged by
/// its stored audits: what `dpmix budget` adds under "includes a mechanism whose guarantee is only
/// claimed". Ledgers that do not parse are skipped (inspect and Verify report them).
Result<std::vector<std::string>> projectClaimVerdicts(const project::ProjectFile& project);

/// mechanismAuditsOf over every audit run of the project.
Result<std::vector<audit::StoredMechanismAudit>> storedMechanismAudits(const project::ProjectFile& project);

}  // namespace dpmix::audit_runs
