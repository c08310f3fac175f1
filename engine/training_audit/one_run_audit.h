#pragma once
// One-run audit of a fine-tuning mechanism (Steinke, Nasr & Jagielski 2023; docs/AUDIT.md,
// "One-run audits"): m canaries, each added to the training set D independently with probability
// 1/2, ONE training of the logistic head by the same code and calibration as the R-run canary
// audit (audit_trainer.h), each canary scored by the margin the training added to it
// ((2y − 1)·(logit after − logit before), from the fixed, data-independent initialisation: a
// trained-on canary is pushed towards its label), the k₊ highest guessed in and the k₋ lowest out
// (privacy::guessMembership), and ε_LB from the number of correct guesses
// (privacy::oneRunEpsilonLowerBound). Why: the R-run audit needs 2R trainings, this one needs
// one — the price is a weaker bound (at most about ln(r) for r guesses, where 2R runs reach
// ln(R)), and it measures the mechanism on data holding ~m/2 canaries rather than on D alone.
//
// k₊ = k₋ = round(guessFraction · m) are fixed by the options before the training, so the bound
// needs no union over choices. The training set is D followed by the included canaries; r or σ is
// calibrated for its size (as a run on that data would be). Cancellation: dpmix::Cancelled is thrown.
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/privacy/accountant.h"
#include "engine/privacy/one_run_guesses.h"
#include "engine/privacy/randomness_source.h"
#include "engine/train/images.h"
#include "engine/training_audit/training_audit.h"
#include "engine/training_audit/training_canary.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace dpmix::training_audit {

struct OneRunAuditOptions {
    AuditedMechanism mechanism = AuditedMechanism::Dirichlet;
    double epsilon = 1.0;  // the claimed ε (Dirichlet, DP-SGD); not used by SGD
    double delta = 1e-5;
    privacy::Accountant accountant = privacy::Accountant::Rdp;  // calibrates DP-SGD's σ
    long long canaries = 1000;                                  // m
    double guessFraction = 0.1;                                 // k₊ = k₋ = round(guessFraction · m), (0, 0.5]
    TrainingCanaryKind canary = TrainingCanaryKind::LargeNorm;
    double normMultiple = 10.0;  // large-norm canaries: × the mean L2 norm of D's images
    double confidence = 0.95;
    std::uint64_t seed = 0;  // the canaries, the initialisation, and (seeded) the coins and the training
    // Seeded: the inclusion coins and the training's sampling and noise come from `seed` (the audit
    // can be re-run and checked); Secret: from the operating system, never stored.
    privacy::RandomnessMode randomness = privacy::RandomnessMode::Seeded;
    std::string device = "cpu";
    long long steps = 50;                // T
    int expectedBatchSize = 100;         // B: q = B / (|D| + included canaries)
    std::optional<double> learningRate;  // unset: 0.5 (DP-SGD, SGD), 0.1 (Dirichlet)
    double clipNorm = 1.0;               // DP-SGD's C
    double alpha = 3.0;                  // Dirichlet α
    bool keepScores = false;
};

struct OneRunAuditData {
    train::ImageView images;      // D: trained on in every case
    std::span<const int> labels;  // 0/1, one per image
    // Flipped-label canaries: at least m held-out images (never in D) and their labels.
    train::ImageView heldOut;
    std::span<const int> heldOutLabels;
    // Gradient-aligned canaries: the public images whose least-occupied directions they take.
    train::ImageView publicImages;
};

struct OneRunAuditResult {
    double epsilonLB = 0.0;
    long long canaries = 0;                                // m
    long long included = 0;                                // canaries the coins put in the training set
    long long guessesIn = 0, guessesOut = 0, guesses = 0;  // k₊, k₋, r
    long long correct = 0;                                 // v
    // What was audited.
    AuditedMechanism mechanism = AuditedMechanism::Dirichlet;
    TrainingCanaryKind canary = TrainingCanaryKind::LargeNorm;
    double claimedEpsilon = 0.0;  // +inf for SGD
    double delta = 0.0, confidence = 0.95;
    std::uint64_t seed = 0;
    privacy::RandomnessMode randomness = privacy::RandomnessMode::Seeded;
    long long examples = 0, trainingSize = 0, steps = 0;  // |D|, |D| + included, T
    double q = 0.0;                                       // B / trainingSize
    double noise = 0.0;                                   // σ (DP-SGD), r (Dirichlet), 0 (SGD)
    double learningRate = 0.0;
    // keepScores only: per canary, its score (the margin gained), whether it was included, the guess.
    std::vector<double> scores;
    std::vector<std::uint8_t> inclusion;
    std::vector<privacy::MembershipGuess> guessed;
};

/// The m canaries of `options.canary` (one_run_canaries.h): large-norm from D's scale and the
/// seed, flipped-label from data.heldOut, gradient-aligned from data.publicImages.
Result<std::vector<TrainingCanary>> makeOneRunCanaries(const OneRunAuditData& data, const OneRunAuditOptions& options);

/// Errors name the option (canaries, guess-fraction, confidence, delta, steps, batch, epsilon,
/// norm-multiple) or the data (images, labels, held-out images) and train nothing.
Result<OneRunAuditResult> runOneRunAudit(const OneRunAuditData& data, const OneRunAuditOptions& options,
                                         const ProgressCallback& progress = {}, const CancellationToken& cancel = {});

}  // namespace dpmix::training_audit
