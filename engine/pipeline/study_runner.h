#pragma once
// Runs the stages of a study on a project and stores every result as it is produced (a crash
// loses at most the stage in flight). Stages: proxies → mixture (→ pretrain → finetune →
// evaluate, once engine/train provides them). The runner owns all storage; stages are pure.
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/methods/method_plan.h"
#include "engine/pipeline/mixture_stage.h"
#include "engine/pipeline/proxy_stage.h"
#include "engine/privacy/privacy_budget.h"
#include "engine/project/dataset_budget.h"
#include "engine/project/project_file.h"
#include "engine/study_plan/run_options.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace dpmix::pipeline {

// The run's options, their checks and resolved choices: engine/study_plan/run_options.h.
using study_plan::AdamixStageValues;
using study_plan::RunChoices;
using study_plan::StudyRunOptions;

/// An image study's checks before anything is loaded: the plan's (study_plan::checkStudyRunOptions,
/// checkStageOptionsFitSpec against `spec`) and whether this machine has the device.
Status checkImageStudyRun(const project::ProjectSpec& spec, const StudyRunOptions& options);

struct MixtureReport {
    std::uint64_t seed = 0;
    double rho = 0.0;
    long long splitA = 0, splitB = 0;
    MixtureOutcome outcome;
};

/// One downstream run: a method's model after pretraining and private fine-tuning.
struct DownstreamReport {
    std::string method;
    std::string task;
    std::uint64_t seed = 0;
    double epsilon = 0.0;  // target ε of the private stages
    double testAuc = 0.0;
    double pretrainedTestAuc = 0.0;
    double ledgerEpsilon = 0.0;  // the run's total from its ledger (∞ when a step was non-private)
    bool established = true;     // false when the ledger's guarantee is only claimed (Dirichlet)
    long long runId = 0;
};

struct StudyRunReport {
    std::string project;
    std::vector<std::string> componentNames;
    double proxyPublicAuc = 0.0;
    std::vector<MixtureReport> mixtures;       // one per (task, seed)
    std::vector<DownstreamReport> downstream;  // one per (method, task, ε, seed) when downstream ran
};

/// Log lines for the user (the CLI prints them to stderr, the GUI to its log view).
using LogSink = std::function<void(const std::string&)>;

/// A project's data and its trained proxy, ready for the private stages.
struct PreparedStudy {
    ImageStudy study;
    Proxy proxy;
    std::uint64_t studySeed = 0;
    long long proxyRunId = 0;
    bool proxyReused = false;  // weights loaded from an earlier proxy run of this project
};

/// Loads the study's data and obtains its proxy: the weights of an earlier finished proxy run
/// with the same settings are reused (checked against their content hash); otherwise the proxy
/// is trained on the public data and stored as a run of its own.
/// `beforeProxy`, when given, sees the loaded study before anything is stored (the runner checks
/// the privacy budget there); its error stops the call.
Result<PreparedStudy> prepareStudy(project::ProjectFile& project, const ProxyOptions& proxyOptions,
                                   const ProgressCallback& progress = {}, const CancellationToken& cancel = {},
                                   const LogSink& log = {},
                                   const std::function<Status(const ImageStudy&)>& beforeProxy = {});

/// Every DP release the run would make, with the ledger entries its mechanisms will record, on the
/// project's data as loaded now: what the run reserves on the data set's budget when it starts.
/// Loads the data but trains no proxy and stores nothing (the workbench's spend preview).
Result<std::vector<privacy::BudgetRelease>> planStudyReleases(project::ProjectFile& project,
                                                              const StudyRunOptions& options, const LogSink& log = {});
/// The same on a study already loaded (a Slurm grid plans each unit's part at submission).
Result<std::vector<privacy::BudgetRelease>> planStudyReleasesOn(project::ProjectFile& project,
                                                                const StudyRunOptions& options, const ImageStudy& study,
                                                                const LogSink& log = {});

/// How long the run would take on this machine, estimated before it starts: its planned work
/// (study_plan/study_work.h, as the job meter weighs its phases) times the seconds per example of a
/// training step of the downstream network measured now (step_calibration.h). Loads the data like
/// planStudyReleases; trains a throw-away network on random pixels for a second or two; stores
/// nothing. An estimate, not a promise: the proxy may be reused, other work may share the machine.
struct StudyRunEstimate {
    double seconds = 0.0;
    double work = 0.0;              // examples through the network, weighted
    double stepMilliseconds = 0.0;  // one measured training step of `batch` examples
    int batch = 0;
};
Result<StudyRunEstimate> estimateStudyRun(project::ProjectFile& project, const StudyRunOptions& options,
                                          const LogSink& log = {});

/// preflightStudyRun, then the planned releases reserved on the data set's budget: for a run whose
/// units execute elsewhere (a Slurm grid), which keeps the reservation open until its merge.
/// `who` names the reservation in the store's listings ("<who>: N planned release(s)").
Result<project::BudgetReservation> reserveStudyRun(project::ProjectFile& project, const StudyRunOptions& options,
                                                   const ImageStudy& study, const LogSink& log = {},
                                                   const std::string& who = "dpmix run");

Result<StudyRunReport> runStudy(project::ProjectFile& project, const StudyRunOptions& options,
                                const ProgressCallback& progress = {}, const CancellationToken& cancel = {},
                                const LogSink& log = {});

/// The checks runStudy makes on the loaded study before anything runs or is stored, for a run
/// that will execute elsewhere (a cluster job's units): the unit of privacy every mechanism can
/// honour, the tasks, every planned DP release on the realised splits and — with a cap — the
/// whole run's releases composed with what the project has already spent.
Status preflightStudyRun(project::ProjectFile& project, const StudyRunOptions& options, const ImageStudy& study,
                         const LogSink& log = {});

}  // namespace dpmix::pipeline
