#pragma once
// The lower bound on ε of a one-run audit (Steinke, Nasr & Jagielski, "Privacy Auditing with One
// (1) Training Run", NeurIPS 2023, Theorem 3.1 and its p-value procedure; docs/AUDIT.md,
// "One-run audits"). Why: the canary audits need R trainings per world; this bound needs one.
//
// The statement implemented. Let M be (ε, δ)-DP with respect to adding or removing any one of m
// canaries. Each canary is included independently with probability 1/2 (S ∈ {−1, +1}^m uniform),
// M runs once on the data with the included canaries, and the auditor's guesses
// T ∈ {−1, 0, +1}^m (in, abstain, out) are a post-processing of M's output alone (never of S),
// with at most r non-zero guesses; k₊ and k₋, and so r = k₊ + k₋, are fixed before the output is
// seen. W = the number of correct guesses. Then for every v
//     P[W ≥ v] ≤ f(v) + 2mδ · max_{1 ≤ i ≤ v} (f(v − i) − f(v)) / i,
//     f(k) = P[Binomial(r, p) ≥ k],  p = e^ε / (1 + e^ε),
// (for i > v the numerator is 1 − f(v), so the maximum is attained at some i ≤ v). With δ = 0 this
// is the pure-ε case: W is dominated by Binomial(r, p), ε-randomised response's accuracy.
// ε_LB is the largest ε whose hypothesis "M is (ε, δ)-DP" the observed v rejects at level
// β = 1 − confidence: sup{ε ≥ 0 : bound(ε) < β}. If an auditor picks (k₊, k₋) from a fixed list
// of L choices after seeing the output, each test runs at β / L (the union bound; `comparisons`).
#include "engine/core/result.h"

namespace dpmix::privacy {

struct OneRunCounts {
    long long canaries = 0;  // m
    long long guesses = 0;   // r = k₊ + k₋ (the rest abstain)
    long long correct = 0;   // v
};

/// The right-hand side above at ε (clamped to 1), written as the maximum over i of
/// (1 − c/i)⁺·f(v) + (c/i)·f(v − i) and f(v), c = 2mδ: for c ≤ 1 this is the theorem's value,
/// for c > 1 it is larger (still a valid bound) and, like the c ≤ 1 case, non-decreasing in ε —
/// every term is a non-negative mix of binomial tails, which grow with p. That monotonicity is
/// what makes the bisection below find sup{ε : bound(ε) < β} exactly.
/// Throws std::invalid_argument on counts oneRunEpsilonLowerBound would refuse, ε < 0 or NaN.
double oneRunTailBound(const OneRunCounts& counts, double epsilon, double delta);

/// ε_LB at `confidence` (β = 1 − confidence), divided among `comparisons` tests by the union
/// bound. 0 when even ε = 0 is not rejected (v = 0, r = 0, or too few correct guesses). Errors
/// name the argument (canaries, guesses, correct, delta, confidence, comparisons) and its value.
Result<double> oneRunEpsilonLowerBound(const OneRunCounts& counts, double delta, double confidence = 0.95,
                                       long long comparisons = 1);

}  // namespace dpmix::privacy
