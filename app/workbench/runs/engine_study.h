#pragma once
// The two engine functions the program injects into the workbench: the data layer's source
// summary (for File ▸ New from spec) and the study runner (for Run). Kept out of
// dpmix_workbench_lib so that library and its tests do not link LibTorch.
#include "app/workbench/runs/engine_run_controller.h"
#include "app/workbench/runs/run_requests.h"
#include "engine/audit_runs/audit_stage.h"
#include "engine/pipeline/study_runner.h"
#include "engine/project/project_opener.h"

namespace dpmix::workbench {

/// data::summarizeSource, as the project file stores it (same adapter as the CLI's).
Result<project::SourceFacts> summarizeWithDataLayer(const data::SourceSpec& spec);

/// The request as the study runner's options, checked against the project's spec (what
/// runStudyWithEngine runs, and what a cluster submission freezes).
Result<pipeline::StudyRunOptions> studyRunOptionsFor(const project::ProjectFile& project, const StudyRequest& request);
/// The mixture audit's options for the request (a training audit has its own; runAuditWithEngine).
Result<audit_runs::AuditStageOptions> auditStageOptionsFor(const project::ProjectFile& project,
                                                           const AuditRequest& request);

/// The releases runStudyWithEngine would reserve for `request`, planned on the project's data
/// (pipeline::planStudyReleases): the workbench's exact spend preview.
Result<std::vector<privacy::BudgetRelease>> planStudySpendWithEngine(project::ProjectFile& project,
                                                                     const StudyRequest& request);

/// How long runStudyWithEngine would take for `request` here (pipeline::estimateStudyRun: the
/// planned work times a training step timed now): the confirm dialog's time estimate.
Result<RunTimeEstimate> estimateStudyWithEngine(project::ProjectFile& project, const StudyRequest& request);

/// pipeline::runStudy with the request's stages, methods, tasks, ε, ρ, seeds, step counts and
/// mixture values (the panel's Advanced values) overriding the spec; the stored runs record them.
Status runStudyWithEngine(project::ProjectFile& project, const StudyRequest& request, const ProgressCallback& progress,
                          const CancellationToken& cancel, const StudyLog& log);

/// audit_runs::runAuditStage with the dialog's choices.
Status runAuditWithEngine(project::ProjectFile& project, const AuditRequest& request, const ProgressCallback& progress,
                          const CancellationToken& cancel, const StudyLog& log);

/// experiment_runs::runPsgStage with the dialog's choices; S reaches `snapshot` after every iteration.
Status runPsgWithEngine(project::ProjectFile& project, const PsgRequest& request, const ProgressCallback& progress,
                        const CancellationToken& cancel, const StudyLog& log,
                        const std::function<void(const PrivateSetImages&)>& snapshot);

}  // namespace dpmix::workbench
