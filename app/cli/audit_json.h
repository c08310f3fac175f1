#pragma once
// The attack's outcome as `dpmix audit --json` prints it, for the mixture audit and the training
// audit alike (their results name these fields the same way).
#include "engine/audit/threshold_attack.h"

#include <nlohmann/json.hpp>

namespace dpmix::cli {

template <typename AuditResult>
void putAttackOutcome(nlohmann::ordered_json& out, const AuditResult& r) {
    out["epsilon_lb"] = r.epsilonLB;
    out["fpr"] = r.fpr;
    out["fnr"] = r.fnr;
    out["fpr_upper"] = r.fprUpper;
    out["fnr_upper"] = r.fnrUpper;
    out["false_positives"] = r.falsePositives;
    out["false_negatives"] = r.falseNegatives;
    out["eval_out"] = r.evalOut;
    out["eval_in"] = r.evalIn;
    out["threshold"] = r.threshold;
    out["direction"] = audit::toString(r.direction);
    out["runs"] = r.runsPerWorld;
}

}  // namespace dpmix::cli
