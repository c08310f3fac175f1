#include "engine/core/mean_std.h"

#include <cmath>

namespace dpmix {

MeanStd meanStd(std::span<const double> values) {
    MeanStd m;
    m.count = static_cast<long long>(values.size());
    if (values.empty()) return m;
    double sum = 0.0;
    for (double v : values) sum += v;
    m.mean = sum / static_cast<double>(values.size());
    if (values.size() < 2) return m;
    double squares = 0.0;
    for (double v : values) squares += (v - m.mean) * (v - m.mean);
    m.std = std::sqrt(squares / static_cast<double>(values.size() - 1));
    return m;
}

}  // namespace dpmix
