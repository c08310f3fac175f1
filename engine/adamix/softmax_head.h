#pragma once
// The convex model AdaMix-R trains: a softmax (multinomial logistic) head on frozen features,
// θ = [W | b] ∈ R^{K×(p+1)}. Its per-example gradients have the closed form R_i ⊗ φ̃_i with
// R = softmax(Φ̃ θᵀ) − Y, so no autograd is needed (docs/ADAMIX.md, "The model").
//
// θ is stored row-major, so its flat form vec(θ) (dimension d = K(p+1)) has class k's row at
// [k(p+1), (k+1)(p+1)): the flat per-example gradient is the Kronecker product kron(R_i, φ̃_i).
#include "engine/adamix/labelled_features.h"

#include <Eigen/Dense>

namespace dpmix::adamix {

using HeadMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;  // K × (p+1)
using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

inline Eigen::Map<const Eigen::VectorXd> flat(const HeadMatrix& theta) { return {theta.data(), theta.size()}; }
inline Eigen::Map<Eigen::VectorXd> flat(HeadMatrix& theta) { return {theta.data(), theta.size()}; }
/// The K × (p+1) matrix whose row-major flat form is `v` (v.size() = K(p+1)).
HeadMatrix unflatten(const Eigen::VectorXd& v, int classes);

/// R = softmax(Φ̃ θᵀ) − onehot(y): n × K, row i is ∂ℓ_i/∂logits.
Eigen::MatrixXd residuals(const HeadMatrix& theta, const LabelledFeatures& data);

/// The explicit n × d matrix of per-example gradients, row i = kron(R_i, φ̃_i). For small sets
/// (the public few-shot set, tests); private gradients are never built this way.
RowMatrix perExampleGradients(const Eigen::MatrixXd& residuals, const Eigen::MatrixXd& augmented);

/// Σ_i w_i R_i ⊗ φ̃_i = Rᵀ diag(w) Φ̃ (all weights 1 when `weights` is empty), as a K × (p+1) matrix.
HeadMatrix weightedGradientSum(const Eigen::MatrixXd& residuals, const Eigen::MatrixXd& augmented,
                               const Eigen::VectorXd& weights = {});

/// Mean softmax cross-entropy and accuracy (argmax of the logits) of θ on `data`.
double meanLoss(const HeadMatrix& theta, const LabelledFeatures& data);
double accuracy(const HeadMatrix& theta, const LabelledFeatures& data);

struct HeadFit {
    HeadMatrix theta;
    long long iterations = 0;
    double gradientNorm = 0.0;  // ‖∇‖ of the regularised objective at θ
    bool converged = false;
};

/// Non-private fit: argmin_θ (1/n) Σ ℓ_i(θ) + (ridge/2)‖θ‖² by full-batch accelerated gradient
/// descent (Nesterov) from 0 with step 1/(1 + ridge) (the loss's smoothness is at most
/// ½ max‖φ̃‖² = 1 on normalised features), until ‖∇‖ <= tolerance or maxIterations. AdaMix-R's public start θ₀ (ridge =
/// λ₀) and the paragon (all data) both use it.
HeadFit fitHead(const LabelledFeatures& data, double ridge, long long maxIterations = 20000, double tolerance = 1e-8);

}  // namespace dpmix::adamix
