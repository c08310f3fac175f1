#pragma once
// The MixMin objective F(λ) = mean_j ℓ_j(λ) over split A, for the proxy predictions of k public
// sources, and its closed-form per-example gradients (no autograd): the convex reduction of
// docs/ALGORITHMS.md A.1–A.2. λ is a point of the simplex Δ_k; the formulas are also evaluated just
// off the simplex (finite-difference checks), where λ must stay > 0.
//
// Build an objective with one of the make...Objective functions: they validate the proxy data
// and return an Error naming the field, the offending entry and what is expected.
#include "engine/core/result.h"

#include <Eigen/Dense>

#include <span>
#include <vector>

namespace dpmix::mixmin {

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Index = Eigen::Index;

/// Mixture probabilities are clamped to [κ, 1 − κ] before the log (docs/ALGORITHMS.md A.2(a)3).
inline constexpr double kProbabilityFloor = 1e-6;

enum class ObjectiveKind {
    BinaryCrossEntropy,   // binary task: BCE(Σ λ_i p_i(x), y), p_i = P(y = 1 | x) of proxy i
    TrueClassLikelihood,  // multi-class CE: −log Σ λ_i p_i(y | x), from the proxies' true-class probabilities
    SequenceLikelihood,   // LM, sequence level: −(1/L) log Σ λ_i exp(LL_i), LL_i = proxy i's log-likelihood
    TokenLikelihood,      // LM, per token: −(1/L) Σ_t log Σ λ_i p_i(w_t | w_<t)
};

const char* toString(ObjectiveKind kind);

class MixtureObjective {
public:
    ObjectiveKind kind() const { return kind_; }
    Index examples() const { return examples_; }  // n: the privacy units of Algorithm 1
    Index sources() const { return sources_; }    // k

    /// ℓ_j(λ) of one example.
    double exampleLoss(const Eigen::VectorXd& lambda, Index j) const;

    /// Row r of `out` becomes ∇_λ ℓ_{idx[r]}(λ); `out` is resized to idx.size() × k.
    /// Indices must be in [0, n) (the samplers guarantee it; not re-checked in the hot loop).
    /// Vectorised over the batch: this is the inner loop of DP-MixMin.
    void exampleGradients(const Eigen::VectorXd& lambda, std::span<const Index> idx, RowMatrix& out) const;

    /// F(λ) = Σ_j w_j ℓ_j(λ); an empty `weights` means w_j = 1/n (the plain mean). Throws
    /// std::invalid_argument if λ does not have k entries or weights not n.
    double loss(const Eigen::VectorXd& lambda, const Eigen::VectorXd& weights = {}) const;

    /// ∇F(λ) with the same weighting.
    Eigen::VectorXd gradient(const Eigen::VectorXd& lambda, const Eigen::VectorXd& weights = {}) const;

private:
    friend Result<MixtureObjective> makeBinaryObjective(const Eigen::MatrixXd&, const std::vector<int>&);
    friend Result<MixtureObjective> makeTrueClassObjective(const Eigen::MatrixXd&);
    friend Result<MixtureObjective> makeSequenceObjective(const Eigen::MatrixXd&, const std::vector<long long>&);
    friend Result<MixtureObjective> makeTokenObjective(const Eigen::MatrixXd&, const std::vector<Index>&);
    MixtureObjective() = default;

    ObjectiveKind kind_ = ObjectiveKind::BinaryCrossEntropy;
    Index examples_ = 0;
    Index sources_ = 0;
    RowMatrix values_;               // BCE: P(y=1); true class: p(y); sequence: LL; token: p(token) (rows: tokens)
    Eigen::VectorXd labels_;         // BCE only: y ∈ {0, 1}
    Eigen::VectorXd inverseLength_;  // sequence / token: 1 / L_j
    std::vector<Index> offsets_;     // token: example j owns token rows [offsets_[j], offsets_[j+1])
};

/// Binary task: P is n × k with P(j, i) = proxy i's probability that example j is positive
/// (values in [0, 1]); labels are 0 or 1. Gradient: the BCE form of A.2(a)4.
Result<MixtureObjective> makeBinaryObjective(const Eigen::MatrixXd& probabilities, const std::vector<int>& labels);

/// Multi-class task (or a binary task in MixMin's multi-class form): Q(j, i) = proxy i's
/// probability of example j's true class, in [0, 1]. Loss −log max(λ·Q_j, κ).
Result<MixtureObjective> makeTrueClassObjective(const Eigen::MatrixXd& trueClassProbabilities);

/// Q for a multi-class task from the k proxies' class-probability matrices (each n × C, rows
/// summing to 1 within 1e-3) and the labels (0 ≤ y < C).
Result<Eigen::MatrixXd> trueClassProbabilities(const std::vector<Eigen::MatrixXd>& sourceProbabilities,
                                               const std::vector<int>& labels);

/// Q of a binary task in the multi-class form: Q(j, i) = P(j, i) if y_j = 1, else 1 − P(j, i).
Result<Eigen::MatrixXd> binaryTrueClassProbabilities(const Eigen::MatrixXd& probabilities,
                                                     const std::vector<int>& labels);

/// LM, sequence level (the form we use, docs/METHODS.md F.3): LL(j, i) = Σ_t log p_i(w_t | w_<t)
/// of sequence j under proxy i (finite, ≤ 0); tokenCounts[j] = L_j ≥ 1.
Result<MixtureObjective> makeSequenceObjective(const Eigen::MatrixXd& logLikelihoods,
                                               const std::vector<long long>& tokenCounts);

/// LM, per token: tokenProbabilities(t, i) = p_i(w_t | w_<t) ∈ [0, 1] for every token t of split A;
/// sequence j owns rows [offsets[j], offsets[j+1]) (offsets start at 0, strictly increase and end
/// at the row count, so every sequence has at least one token).
Result<MixtureObjective> makeTokenObjective(const Eigen::MatrixXd& tokenProbabilities,
                                            const std::vector<Index>& offsets);

}  // namespace dpmix::mixmin
