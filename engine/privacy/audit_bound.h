#pragma once
// Empirical lower bound on ε from a membership attack's error counts, with Clopper–Pearson
// confidence bounds on its error rates (Jagielski et al. 2020; Nasr et al. 2021).

namespace dpmix::privacy {

struct AuditCounts {
    long long falsePositives = 0;  // "in" predicted on a run without the canary
    long long falseNegatives = 0;  // "out" predicted on a run with the canary
    long long negatives = 0;       // runs without the canary (N0)
    long long positives = 0;       // runs with the canary (N1)
};

struct AuditBound {
    double fprUpper;   // Clopper–Pearson upper bound on the false-positive rate
    double fnrUpper;   // ... on the false-negative rate
    double epsilonLB;  // max(0, log((1−δ−FNR_ub)/FPR_ub), log((1−δ−FPR_ub)/FNR_ub))
};

/// Upper end of the two-sided Clopper–Pearson interval at `confidence` for k errors in n
/// trials: the (1 − (1−confidence)/2) quantile of Beta(k+1, n−k); 1 when k == n.
double clopperPearsonUpper(long long k, long long n, double confidence = 0.95);

/// ε_LB at the given confidence (two-sided intervals per rate, e.g. 0.025 in each upper tail
/// at 95%). A term whose numerator is <= 0 is dropped. Throws std::invalid_argument on
/// counts outside [0, N] or N < 1.
AuditBound auditEpsilonLowerBound(const AuditCounts& counts, double delta, double confidence = 0.95);

}  // namespace dpmix::privacy
