#pragma once
// What a study run is asked to do, checked before anything is loaded, and the choices it resolves
// from its options and the spec. Torch-free, so the image study (engine/pipeline), the text study
// (engine/pipeline's text_study library, which must not link LibTorch) and the workbench share one
// definition instead of copies that drift (docs/ARCHITECTURE.md, "engine/study_plan").
#include "engine/core/result.h"
#include "engine/methods/method_plan.h"
#include "engine/privacy/accountant.h"
#include "engine/project/project_spec.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dpmix::study_plan {

/// How the proxies are trained on the public data (no privacy cost).
struct ProxyOptions {
    int epochs = 3;
    long long batch = 128;
    double lr = 1e-3;
    long long maxExamples = 0;   // 0: all public images
    std::string device = "cpu";  // where the proxy trains and predicts (train::Model::create's names)
};

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
    // The caller holds the run's reservation already (a Slurm unit: its grid's reservation, and
    // with secret randomness its attempt's, reserved before it starts: engine/executor/unit_attempts.h):
    // the runner plans and checks the mechanisms as always but neither reserves nor settles.
    // Never set from user input.
    bool budgetReservedByCaller = false;
    ProxyOptions proxy;  // its device is replaced by `device`
    long long randomSearchCandidates = 100;
    std::string device = "cpu";  // every model of the run: proxy, pretraining, fine-tuning
    // A downstream run reuses DP-MixMin's λ where the project already released it for the same
    // (seed, task, ε) and configuration — no second spend on split A (image studies;
    // pipeline/mixture_reuse.h). True learns (and spends) it again (`dpmix run --relearn-mixture`).
    bool relearnMixture = false;
};

/// Which study the options are for: the stages each one has differ.
enum class StudyKind { Image, Text };

/// Validates the options for a study of `kind`: stage names (a text study has proxies and
/// mixture only), methods, ε (in range, each once: the same ε twice would run and spend the same
/// release twice), seeds (each once), ρ, the stage values against the spec's ranges, and the
/// device's name. Whether the device exists on this machine is the trainer's check. The message
/// names the option.
Status checkStudyRunOptions(const StudyRunOptions& options, StudyKind kind = StudyKind::Image);

/// The run's seeds, ε list, ρ, δ, reproducibility and accountant: the options where given, otherwise the
/// spec's (seed 0 when neither names one). Image and text studies resolve them alike.
struct RunChoices {
    std::vector<std::uint64_t> seeds;
    std::vector<double> epsilons;
    double rho = 0.0, delta = 0.0;
    bool reproducible = false;
    privacy::Accountant accountant = privacy::Accountant::Rdp;
};

RunChoices resolveRunChoices(const project::ProjectSpec& spec, const StudyRunOptions& options);

/// The spec the run follows: `spec` with the options' pretraining and fine-tuning values in place
/// of its own, then pretrainSteps / finetuneSteps on top.
project::ProjectSpec withStageOptions(project::ProjectSpec spec, const StudyRunOptions& options);

/// Refuses fine-tuning values that the spec's mechanism does not use, rather than apply them
/// to another mechanism: `finetune` (clip, batch, lr, steps of DP-SGD) for an "adamix-r" spec,
/// `adamix` (T, η) for any other. The message names the values and the spec's mechanism.
Status checkStageOptionsFitSpec(const project::ProjectSpec& spec, const StudyRunOptions& options);

/// The canonical method name for a user's spelling, or an Error naming the allowed ones.
Result<std::string> canonicalMethod(const std::string& name);

/// A device name LibTorch accepts in form: "cpu", "cuda", "cuda:N", "mps". Error naming the value
/// otherwise.
Status checkDeviceName(const std::string& device);

}  // namespace dpmix::study_plan
