#pragma once
// Canary audit of a fine-tuning mechanism (docs/AUDIT.md, "Auditing fine-tuning mechanisms"):
// R trainings per world of a logistic-regression head on a small binary task — "out" on the
// training set D, "in" on D plus the canary — by the product's own fine-tuning code
// (train::finetuneDirichlet, train::finetuneDpSgd), each with its own seeded sampling and noise
// from seeds::derive(seed, world, run). Every run starts from one fixed initialisation (data-
// independent, so the guarantee must hold for it; a fixed start only makes the attack stronger).
// The score is the released model's loss on the canary; τ and the side are chosen on half the
// runs and ε_LB (Clopper–Pearson, 95%) taken on the rest (audit::judgeAttack), as the mixture
// audit does.
//
// Mechanisms: the Dirichlet mechanism at its claimed ε (r calibrated once, as a run would); DP-SGD
// at the same ε (σ calibrated once; the control that must give ε_LB <= ε); and non-private SGD
// (DP-SGD's code with σ = 0 and no effective clipping; the control that must find leakage, or
// the canary is too weak).
//
// Trainings run on `threads` std::threads: with more than one, set LibTorch's intra-op threads
// to 1 first (train::setTorchThreads), as `dpmix audit` does. Results do not depend on the
// thread count. Cancellation: dpmix::Cancelled is thrown.
#include "engine/audit/threshold_attack.h"
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/privacy/accountant.h"
#include "engine/train/images.h"
#include "engine/training_audit/training_canary.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace dpmix::training_audit {

enum class AuditedMechanism { Dirichlet, DpSgd, Sgd };

const char* toString(AuditedMechanism m);  // "dirichlet", "dp-sgd", "sgd"
bool parseAuditedMechanism(const std::string& text, AuditedMechanism& out);

struct TrainingAuditOptions {
    AuditedMechanism mechanism = AuditedMechanism::Dirichlet;
    double epsilon = 1.0;  // the claimed ε (Dirichlet, DP-SGD); not used by SGD
    double delta = 1e-5;
    privacy::Accountant accountant = privacy::Accountant::Rdp;  // calibrates DP-SGD's σ
    long long runsPerWorld = 1000;                              // R
    double selectFraction = 0.5;
    double confidence = 0.95;
    std::uint64_t seed = 0;
    int threads = 0;                     // 0 = all cores
    std::string device = "cpu";          // where every audited training runs (train::Model::create's names)
    long long steps = 50;                // T
    int expectedBatchSize = 100;         // B: q = B / |D|
    std::optional<double> learningRate;  // unset: 0.5 (DP-SGD, SGD), 0.1 (Dirichlet, the paper's)
    double clipNorm = 1.0;               // DP-SGD's C
    double alpha = 3.0;                  // Dirichlet α
    bool keepScores = false;
};

struct TrainingAuditData {
    train::ImageView images;      // D, the "out" world's training set
    std::span<const int> labels;  // 0/1, one per image
    TrainingCanary canary;        // added in the "in" world
};

struct TrainingAuditResult {
    double epsilonLB = 0.0;  // from the EVAL runs
    double fprUpper = 1.0, fnrUpper = 1.0;
    long long falsePositives = 0, falseNegatives = 0, evalOut = 0, evalIn = 0;
    double fpr = 0.0, fnr = 0.0;
    double threshold = 0.0;
    audit::AttackDirection direction = audit::AttackDirection::LowerIsIn;
    double selectEpsilonLB = 0.0;  // on the SELECT runs (optimistic; reference only)
    // What was audited.
    AuditedMechanism mechanism = AuditedMechanism::Dirichlet;
    TrainingCanaryKind canary = TrainingCanaryKind::FlippedLabel;
    double claimedEpsilon = 0.0;  // +inf for SGD
    double delta = 0.0, confidence = 0.95;
    std::uint64_t seed = 0;
    long long runsPerWorld = 0, examples = 0, steps = 0;
    double q = 0.0;      // B / |D|
    double noise = 0.0;  // σ (DP-SGD), r (Dirichlet), 0 (SGD)
    double learningRate = 0.0;
    // Spread of the score (loss on the canary) in each world over all R runs.
    double scoreMeanIn = 0.0, scoreStdIn = 0.0, scoreMeanOut = 0.0, scoreStdOut = 0.0;
    std::vector<double> scoresIn, scoresOut;  // keepScores only
};

/// Errors name the option (runs, select-fraction, confidence, steps, batch, epsilon, threads) or the
/// data (images, labels, canary) and change nothing.
Result<TrainingAuditResult> runTrainingAudit(const TrainingAuditData& data, const TrainingAuditOptions& options,
                                             const ProgressCallback& progress = {},
                                             const CancellationToken& cancel = {});

}  // namespace dpmix::training_audit
