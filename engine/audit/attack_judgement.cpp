#include "engine/audit/attack_judgement.h"

#include <algorithm>
#include <cmath>

namespace dpmix::audit {
namespace {

std::vector<double> gather(const std::vector<double>& v, const std::vector<long long>& idx) {
    std::vector<double> out;
    out.reserve(idx.size());
    for (long long i : idx) out.push_back(v[static_cast<std::size_t>(i)]);
    return out;
}

}  // namespace

AttackJudgement judgeAttack(const std::vector<double>& inScores, const std::vector<double>& outScores,
                            double selectFraction, double delta, double confidence) {
    AttackJudgement j;
    const long long R = static_cast<long long>(std::min(inScores.size(), outScores.size()));
    const long long S = std::clamp<long long>(std::llround(static_cast<double>(R) * selectFraction), 1, R - 1);
    for (long long i = 0; i < R; ++i) (i < S ? j.selectRuns : j.evalRuns).push_back(i);
    j.choice = selectThreshold(gather(inScores, j.selectRuns), gather(outScores, j.selectRuns), delta, confidence);
    j.counts = countErrors(gather(inScores, j.evalRuns), gather(outScores, j.evalRuns), j.choice.threshold,
                           j.choice.direction);
    j.bound = privacy::auditEpsilonLowerBound(j.counts, delta, confidence);
    return j;
}

}  // namespace dpmix::audit
