#pragma once
// One step of AdaMix-R (docs/ADAMIX.md, "The algorithm"): the private release s_t — the sum of
// the projected, clipped private gradients plus Gaussian noise σ·C_t in the subspace — and the
// mixed update direction built from it, the public gradient sum and the ridge towards θ₀.
#include "engine/adamix/labelled_features.h"
#include "engine/adamix/params.h"
#include "engine/adamix/public_guidance.h"
#include "engine/adamix/softmax_head.h"
#include "engine/privacy/mechanism_random.h"

#include <Eigen/Dense>

namespace dpmix::adamix {

struct PrivateRelease {
    Eigen::VectorXd clippedSum;  // Σ_i ĥ_i over the batch (dimension r_eff, or d without projection)
    Eigen::VectorXd noisySum;    // s_t = clippedSum + σ C_t ξ (equal to clippedSum without noise)
    Eigen::VectorXd normRatios;  // ‖ĥ_i‖² / C_t² ∈ [0, 1] for each example of the batch
};

/// The Gaussian mechanism of one step on `batch` (the private examples of this step). `noiseStd`
/// is σ·C_t; no noise is drawn when `rng` is null or noiseStd is 0. `crossGram`, when given, is
/// Φ̃_batch Φ̃_pubᵀ: the projection then runs through the public gradients where the guidance
/// allows it (projectThroughPublicGradients). The clip applies to the projection as computed, so
/// the route changes rounding only, never the sensitivity.
PrivateRelease releasePrivateSum(const HeadMatrix& theta, const LabelledFeatures& batch, const PublicGuidance& guidance,
                                 double noiseStd, privacy::MechanismRng* rng,
                                 const Eigen::MatrixXd* crossGram = nullptr);

/// ĝ_t = (Σ_j g_j^pub [if the public term is on] + V_r s_t / q) / (n + m [if on]) + λ(θ − θ₀):
/// s_t / q estimates the full private sum under Poisson sampling (q = 1: it is the sum).
HeadMatrix mixedGradient(const HeadMatrix& theta, const HeadMatrix& theta0, const PublicGuidance& guidance,
                         const PrivateRelease& release, const AdamixParams& params);

}  // namespace dpmix::adamix
