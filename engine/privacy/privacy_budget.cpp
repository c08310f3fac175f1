#include "engine/privacy/privacy_budget.h"

#include "engine/privacy/entry_rdp.h"
#include "engine/privacy/parameters.h"
#include "engine/privacy/rdp_conversion.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
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

std::vector<GaussianMechanism> gaussianParts(const std::vector<const LedgerEntry*>& entries) {
    std::vector<GaussianMechanism> parts;
    for (const auto* e : entries) parts.push_back({e->q, e->sigma, e->steps});
    return parts;
}

// Above this many ρ splits, the PRV bound for the worst-placed person (one side of every split,
// 2^splits combinations) is not tried: the RDP bound stands alone.
constexpr std::size_t kMaxPrvPartitions = 4;

/// The worst-placed person's ε when every release is certified by PRV: the whole-set releases
/// plus one side of every ρ split, maximised over the choices of side. Empty when not applicable.
std::optional<double> prvWorstPerson(
    const std::vector<std::pair<std::string, std::string>>& keys,
    const std::map<std::pair<std::string, std::string>, std::vector<const LedgerEntry*>>& groups, double delta) {
    std::vector<const LedgerEntry*> whole;
    std::map<std::string, std::vector<std::vector<const LedgerEntry*>>> sides;  // partition → its sides' entries
    for (const auto& key : keys) {
        if (key.first.empty())
            whole.insert(whole.end(), groups.at(key).begin(), groups.at(key).end());
        else
            sides[key.first].push_back(groups.at(key));
    }
    if (sides.size() > kMaxPrvPartitions) return std::nullopt;
    std::vector<const std::vector<std::vector<const LedgerEntry*>>*> choices;
    for (const auto& [partition, s] : sides) choices.push_back(&s);
    double worst = 0.0;
    // Enumerate one side per partition (each partition has one or two sides).
    std::vector<std::size_t> pick(choices.size(), 0);
    while (true) {
        std::vector<const LedgerEntry*> person = whole;
        for (std::size_t i = 0; i < choices.size(); ++i)
            person.insert(person.end(), (*choices[i])[pick[i]].begin(), (*choices[i])[pick[i]].end());
        if (!person.empty())
            worst = std::max(worst, certifiedGaussianEpsilon(Accountant::Prv, gaussianParts(person), delta));
        std::size_t i = 0;
        while (i < pick.size() && ++pick[i] == choices[i]->size()) pick[i++] = 0;
        if (i == pick.size()) break;
    }
    return worst;
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
    const bool allPrv =
        std::all_of(releases.begin(), releases.end(), [](const BudgetRelease& r) { return isPrvGaussian(r.entry); });
    for (const auto& key : keys) {
        const Curve c = curveOf(groups[key], orders);
        double groupEpsilon = epsilonOf(c, orders, b.delta);
        if (allPrv) groupEpsilon = certifiedGaussianEpsilon(Accountant::Prv, gaussianParts(groups[key]), b.delta);
        b.groups.push_back({key.first, key.second, static_cast<long long>(groups[key].size()), groupEpsilon});
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
    // Both are valid bounds on the worst-placed person: keep the smaller.
    if (allPrv)
        if (const auto prv = prvWorstPerson(keys, groups, b.delta)) b.epsilon = std::min(b.epsilon, *prv);
    return b;
}

}  // namespace dpmix::privacy
