#pragma once
// The one-run audit (Steinke, Nasr & Jagielski 2023; docs/AUDIT.md, "One-run audits") of a
// study's OWN fine-tuning: its downstream model (the small CNN, from the random initialisation of
// the run seed, as the Random Init method's fine-tuning starts), its steps, batch, clip and
// learning rate, the audited mechanism with σ or r calibrated for the claimed ε exactly as a study
// run calibrates it (pipeline::planFinetune) — trained ONCE on split B of one run seed plus m
// canaries, each included by its own fair coin (a privacy::MechanismRng). Each canary is scored
// by the margin the training added to it, the k highest guessed in and the k lowest out (k fixed
// before the training), and ε_LB comes from the number of correct guesses
// (privacy::oneRunEpsilonLowerBound). Why: the R-run training audit needs 2R trainings, affordable
// on a logistic head only; this one costs one fine-tuning of the network the study releases.
//
// White-box (options.whiteBox, DP-SGD and its σ = 0 control only; one_run_white_box.h): the
// canaries are Dirac canary GRADIENTS inserted into the same fine-tuning as extra examples, and
// each is scored by the noisy sums the steps release at its coordinate — the auditor of DP-SGD's
// threat model, who sees every step. Same guesses, bound and storage ("variant": "white-box").
//
// Stored like the other audits of a study (training_audit_stage.h): a run of method "audit" with
// one NonPrivate ledger entry and an AuditRecord whose details name "kind": "one-run", the
// mechanism and its claim, so audit::claimVerdict shows it beside the ledger entry it audits.
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/pipeline/study_runner.h"
#include "engine/privacy/accountant.h"
#include "engine/privacy/randomness_source.h"
#include "engine/project/project_file.h"
#include "engine/training_audit/training_audit.h"
#include "engine/training_audit/training_canary.h"

#include <cstdint>
#include <optional>
#include <string>

namespace dpmix::audit_runs {

struct OneRunAuditStageOptions {
    std::string task;  // sensitive task (required)
    training_audit::AuditedMechanism mechanism = training_audit::AuditedMechanism::DpSgd;
    training_audit::TrainingCanaryKind canary = training_audit::TrainingCanaryKind::LargeNorm;
    long long canaries = 1000;                      // m
    long long guesses = 0;                          // k₊ = k₋ = k; 0: round(0.1 · m)
    std::optional<double> epsilon;                  // claimed ε; unset: the spec's first
    std::optional<privacy::Accountant> accountant;  // DP-SGD's σ; unset: the spec's
    std::uint64_t seed = 0;                         // run seed (split B, initialisation), canaries, coins
    std::optional<long long> steps;                 // T; unset: the spec's stages.finetune.steps
    // The fine-tuning's clip, batch, learning rate and steps when they are not the spec's (a stored
    // run that ran with the workbench's Advanced values); `steps` above still wins. Its mechanism is
    // `mechanism`'s.
    std::optional<project::FinetuneStage> finetune;
    double normMultiple = 10.0;  // large-norm canaries: × the mean image norm of split B
    double confidence = 0.95;
    // Seeded (default): the coins and the training's sampling and noise follow the seed, so the
    // audit can be re-run and checked; Secret: from the operating system.
    privacy::RandomnessMode randomness = privacy::RandomnessMode::Seeded;
    std::string device = "cpu";
    // White-box: Dirac canary gradients (canary and normMultiple unused); DP-SGD and SGD only.
    bool whiteBox = false;
};

/// The values alone, before any project is opened (messages name the option: canaries, guesses,
/// epsilon, steps, norm-multiple, confidence, device, white-box).
Status checkOneRunAuditValues(const OneRunAuditStageOptions& options);

/// checkOneRunAuditValues, the task, that the study is an example-level image study and that its
/// fine-tuning is not AdaMix-R (a head on frozen features: another mechanism).
Status checkOneRunAuditStageOptions(const project::ProjectFile& project, const OneRunAuditStageOptions& options);

/// The AuditRecord name: "finetune-one-run-<mechanism>-<canary>", white-box
/// "finetune-one-run-white-box-<mechanism>-dirac-gradient".
std::string oneRunAuditName(const OneRunAuditStageOptions& options);

struct OneRunAuditStageReport {
    long long runId = 0;
    std::string task, name;
    training_audit::AuditedMechanism mechanism = training_audit::AuditedMechanism::DpSgd;
    training_audit::TrainingCanaryKind canary = training_audit::TrainingCanaryKind::LargeNorm;
    double claimedEpsilon = 0.0;  // +inf for SGD
    double delta = 0.0, confidence = 0.95;
    double epsilonLB = 0.0;
    long long canaries = 0, included = 0;  // m, canaries the coins put in
    long long guessesIn = 0, guessesOut = 0, guesses = 0, correct = 0;
    long long splitB = 0, trainingSize = 0, steps = 0, batch = 0;
    double q = 0.0, noise = 0.0, clip = 0.0, learningRate = 0.0;  // noise: σ (DP-SGD, SGD: 0) or r
    double testAuc = 0.0;                                         // the audited model on the study's test split
    double trainSeconds = 0.0, wallSeconds = 0.0;                 // the fine-tuning; the whole audit
    std::uint64_t seed = 0;
    bool whiteBox = false;  // Dirac canary gradients (canary is then meaningless)
};

/// The canaries' name: the canary kind, or "dirac-gradient" for a white-box audit.
std::string oneRunCanaryName(const OneRunAuditStageReport& report);

/// Loads the study's images (no proxies), trains once, scores, guesses, bounds and stores.
/// Progress: "one-run audit" around the fine-tuning's own "finetune" events.
Result<OneRunAuditStageReport> runOneRunAuditStage(project::ProjectFile& project,
                                                   const OneRunAuditStageOptions& options,
                                                   const ProgressCallback& progress = {},
                                                   const CancellationToken& cancel = {},
                                                   const pipeline::LogSink& log = {});

}  // namespace dpmix::audit_runs
