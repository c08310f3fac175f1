#pragma once
// From the attack scores of R runs per world to an empirical ε lower bound, the way every audit
// of dpmix judges them (docs/AUDIT.md, "Protocol as implemented"): runs [0, S) of each world,
// S = round(R·selectFraction), choose τ and the direction (selectThreshold); runs [S, R) alone
// give the error counts and the Clopper–Pearson ε_LB. Shared by the mixture audit
// (canary_audit.h) and the training audit (engine/training_audit).
#include "engine/audit/threshold_attack.h"
#include "engine/privacy/audit_bound.h"

#include <vector>

namespace dpmix::audit {

struct AttackJudgement {
    ThresholdChoice choice;                       // τ and the side, from the SELECT runs
    privacy::AuditCounts counts;                  // errors on the EVAL runs
    privacy::AuditBound bound;                    // from `counts`
    std::vector<long long> selectRuns, evalRuns;  // run indices within each world
};

/// `inScores` and `outScores` hold one score per run, the same R >= 2 runs in each world;
/// selectFraction in (0, 1) (S is clamped to [1, R−1]).
AttackJudgement judgeAttack(const std::vector<double>& inScores, const std::vector<double>& outScores,
                            double selectFraction, double delta, double confidence);

}  // namespace dpmix::audit
