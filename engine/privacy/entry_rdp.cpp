#include "engine/privacy/entry_rdp.h"

#include "engine/privacy/dirichlet_rdp.h"
#include "engine/privacy/gaussian_rdp.h"
#include "engine/privacy/rdp_orders.h"

#include <limits>

namespace dpmix::privacy {

double entryRdp(const LedgerEntry& e, double order) {
    constexpr double kInf = std::numeric_limits<double>::infinity();
    switch (e.mechanism) {
        case MechanismKind::SubsampledGaussian:
            return subsampledGaussianRdp(e.q, e.sigma, order) * static_cast<double>(e.steps);
        case MechanismKind::SubsampledDirichlet: {
            const int l = static_cast<int>(order);
            if (static_cast<double>(l) != order) return kInf;  // Theorem 10 covers integer orders only
            return subsampledDirichletRdp(e.dirichletAlpha, e.dirichletR, e.q, l) * static_cast<double>(e.steps);
        }
        case MechanismKind::NonPrivate: return kInf;
    }
    return kInf;
}

std::vector<double> compositionOrders(const std::vector<const LedgerEntry*>& entries) {
    for (const auto* e : entries)
        if (e->mechanism == MechanismKind::SubsampledDirichlet) return integerOrders(2, kMaxDirichletOrder);
    return defaultRdpOrders();
}

}  // namespace dpmix::privacy
