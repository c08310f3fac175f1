#pragma once
// The private side of a step: per-example gradients projected onto the public subspace without
// building the n × d gradient matrix, clipped to C_t (docs/ADAMIX.md, "Projection without the
// gradient matrix").
#include "engine/adamix/softmax_head.h"

#include <Eigen/Dense>

namespace dpmix::adamix {

/// H = G V where row i of G is kron(R_i, φ̃_i) and V = `basis` (d × r), computed as
/// H(i, v) = R_iᵀ M_v φ̃_i with M_v the K × (p+1) reshaping of column v — one product
/// Φ̃ [M_1ᵀ … M_rᵀ] per block of rows, O(n·r·K·(p+1)) work and O(block·r·K) memory.
Eigen::MatrixXd projectPerExampleGradients(const Eigen::MatrixXd& residuals, const Eigen::MatrixXd& augmented,
                                           const Eigen::MatrixXd& basis);

/// The same H when the basis is a combination of the public per-example gradients, V = G_pubᵀ A
/// (A = `coefficients`, m × r): H(i, v) = Σ_j (R_i·R_j^pub)(φ̃_i·φ̃_j^pub) A(j, v), because
/// ⟨kron(a, b), kron(c, e)⟩ = (a·c)(b·e). `crossGram` = Φ̃ Φ̃_pubᵀ (n × m) does not change between
/// steps, so a step costs O(n·m·(K + r)) instead of O(n·r·K·(p+1)).
Eigen::MatrixXd projectThroughPublicGradients(const Eigen::MatrixXd& residuals, const Eigen::MatrixXd& crossGram,
                                              const Eigen::MatrixXd& publicResiduals,
                                              const Eigen::MatrixXd& coefficients);

/// Whether a run projects through the public gradients (with an n × m cross-Gram kept for the whole
/// run): when that costs fewer operations per step than the basis route, m·(K + 1 + r) < r·K·(p+1),
/// and the cross-Gram fits in 256 MiB.
bool projectsThroughPublicGradients(Eigen::Index privateExamples, Eigen::Index publicExamples, Eigen::Index classes,
                                    Eigen::Index augmentedDim, Eigen::Index rank);

/// ‖g_i‖ = ‖R_i‖·‖φ̃_i‖ for every row (the unprojected norms).
Eigen::VectorXd perExampleGradientNorms(const Eigen::MatrixXd& residuals, const Eigen::MatrixXd& augmented);

/// min(1, clip / norm) per entry (1 for a zero norm).
Eigen::VectorXd clipFactors(const Eigen::VectorXd& norms, double clip);

}  // namespace dpmix::adamix
