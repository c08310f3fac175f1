#pragma once
// The m canaries of a one-run audit (docs/AUDIT.md, "One-run audits"): the kinds of the canary
// audit (training_canary.h), m distinct ones. They are made before any training from public
// material only — a seed, D's mean image norm (the same scale as the R-run audit's large-norm
// canary), held-out or public images — so the guesses about them stay a post-processing of the
// trained model.
//
// Why orthogonal directions: the audit's head is linear, so a canary's logit moves with every
// included canary whose direction overlaps its own. m random directions in d pixels overlap by
// about 1/√d each, and ~m/2 of them are included: the cross-talk would drown the canary's own
// pull when m is comparable with d. Within each block of d canaries the directions are exactly
// orthogonal; only canaries of different blocks overlap.
#include "engine/core/result.h"
#include "engine/train/images.h"
#include "engine/training_audit/training_canary.h"

#include <cstdint>
#include <span>
#include <vector>

namespace dpmix::training_audit {

/// `count` large-norm canaries: random orthonormal directions of the pixel space (a QR of a
/// seeded ±1 matrix per block of d), each scaled to `normMultiple` × the mean L2 norm of
/// `reference`'s images, with a label drawn by a fair coin (so no class gains a pull of its own).
Result<std::vector<TrainingCanary>> largeNormCanaries(const train::ImageView& reference, long long count,
                                                      double normMultiple, std::uint64_t seed);

/// The first `count` held-out images (never in D) with their labels flipped.
Result<std::vector<TrainingCanary>> flippedLabelCanaries(const train::ImageView& heldOut, std::span<const int> labels,
                                                         long long count);

/// The `count` directions the public images occupy least (the eigenvectors of their uncentred
/// second moment with the smallest eigenvalues; count ≤ d), scaled to their mean norm, each with a
/// fair-coin label from `seed`.
Result<std::vector<TrainingCanary>> gradientAlignedCanaries(const train::ImageView& publicImages, long long count,
                                                            std::uint64_t seed, long long maxImages = 3000);

}  // namespace dpmix::training_audit
