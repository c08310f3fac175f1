#include "engine/audit/threshold_attack.h"

#include <algorithm>
#include <stdexcept>

namespace dpmix::audit {
namespace {

// Counts against sorted score lists, so each candidate τ costs two binary searches.
privacy::AuditCounts countSorted(const std::vector<double>& in, const std::vector<double>& out, double t,
                                 AttackDirection d) {
    privacy::AuditCounts c;
    c.positives = static_cast<long long>(in.size());
    c.negatives = static_cast<long long>(out.size());
    if (d == AttackDirection::HigherIsIn) {
        c.falsePositives = out.end() - std::lower_bound(out.begin(), out.end(), t);  // out with s >= τ
        c.falseNegatives = std::lower_bound(in.begin(), in.end(), t) - in.begin();   // in with s < τ
    } else {
        c.falsePositives = std::upper_bound(out.begin(), out.end(), t) - out.begin();  // out with s <= τ
        c.falseNegatives = in.end() - std::upper_bound(in.begin(), in.end(), t);       // in with s > τ
    }
    return c;
}

}  // namespace

const char* toString(AttackDirection d) { return d == AttackDirection::HigherIsIn ? "higher-is-in" : "lower-is-in"; }

privacy::AuditCounts countErrors(const std::vector<double>& inScores, const std::vector<double>& outScores,
                                 double threshold, AttackDirection direction) {
    std::vector<double> in = inScores, out = outScores;
    std::sort(in.begin(), in.end());
    std::sort(out.begin(), out.end());
    return countSorted(in, out, threshold, direction);
}

ThresholdChoice selectThreshold(const std::vector<double>& inScores, const std::vector<double>& outScores, double delta,
                                double confidence) {
    if (inScores.empty() || outScores.empty())
        throw std::invalid_argument("selectThreshold: both the in and the out score sets must be non-empty");
    std::vector<double> in = inScores, out = outScores;
    std::sort(in.begin(), in.end());
    std::sort(out.begin(), out.end());
    std::vector<double> candidates = in;
    candidates.insert(candidates.end(), out.begin(), out.end());
    std::sort(candidates.begin(), candidates.end());
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());

    ThresholdChoice best;
    best.threshold = candidates.front();
    best.epsilonLB = -1.0;
    for (AttackDirection d : {AttackDirection::HigherIsIn, AttackDirection::LowerIsIn})
        for (double t : candidates) {
            const double e = privacy::auditEpsilonLowerBound(countSorted(in, out, t, d), delta, confidence).epsilonLB;
            if (e > best.epsilonLB) best = {t, d, e};
        }
    return best;
}

}  // namespace dpmix::audit
