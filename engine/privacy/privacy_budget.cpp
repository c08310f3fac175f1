#include "engine/privacy/privacy_budget.h"

#include "engine/privacy/entry_rdp.h"
#include "engine/privacy/parameters.h"
#include "engine/privacy/rdp_conversion.h"

#include <algorithm>
#include <limits>
#include <map>
#include <utility>

namespace dpmix::privacy {
namespace {

using Curve = std::vector<double>;

Curve curveOf(const std::vector<const LedgerEntry*>& entries, const std::vector<double>& orders) {
    Curve c(orders.size(), 0.0);
    for (const auto* e : entries)
        for (std::size_t i = 0; i < orders.size(); ++i) c[i] += entryRdp(*e, orders[i]);
    return c;
}

double epsilonOf(const Curve& curve, const std::vector<double>& orders, double delta) {
    return rdpToEpsilon(orders, curve, delta).epsilon;
}

}  // namespace

std::string rhoPartition(long long seed, double rho) {
    return "seed=" + std::to_string(seed) + " rho=" + formatNumber(rho);
}

bool isRhoSide(const std::string& split) { return split == "A" || split == "B"; }

PrivacyBudget composeBudget(const std::vector<BudgetRelease>& releases) {
    PrivacyBudget b;
    if (releases.empty()) return b;
    std::vector<const LedgerEntry*> all;
    for (const auto& r : releases) {
        all.push_back(&r.entry);
        b.delta = std::max(b.delta, r.entry.delta);
        if (!r.entry.established) b.established = false;
        if (isSeededRelease(r.entry)) b.seeded = true;
    }
    b.releases = static_cast<long long>(releases.size());
    if (!(b.delta > 0.0)) b.delta = 1e-5;  // only non-private entries: ε is ∞ whatever δ
    const std::vector<double> orders = compositionOrders(all);

    // Group by (partition, side) for the sides of a ρ split, by split name for the whole set.
    std::vector<std::pair<std::string, std::string>> keys;
    std::map<std::pair<std::string, std::string>, std::vector<const LedgerEntry*>> groups;
    for (const auto& r : releases) {
        const bool side = !r.partition.empty() && isRhoSide(r.entry.split);
        const auto key = std::make_pair(side ? r.partition : std::string(), r.entry.split);
        if (!groups.count(key)) keys.push_back(key);
        groups[key].push_back(&r.entry);
    }
    Curve worst(orders.size(), 0.0);
    std::map<std::string, Curve> worstSide;  // per partition: per order, the larger side
    for (const auto& key : keys) {
        const Curve c = curveOf(groups[key], orders);
        b.groups.push_back({key.first, key.second, static_cast<long long>(groups[key].size()), epsilonOf(c, orders, b.delta)});
        if (key.first.empty()) {
            for (std::size_t i = 0; i < orders.size(); ++i) worst[i] += c[i];
        } else {
            Curve& w = worstSide.try_emplace(key.first, Curve(orders.size(), 0.0)).first->second;
            for (std::size_t i = 0; i < orders.size(); ++i) w[i] = std::max(w[i], c[i]);
        }
    }
    for (const auto& [partition, w] : worstSide)
        for (std::size_t i = 0; i < orders.size(); ++i) worst[i] += w[i];
    b.epsilon = epsilonOf(worst, orders, b.delta);
    return b;
}

}  // namespace dpmix::privacy
