#pragma once
// The canary audit of the mixture step (engine/audit, docs/AUDIT.md) on a real study: split A of
// one run seed, the study's proxy predictions as the k sources, the spec's mixture settings, and
// the result stored in the project as a run of method "audit" with its AuditRecord.
//
// An audit is an experiment ON the mechanism, not a release: its runs touch split A (and, for a
// natural canary, one held-out sensitive example), but only empirical bounds leave it. The run's
// ledger records this as one NonPrivate entry (docs/AUDIT.md, "Audits in a project").
#include "engine/audit/canary.h"
#include "engine/audit/canary_audit.h"
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/pipeline/study_runner.h"
#include "engine/project/project_file.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dpmix::audit_runs {

struct AuditStageOptions {
    std::string task;  // sensitive task name (required)
    audit::CanaryKind canary = audit::CanaryKind::MaxClip;
    audit::MaxClipSign maxClipSign = audit::MaxClipSign::LowerTopSource;   // docs/AUDIT.md
    audit::MaxClipTarget maxClipTarget = audit::MaxClipTarget::TopSource;  // docs/AUDIT.md
    long long runs = 2000;                                                 // R, per world
    bool noNoise = false;                                                  // the no-noise control (claimed ε = +inf)
    std::optional<double> epsilon;                                         // claimed ε; unset: the spec's first
    // The accountant that certifies the claimed ε (and calibrates σ): the audit's ε_LB is
    // compared with what that accountant certified. Unset: the spec's.
    std::optional<privacy::Accountant> accountant;
    std::uint64_t seed = 0;                        // ρ split, natural canary choice and audit seed
    int threads = 0;                               // 0 = all cores
    std::optional<project::MixtureStage> mixture;  // unset: the spec's C, B, η, T
    pipeline::ProxyOptions proxy;
    // Images of the canary user (max-clip copies). At user level the mechanism clips a user's
    // mean gradient once; at example level each copy is a unit of its own (docs/AUDIT.md).
    long long canaryExamples = 1;
};

/// The task must be one of the spec's sensitive tasks (or its sensitive source's labels); the
/// message lists them. Shared by the mixture and the training audit.
Status checkAuditedTask(const project::ProjectFile& project, const std::string& task);

/// Checks the values (runs >= 2, ε finite > 0) and that the task exists in the project's spec
/// (or its sensitive source's labels). Messages name the flag: --task, --runs, --epsilon.
Status checkAuditStageOptions(const project::ProjectFile& project, const AuditStageOptions& options);

/// The AuditRecord name: "max-clip" ("max-clip-quietest" for the quietest-source target, then
/// "-raise" for the raising sign), "natural", with "-no-noise" for the control.
std::string auditName(const AuditStageOptions& options);

struct AuditStageReport {
    long long runId = 0;
    std::string task;
    std::string name;  // auditName
    long long splitA = 0;
    long long canaryExample = -1;  // natural: index into the sensitive images
    int canaryLabel = -1;          // natural: its label for the task
    audit::CanaryAuditResult result;
    // Spread of the attack score in each world over all R runs: separation needs the shift of
    // the means to be large against the standard deviations.
    double scoreMeanIn = 0.0, scoreStdIn = 0.0, scoreMeanOut = 0.0, scoreStdOut = 0.0;
};

/// Loads the study (reusing its proxy), runs the audit and stores it. Progress: "audit" stage.
Result<AuditStageReport> runAuditStage(project::ProjectFile& project, const AuditStageOptions& options,
                                       const ProgressCallback& progress = {}, const CancellationToken& cancel = {},
                                       const pipeline::LogSink& log = {});

/// Natural canary choice: a held-out example from split B (never in A), deterministic from the
/// seed. Exposed for the test.
std::size_t naturalCanaryExample(const pipeline::RhoSplit& split, std::uint64_t seed);

}  // namespace dpmix::audit_runs
