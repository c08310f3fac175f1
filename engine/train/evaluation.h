#pragma once
// Evaluation metrics (docs/TRAINING.md, "Evaluation"). Plain C++, no torch.
#include "engine/core/mean_std.h"
#include "engine/core/result.h"

#include <span>
#include <string>
#include <vector>

namespace dpmix::train {

/// ROC AUC of `scores` for binary `labels` (0/1) by the Mann–Whitney statistic: the share of
/// (positive, negative) pairs where the positive scores higher, ties counted ½. O(n log n)
/// via mid-ranks. Error when the sizes differ, a label is not 0/1, a score is NaN, or one of
/// the two classes is absent (AUC undefined).
Result<double> rocAuc(std::span<const double> scores, std::span<const int> labels);

struct MacroAuc {
    double macro = 0.0;            // mean over the classes whose AUC is defined
    std::vector<double> perClass;  // NaN where a class has only positives or only negatives
    int classesUsed = 0;
};

/// Per-class AUC and their mean for n × c row-major scores and 0/1 labels. Error on size
/// mismatch or when no class has both positives and negatives.
Result<MacroAuc> macroAuc(std::span<const double> scores, std::span<const int> labels, int classes);

/// Logits that cannot rank anything (docs/RESULTS.md, "The collapsed pretraining"): why, or empty
/// when they can (and for none). Collapsed: a logit is not finite; the logits are constant (their
/// standard deviation at most kConstantLogitStd); or every probability σ(z) is exactly 0 or 1 in
/// float, so scores on probabilities would all tie.
inline constexpr double kConstantLogitStd = 1e-3;
std::string collapsedOutputs(std::span<const float> logits);
/// How collapsedOutputs' answer begins when a logit is not finite (nothing to fine-tune from).
inline constexpr const char* kNonFiniteOutputs = "non-finite outputs";

/// Across-seed summary of a metric (engine/core/mean_std.h). Error for an empty list or a non-finite value.
Result<MeanStd> meanAndStd(std::span<const double> values);

/// exp(mean per-token negative log-likelihood, in nats). Error for no tokens or a value that
/// is negative or not finite.
Result<double> perplexity(std::span<const double> tokenNll);

}  // namespace dpmix::train
