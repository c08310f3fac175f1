#pragma once
// The threshold membership attack of the canary audit (docs/ALGORITHMS.md B.4–B.7): a scalar score
// per run, "in" predicted iff the score is on one side of a threshold τ. τ and the side are
// chosen on the SELECT runs to maximise ε_LB there; the error counts are then taken on the
// disjoint EVAL runs, which alone give the reported bound (Nasr et al. 2021; jax_privacy
// Split(0.5)). Choosing τ on the runs it is evaluated on would bias ε_LB upwards.
#include "engine/privacy/audit_bound.h"

#include <vector>

namespace dpmix::audit {

/// Which side of τ predicts "the canary was in".
enum class AttackDirection {
    HigherIsIn,  // in iff score >= τ
    LowerIsIn,   // in iff score <= τ
};

const char* toString(AttackDirection d);

struct ThresholdChoice {
    double threshold = 0.0;
    AttackDirection direction = AttackDirection::HigherIsIn;
    double epsilonLB = 0.0;  // the bound this choice reaches on the runs it was chosen on
};

/// Error counts of the attack (τ, direction) on runs with (`inScores`) and without
/// (`outScores`) the canary.
privacy::AuditCounts countErrors(const std::vector<double>& inScores, const std::vector<double>& outScores,
                                 double threshold, AttackDirection direction);

/// The (τ, direction) maximising privacy::auditEpsilonLowerBound on these runs, over every
/// observed score as τ and both directions (the bound only changes at observed scores). Ties
/// keep the first found: HigherIsIn before LowerIsIn, smaller τ first. Both sets must be
/// non-empty (std::invalid_argument otherwise).
ThresholdChoice selectThreshold(const std::vector<double>& inScores, const std::vector<double>& outScores, double delta,
                                double confidence = 0.95);

}  // namespace dpmix::audit
