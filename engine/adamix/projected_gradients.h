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

/// ‖g_i‖ = ‖R_i‖·‖φ̃_i‖ for every row (the unprojected norms).
Eigen::VectorXd perExampleGradientNorms(const Eigen::MatrixXd& residuals, const Eigen::MatrixXd& augmented);

/// min(1, clip / norm) per entry (1 for a zero norm).
Eigen::VectorXd clipFactors(const Eigen::VectorXd& norms, double clip);

}  // namespace dpmix::adamix
