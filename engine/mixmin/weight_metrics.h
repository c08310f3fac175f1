#pragma once
// How close a mixture is to the non-private reference λ* (docs/ALGORITHMS.md A.11 "weight recovery").
#include <Eigen/Dense>

namespace dpmix::mixmin {

/// ⟨a, b⟩ / (‖a‖ ‖b‖); 0 when either vector is zero. Sizes must match.
double cosineSimilarity(const Eigen::VectorXd& a, const Eigen::VectorXd& b);

/// Σ |a_i − b_i|. Sizes must match.
double l1Distance(const Eigen::VectorXd& a, const Eigen::VectorXd& b);

struct WeightQuality {
    double cosine = 0.0;         // cos(λ, λ*)
    double l1 = 0.0;             // ‖λ − λ*‖₁
    double uniformCosine = 0.0;  // cos(1/k, λ*): the baseline a learned λ should beat
    double uniformL1 = 0.0;      // ‖1/k − λ*‖₁
};

WeightQuality compareWithReference(const Eigen::VectorXd& lambda, const Eigen::VectorXd& reference);

}  // namespace dpmix::mixmin
