#pragma once
// Rényi DP of the Dirichlet mechanism p̃ ~ Dir(r·s + α·1) on a softmax output s
// (Rao, Hawkins, Benvenuti, Hale 2026, Lemma 9 after Ponnoprat 2023), and its Poisson
// subsampling bound (Zhu & Wang 2019, Theorem 5). Integer orders only: Theorem 10 of the
// paper is stated for them. Add/remove adjacency of one training input; labels are public.

namespace dpmix::privacy {

/// One application: ε̂(λ) = λ r² ψ′(α − (λ−1) r) for integer λ with 2 <= λ < 1 + α/r,
/// where ψ′ is the trigamma function. +inf outside the admissible range.
double dirichletRdp(double alpha, double r, int order);

/// Poisson subsampling at rate q, integer λ >= 2 (Zhu & Wang 2019, Thm 5):
///   ε_sub(λ) = log[ (1−q)^{λ−1}(λq − q + 1) + C(λ,2) q² (1−q)^{λ−2} e^{ε̂(2)}
///                 + 3 Σ_{j=3}^{λ} C(λ,j) (1−q)^{λ−j} q^j e^{(j−1) ε̂(j)} ] / (λ − 1),
/// evaluated in log space. +inf where some ε̂(j), j <= λ, is not admissible.
double subsampledDirichletRdp(double alpha, double r, double q, int order);

/// Largest integer order admissible for (α, r): the largest λ with λ < 1 + α/r, capped.
int maxDirichletOrder(double alpha, double r, int cap = 256);

}  // namespace dpmix::privacy
