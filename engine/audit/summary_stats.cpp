#include "engine/audit/summary_stats.h"

#include <cmath>

namespace dpmix::audit {

MeanStd meanStd(const std::vector<double>& values) {
    MeanStd m;
    m.count = static_cast<long long>(values.size());
    if (values.empty()) return m;
    double s = 0.0;
    for (double v : values) s += v;
    m.mean = s / static_cast<double>(values.size());
    if (values.size() < 2) return m;
    double ss = 0.0;
    for (double v : values) ss += (v - m.mean) * (v - m.mean);
    m.std = std::sqrt(ss / static_cast<double>(values.size() - 1));
    return m;
}

}  // namespace dpmix::audit
