#include "engine/privacy/rdp_orders.h"

namespace dpmix::privacy {

std::vector<double> defaultRdpOrders() {
    std::vector<double> orders;
    // 1 + x/10 for x = 1..99, computed as Opacus does (1 + x / 10.0) so the doubles agree.
    for (int x = 1; x < 100; ++x) orders.push_back(1.0 + x / 10.0);
    for (int a = 12; a < 64; ++a) orders.push_back(static_cast<double>(a));
    return orders;
}

std::vector<double> integerOrders(int lo, int hi) {
    std::vector<double> orders;
    for (int a = lo; a <= hi; ++a) orders.push_back(static_cast<double>(a));
    return orders;
}

}  // namespace dpmix::privacy
