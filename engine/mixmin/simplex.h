#pragma once
// Small helpers on the probability simplex Δ_k shared by the solvers.
#include <Eigen/Dense>

#include <random>

namespace dpmix::mixmin {

/// λ = (1/k, ..., 1/k), the starting point of every solver (docs/ALGORITHMS.md A.3 step 2).
Eigen::VectorXd uniformWeights(Eigen::Index k);

/// One entropic mirror-descent (exponentiated-gradient) step in log space:
///   log λ ← log λ − η g, then renormalise (the KL projection onto Δ_k).
/// Working with log λ keeps tiny weights representable (no underflow to an absorbing 0).
void mirrorStep(Eigen::VectorXd& logLambda, const Eigen::VectorXd& gradient, double stepSize);

/// λ = softmax(log λ).
Eigen::VectorXd weightsFromLog(const Eigen::VectorXd& logLambda);

/// A draw from Dirichlet(1, ..., 1) (uniform on Δ_k): normalised Exp(1) variables.
Eigen::VectorXd sampleUniformSimplex(Eigen::Index k, std::mt19937_64& rng);

}  // namespace dpmix::mixmin
