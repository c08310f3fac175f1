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
#include "engine/project/dataset_budget.h"
#include "engine/project/project_file.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace dpmix::pipeline {

/// AdaMix-R's own fine-tuning values a caller may change (docs/ADAMIX.md, "As a study's fine-tuning
/// mechanism"): its steps T and step size η. The rest of AdaMix-R's settings are the spec's.
struct AdamixStageValues {
    long long steps = project::kAdamixDefaultSteps;  // T
    double eta = project::kAdamixDefaultEta;         // η
};

/// Stages: "proxies", "mixture", and the downstream stages "pretrain", "finetune", "evaluate"
/// (any of the three, or "downstream", runs all three for each method). Methods (downstream
/// only): any spelling engine/methods/method_plan.h accepts; by default every method.
struct StudyRunOptions {
    std::vector<std::string> stages = {"proxies", "mixture"};
    std::vector<std::string> methods = methods::allMethodNames();
    std::vector<std::string> tasks;                // empty: every sensitive task
    std::vector<double> epsilons;                  // empty: the spec's
    std::optional<double> rho;                     // unset: the spec's
    std::vector<std::uint64_t> seeds;              // empty: the spec's
    std::optional<long long> pretrainSteps;        // unset: the spec's
    std::optional<long long> finetuneSteps;        // unset: the spec's
    std::optional<project::MixtureStage> mixture;  // unset: the spec's (the workbench's Advanced values)
    // Pretraining and fine-tuning values (the workbench's Advanced sections); unset: the spec's.
    // Fine-tuning's mechanism and user group size are always the spec's. `finetune` carries
    // DP-SGD's (and Dirichlet's) clip, batch, lr and steps, `adamix` AdaMix-R's T and η: a run
    // whose values do not fit the spec's mechanism is refused (checkStageOptionsFitSpec).
    std::optional<project::PretrainStage> pretrain;
    std::optional<project::FinetuneStage> finetune;
    std::optional<AdamixStageValues> adamix;
    std::optional<bool> reproducible;               // seeded DP randomness, not a release; unset: the spec's
    std::optional<privacy::Accountant> accountant;  // certifies every Gaussian mechanism; unset: the spec's
    // A cap on the data set's total for this run (the workbench's cap field, `dpmix run --cap`): the
    // run is refused when the data set's total would exceed it, the spec's privacy.budget or the
    // budget store's cap, whichever is smallest.
    std::optional<double> budgetCap;
    ProxyOptions proxy;  // its device is replaced by `device`
    long long randomSearchCandidates = 100;
    std::string device = "cpu";  // every model of the run: proxy, pretraining, fine-tuning
};

/// The run's seeds, ε list, ρ, δ, reproducibility and accountant: the options where given, otherwise the
/// spec's (seed 0 when neither names one). Image and text studies resolve them alike.
struct RunChoices {
    std::vector<std::uint64_t> seeds;
    std::vector<double> epsilons;
    double rho = 0.0, delta = 0.0;
    bool reproducible = false;
    privacy::Accountant accountant = privacy::Accountant::Rdp;
};

inline RunChoices resolveRunChoices(const project::ProjectSpec& spec, const StudyRunOptions& options) {
    RunChoices c;
    c.seeds = options.seeds;
    if (c.seeds.empty())
        for (auto s : spec.seeds) c.seeds.push_back(static_cast<std::uint64_t>(s));
    if (c.seeds.empty()) c.seeds.push_back(0);
    c.epsilons = options.epsilons.empty() ? spec.privacy.epsilons : options.epsilons;
    c.rho = options.rho.value_or(spec.privacy.rho);
    c.delta = spec.privacy.delta;
    c.reproducible = options.reproducible.value_or(spec.privacy.reproducible);
    c.accountant = options.accountant.value_or(spec.privacy.accountant);
    return c;
}

/// The spec the run follows: `spec` with the options' pretraining and fine-tuning values in place
/// of its own, then pretrainSteps / finetuneSteps on top.
project::ProjectSpec withStageOptions(project::ProjectSpec spec, const StudyRunOptions& options);

/// Validates the stage names and values; the message names the option.
Status checkStudyRunOptions(const StudyRunOptions& options);

/// Refuses fine-tuning values that the spec's mechanism does not use, rather than apply them
/// to another mechanism: `finetune` (clip, batch, lr, steps of DP-SGD) for an "adamix-r" spec,
/// `adamix` (T, η) for any other. The message names the values and the spec's mechanism.
Status checkStageOptionsFitSpec(const project::ProjectSpec& spec, const StudyRunOptions& options);

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

/// The canonical method name for a user's spelling, or an Error naming the allowed ones.
Result<std::string> canonicalMethod(const std::string& name);

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

/// preflightStudyRun, then the planned releases reserved on the data set's budget: for a run whose
/// units execute elsewhere (a Slurm grid), which keeps the reservation open until its merge.
Result<project::BudgetReservation> reserveStudyRun(project::ProjectFile& project, const StudyRunOptions& options,
                                                   const ImageStudy& study, const LogSink& log = {});

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
