#include "engine/experiments/paired_difference.h"

#include "engine/core/mean_std.h"

#include <boost/math/distributions/students_t.hpp>

#include <cmath>
#include <vector>

namespace dpmix::experiments {

double studentT975(int degreesOfFreedom) {
    const boost::math::students_t distribution(static_cast<double>(degreesOfFreedom < 1 ? 1 : degreesOfFreedom));
    return boost::math::quantile(distribution, 0.975);
}

PairedDifference pairedDifference(const std::map<long long, double>& a, const std::map<long long, double>& b) {
    std::vector<double> differences;
    for (const auto& [seed, value] : a)
        if (const auto other = b.find(seed); other != b.end()) differences.push_back(value - other->second);
    PairedDifference out;
    out.seeds = static_cast<int>(differences.size());
    if (differences.empty()) return out;
    const MeanStd summary = meanStd(differences);
    out.mean = out.low = out.high = summary.mean;
    if (out.seeds < 2) return out;
    const double halfWidth = studentT975(out.seeds - 1) * summary.std / std::sqrt(static_cast<double>(out.seeds));
    out.low = summary.mean - halfWidth;
    out.high = summary.mean + halfWidth;
    return out;
}

}  // namespace dpmix::experiments
