#pragma once
// RunController backed by the engine's study runner: each Run-menu action becomes one job that
// opens the project on the JobRunner's worker thread (ProjectFile is one-per-thread) and runs
// the stages with the panel's ε, ρ, seeds and Advanced mixture values overriding the spec
// (run_requests.h builds each action's request). The study and audit functions are injected
// (main.cpp passes engine/pipeline's runStudy and runAuditStage), so the window and its tests
// do not link LibTorch.
#include "app/workbench/runs/private_set_images.h"
#include "app/workbench/runs/run_controller.h"
#include "engine/project/project_file.h"

#include <QObject>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace dpmix::workbench {

class ClusterBackend;

/// The mixture stage's hyper-parameters (the panel's "Advanced" values).
struct MixtureSettings {
    double clip = 13.0;
    long long batch = 1000;
    double lr = 1.0;
    long long steps = 100;

    bool operator==(const MixtureSettings&) const = default;
};

/// Pretraining's and private fine-tuning's values (the panel's other Advanced sections).
struct PretrainSettings {
    long long batch = 256;
    double lr = 0.1;
    long long steps = 1000;

    bool operator==(const PretrainSettings&) const = default;
};
struct FinetuneSettings {
    double clip = 2.0;
    long long batch = 256;
    double lr = 1e-4;
    long long steps = 1000;

    bool operator==(const FinetuneSettings&) const = default;
};

/// AdaMix-R's fine-tuning values the panel edits: its steps T and step size η (the rest is the
/// spec's). Sent only for a study whose fine-tuning mechanism is "adamix-r".
struct AdamixFinetuneSettings {
    long long steps = 200;  // T
    double eta = 1.0;       // η

    bool operator==(const AdamixFinetuneSettings&) const = default;
};

/// What the panel (or a stored run, for a re-run) asks the study runner for.
struct StudyRequest {
    std::vector<std::string> stages = {"proxies", "mixture"};
    std::vector<std::string> methods;  // downstream methods; empty: all five
    std::vector<std::string> tasks;    // empty: every sensitive task
    std::vector<double> epsilons;      // empty: the spec's
    double rho = 0.0;
    std::vector<long long> seeds;              // empty: the spec's
    std::optional<MixtureSettings> mixture;    // unset: the spec's
    std::optional<PretrainSettings> pretrain;  // unset: the spec's
    // Fine-tuning's values for the spec's mechanism (never chosen here): DP-SGD's (and
    // Dirichlet's) in `finetune`, AdaMix-R's in `adamix`; the runner refuses the other one.
    std::optional<FinetuneSettings> finetune;       // unset: the spec's
    std::optional<AdamixFinetuneSettings> adamix;   // unset: the spec's
    std::optional<long long> pretrainSteps;         // unset: pretrain's, else the spec's
    std::optional<long long> finetuneSteps;         // unset: finetune's, else the spec's
    bool reproducible = false;                      // seeded DP randomness (not a release); default secret
    std::optional<privacy::Accountant> accountant;  // certifies every DP mechanism; unset: the spec's
    std::optional<double> budgetCap;  // the panel's cap on the data set's total (StudyRunOptions::budgetCap)
    std::string device = "auto";      // where the models train: auto, cpu, cuda (Run ▸ Compute device)
    bool relearnMixture = false;      // StudyRunOptions::relearnMixture
};

/// What the Audit dialog asks the audit stage for (engine/audit_runs/audit_stage.h).
struct AuditRequest {
    std::string task;
    bool naturalCanary = false;
    bool raiseTopSource = false;  // max-clip sign; the default lowers the top source (docs/AUDIT.md)
    bool quietestSource = false;  // max-clip target: the quietest source instead of argmax λ* (docs/AUDIT.md)
    long long runs = 2000;        // per world
    bool noNoise = false;
    std::optional<double> epsilon;  // claimed ε; unset: the spec's first
    long long seed = 0;
    std::optional<MixtureSettings> mixture;         // the mechanism audited; unset: the spec's
    std::optional<privacy::Accountant> accountant;  // certifies the claimed ε; unset: the spec's
    // Empty: the mixture step. "dirichlet", "dp-sgd", "sgd": a fine-tuning mechanism
    // (engine/audit_runs/training_audit_stage.h) with this canary; the mixture fields are unused.
    std::string mechanism;
    std::string trainingCanary;
    std::string device = "auto";  // where the proxy and the audited trainings run
    // A fine-tuning mechanism audited in one training of the study's fine-tuning
    // (engine/audit_runs/one_run_audit_stage.h): m canaries, canary gradients when white-box.
    bool oneRun = false;
    bool whiteBox = false;
    long long canaries = 1000;
    std::optional<FinetuneSettings> finetune;  // one run of a stored run: its values (unset: the spec's)
};

/// What the Private set dialog and the panel ask the PSG stage for (engine/experiment_runs/psg_stage.h).
struct PsgRequest {
    int imagesPerClass = 10;
    long long iterations = 3;
    double epsilon = 10.0;
    int evaluations = 3;
    int evaluationEpochs = 300;
    bool references = true;
    long long dpSgdSteps = 300;
    long long seed = 0;
    bool reproducible = false;
    std::optional<privacy::Accountant> accountant;  // unset: the spec's
    std::string device = "auto";                    // where S and the networks live
};

using StudyLog = std::function<void(const std::string&)>;
/// Runs the study on an open project; returns an error message, or nothing on success.
using StudyFunction = std::function<Status(project::ProjectFile&, const StudyRequest&, const ProgressCallback&,
                                           const CancellationToken&, const StudyLog&)>;

/// Runs a canary audit on an open project; returns an error message, or nothing on success.
using AuditFunction = std::function<Status(project::ProjectFile&, const AuditRequest&, const ProgressCallback&,
                                           const CancellationToken&, const StudyLog&)>;

/// Runs PSG on an open project; `snapshot` receives S as it evolves (on the worker thread).
using PsgFunction =
    std::function<Status(project::ProjectFile&, const PsgRequest&, const ProgressCallback&, const CancellationToken&,
                         const StudyLog&, const std::function<void(const PrivateSetImages&)>& snapshot)>;

/// Every DP release a study request would make, planned on the open project's data by the engine
/// (pipeline::planStudyReleases); nothing runs and nothing is stored.
using SpendPlanFunction =
    std::function<Result<std::vector<privacy::BudgetRelease>>(project::ProjectFile&, const StudyRequest&)>;

/// How long a study request would take on this machine (estimateStudyWithEngine); nothing runs.
using EstimateFunction = std::function<Result<RunTimeEstimate>(project::ProjectFile&, const StudyRequest&)>;

/// The request for the panel's values (ε, ρ, seeds and the Advanced mixture values); an Error
/// names the field (seeds) when they do not parse.
Result<StudyRequest> studyRequestFor(const widgets::RunParameters& parameters);

class EngineRunController : public QObject, public RunController {
    Q_OBJECT

public:
    explicit EngineRunController(StudyFunction study, QObject* parent = nullptr);

    Result<QList<StageJob>> planRun(const widgets::RunParameters& parameters) override;
    /// Every RunKind: the study kinds go to the study function, Audit to the audit function
    /// (refused with a message when none was given), Rerun to whichever the stored run used.
    Result<QList<StageJob>> planAction(const RunAction& action) override;
    void setProject(const QString& path, bool readOnly) override;
    void setComputeDevice(const QString& device) override { device_ = device.toStdString(); }
    void setAuditFunction(AuditFunction audit) { audit_ = std::move(audit); }
    void setPsgFunction(PsgFunction psg) { psg_ = std::move(psg); }
    /// The engine's planner of a study run's releases: with it, DP-MixMin and Compare with
    /// baselines are previewed exactly (plannedReleases); unset, from the panel's values.
    void setSpendPlanFunction(SpendPlanFunction plan) { plan_ = std::move(plan); }
    /// The engine's time estimate of DP-MixMin and Compare with baselines (the confirm dialog's).
    void setEstimateFunction(EstimateFunction estimate) { estimate_ = std::move(estimate); }
    std::optional<Result<RunTimeEstimate>> estimatedTime(const RunAction& action) override;
    std::optional<Result<std::vector<privacy::BudgetRelease>>> plannedReleases(const RunAction& action) override;
    /// Where "Run on cluster…" submits (not owned; must outlive the controller). Unset: an
    /// action with a cluster submission is refused.
    void setClusterBackend(ClusterBackend* cluster) { cluster_ = cluster; }

Q_SIGNALS:
    /// One line of the study's log; emitted from the worker thread (connect queued/auto).
    void logged(const QString& line);
    /// S of a running PSG job as it evolves; emitted from the worker thread (connect queued/auto).
    void privateSetUpdated(const dpmix::workbench::PrivateSetImages& set);
    /// A cluster job was submitted (its id); emitted from the worker thread (connect queued/auto).
    void clusterJobSubmitted(const QString& jobId);

private:
    std::string device_ = "auto";
    Status checkProject() const;
    using ProjectWork = std::function<Status(project::ProjectFile&, const ProgressCallback&, const CancellationToken&,
                                             const StudyLog&)>;
    /// A job that opens the project on the worker thread (ProjectFile is one-per-thread), runs
    /// `work` on it and logs the outcome ("Stopped: …" or `finished`).
    StageJob projectJob(const QString& name, const std::string& finished, ProjectWork work);
    StageJob studyJob(const QString& name, const StudyRequest& request);
    StageJob auditJob(const QString& name, const AuditRequest& request);
    StageJob psgJob(const QString& name, const PsgRequest& request);
    /// "Run on cluster…": the action's request submitted as one Slurm job array.
    Result<QList<StageJob>> planClusterAction(const RunAction& action);
    using ClusterSubmit = std::function<Result<executor::cluster::SubmitReport>(
        project::ProjectFile&, const ProgressCallback&, const CancellationToken&, const StudyLog&)>;
    /// Runs `submit` on the worker thread and logs the job it submitted (`stores`: what its merge stores).
    StageJob clusterJob(const QString& name, const std::string& stores, ClusterSubmit submit);
    StageJob clusterStudyJob(const QString& name, const StudyRequest& request, const ClusterSubmission& submission);
    StageJob clusterAuditJob(const QString& name, const AuditRequest& request, const ClusterSubmission& submission);

    StudyFunction study_;
    AuditFunction audit_;
    PsgFunction psg_;
    SpendPlanFunction plan_;
    EstimateFunction estimate_;
    ClusterBackend* cluster_ = nullptr;
    QString project_;
    bool readOnly_ = false;
};

}  // namespace dpmix::workbench
