#pragma once
// The canaries of the training audit (docs/AUDIT.md, "Auditing fine-tuning mechanisms"): one
// labelled image (x, y) that the "in" world adds to the training set. Neighbouring data sets
// differ by adding or removing that one pair — the relation under which every entry of a dpmix
// ledger, the Dirichlet mechanism's included, is accounted (Poisson subsampling amplification
// is stated for it). Labels are 0/1: the audit trains a binary task.
#include "engine/core/result.h"
#include "engine/train/images.h"

#include <span>
#include <string>
#include <vector>

namespace dpmix::training_audit {

enum class TrainingCanaryKind { FlippedLabel, LargeNorm, GradientAligned };

const char* toString(TrainingCanaryKind kind);  // "flipped-label", "large-norm", "gradient-aligned"
bool parseTrainingCanaryKind(const std::string& text, TrainingCanaryKind& out);

struct TrainingCanary {
    TrainingCanaryKind kind = TrainingCanaryKind::FlippedLabel;
    std::vector<float> pixels;  // one image, C×H×W (any finite values: the mechanism must hold for every input)
    int label = 0;              // 0 or 1
    std::string description;    // how it was made, for the stored record
};

/// A real held-out image (never in the audited training set) with its label flipped: in
/// distribution, but contradicting its neighbours, so its loss drops mainly when it was trained on.
TrainingCanary flippedLabelCanary(std::span<const float> image, int trueLabel);

/// A fixed out-of-distribution pattern (a ±1 checkerboard) scaled to `normMultiple` times the
/// mean L2 norm of `reference`'s images. Nothing in the Dirichlet mechanism bounds its gradient;
/// DP-SGD clips it to C like any example.
Result<TrainingCanary> largeNormCanary(const train::ImageView& reference, double normMultiple, int label);

/// The direction the public images occupy least — the eigenvector of their uncentred
/// second-moment matrix with the smallest eigenvalue (on at most `maxImages` of them) — scaled
/// to their mean norm. A linear model's per-example gradient is (p − y)·x, so the other
/// examples' gradients carry the least energy along it and the canary's own stands out (the
/// "unused direction" canary of Nasr et al. 2021). Made from public data only.
Result<TrainingCanary> gradientAlignedCanary(const train::ImageView& publicImages, int label,
                                             long long maxImages = 3000);

}  // namespace dpmix::training_audit
