#include "engine/text/kneser_ney_discounts.h"

#include <algorithm>

namespace dpmix::text {

KneserNeyDiscounts estimateKneserNeyDiscounts(const std::array<std::uint64_t, 4>& countOfCounts) {
    const double n1 = static_cast<double>(countOfCounts[0]);
    const double n2 = static_cast<double>(countOfCounts[1]);
    const double n3 = static_cast<double>(countOfCounts[2]);
    const double n4 = static_cast<double>(countOfCounts[3]);
    KneserNeyDiscounts out;
    if (n1 > 0 && n2 > 0 && n3 > 0 && n4 > 0) {
        const double y = n1 / (n1 + 2.0 * n2);
        out.d = {1.0 - 2.0 * y * n2 / n1, 2.0 - 3.0 * y * n3 / n2, 3.0 - 4.0 * y * n4 / n3};
        for (int r = 0; r < 3; ++r) out.d[r] = std::clamp(out.d[r], 0.0, static_cast<double>(r + 1));
        return out;
    }
    out.fallback = true;
    const double single = n1 > 0 ? n1 / (n1 + 2.0 * n2) : 0.5;  // in (0, 1]: never above a count
    out.d = {single, single, single};
    return out;
}

}  // namespace dpmix::text
