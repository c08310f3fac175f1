#pragma once
// What AdaMix-R takes from the public set at the current iterate θ_t: the subspace the private
// gradients are projected onto, the clip norm C_t, and the public gradient sum. It is a function
// of θ_t and the public set only — never of private data — which is why it costs no privacy
// (docs/ADAMIX.md, "Why a step is a Gaussian mechanism").
#include "engine/adamix/labelled_features.h"
#include "engine/adamix/params.h"
#include "engine/adamix/softmax_head.h"

#include <Eigen/Dense>

#include <vector>

namespace dpmix::adamix {

struct PublicGuidance {
    bool identity = false;                 // no projection: the basis is I_d (not stored)
    Eigen::MatrixXd basis;                 // d × r_eff orthonormal columns, V_r (empty when identity)
    double clip = 0.0;                     // C_t
    HeadMatrix publicGradientSum;          // Σ_j g_j^pub (K × (p+1); zero when the set is empty)
    Eigen::VectorXd projectedPublicNorms;  // ‖V_rᵀ g_j‖ for each public j (the clip's sample)
    // V_r as a combination of the public per-example gradients, V_r = G_pubᵀ A with
    // A = G_pub V_r Σ_r⁻² (m × r_eff), and the public residuals R_pub (m × K): with them the private
    // projection runs through feature inner products (projectThroughPublicGradients). Both empty
    // when a kept singular value is below 1e-6 σ_1, where A would lose accuracy.
    Eigen::MatrixXd basisCoefficients;
    Eigen::MatrixXd publicResiduals;

    Eigen::Index dimension() const { return identity ? -1 : basis.cols(); }
};

struct PublicSubspace {
    Eigen::MatrixXd basis;           // d × r_eff: the top right singular vectors
    Eigen::VectorXd singularValues;  // r_eff, descending
};

/// The number of directions a subspace of the requested `rank` keeps for m public gradients of
/// dimension d: min(rank, m, d).
Eigen::Index subspaceRank(int rank, Eigen::Index publicExamples, Eigen::Index dimension);

/// The top-`rank` right singular vectors of `gradients` (m × d) and their singular values, by
/// Eigen's BDCSVD; subspaceRank(rank, m, d) of them.
PublicSubspace topPublicSubspace(const RowMatrix& gradients, int rank);
Eigen::MatrixXd topRightSingularVectors(const RowMatrix& gradients, int rank);

/// The τ-quantile of `values` with linear interpolation between order statistics (type 7:
/// position τ(m−1) in the sorted sample). `values` must not be empty.
double quantile(std::vector<double> values, double tau);

/// The guidance of one step at θ for the public set, by `params` (projection, clip rule, τ, c_min,
/// rank, fixed C).
PublicGuidance publicGuidance(const HeadMatrix& theta, const LabelledFeatures& publicSet, const AdamixParams& params);

}  // namespace dpmix::adamix
