#include "engine/privacy/rdp_conversion.h"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace dpmix::privacy {

double rdpToEpsilonAtOrder(double order, double rdp, double delta) {
    return rdp + std::log((order - 1.0) / order) - (std::log(delta) + std::log(order)) / (order - 1.0);
}

EpsilonAtOrder rdpToEpsilon(const std::vector<double>& orders, const std::vector<double>& rdp, double delta) {
    if (orders.size() != rdp.size() || orders.empty())
        throw std::invalid_argument("rdpToEpsilon: orders and RDP values must be non-empty and of equal length");
    if (!(delta > 0.0 && delta < 1.0)) throw std::invalid_argument("rdpToEpsilon: delta must lie in (0, 1)");
    EpsilonAtOrder best{std::numeric_limits<double>::infinity(), std::nan("")};
    for (std::size_t i = 0; i < orders.size(); ++i) {
        if (!(orders[i] > 1.0)) throw std::invalid_argument("rdpToEpsilon: every order must be > 1");
        const double eps = rdpToEpsilonAtOrder(orders[i], rdp[i], delta);
        if (std::isnan(eps)) continue;
        if (eps < best.epsilon) best = {eps, orders[i]};
    }
    return best;
}

}  // namespace dpmix::privacy
