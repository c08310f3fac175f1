#include "engine/privacy/ledger.h"

#include "engine/privacy/entry_rdp.h"

#include "engine/privacy/dirichlet_accountant.h"
#include "engine/privacy/dirichlet_rdp.h"
#include "engine/privacy/gaussian_accountant.h"
#include "engine/privacy/gaussian_rdp.h"
#include "engine/privacy/key_stream.h"
#include "engine/privacy/parameters.h"
#include "engine/privacy/prv_accountant.h"
#include "engine/privacy/rdp_conversion.h"
#include "engine/privacy/rdp_orders.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

namespace dpmix::privacy {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

const char* const kGaussianAccountant =
    "rdp-subsampled-gaussian (Mironov-Talwar-Zhang 2019; Opacus order grid; "
    "Balle et al. 2020 conversion)";
const char* const kPrvGaussianAccountant =
    "prv-subsampled-gaussian (Gopi-Lee-Wutschitz 2021; add and remove neighbours; certified upper bound, epsilon "
    "error 0.01, delta error delta/1000; the smaller of it and the RDP bound)";
const char* const kDirichletAccountant =
    "rdp-subsampled-dirichlet (Rao et al. 2026 Thm 10; Zhu-Wang 2019 Thm 5; "
    "integer orders 2..256; Canonne-Kamath-Steinke 2020 conversion)";

// Sequential composition of a group of entries: PRVs composed when every entry is a PRV-certified
// Gaussian, otherwise RDP curves added and converted once.
SplitTotal composeSequentially(const std::string& split, const std::vector<const LedgerEntry*>& group, double delta) {
    bool anyDirichlet = false;
    bool allPrv = true;
    for (const auto* e : group) {
        if (e->mechanism == MechanismKind::NonPrivate) return {split, kInf, delta, std::nan("")};
        anyDirichlet = anyDirichlet || e->mechanism == MechanismKind::SubsampledDirichlet;
        allPrv = allPrv && isPrvGaussian(*e);
    }
    if (allPrv) {
        std::vector<GaussianMechanism> parts;
        for (const auto* e : group) parts.push_back({e->q, e->sigma, e->steps});
        return {split, certifiedGaussianEpsilon(Accountant::Prv, parts, delta), delta, std::nan("")};
    }
    if (group.size() == 1 && anyDirichlet) {
        const auto& e = *group.front();
        const auto r = dirichletEpsilon({e.dirichletAlpha, e.dirichletR, e.q, e.steps}, delta, kMaxDirichletOrder);
        return {split, r.epsilon, delta, r.order};
    }
    // Dirichlet bounds exist at integer orders only, so a mixed group uses integer orders.
    const std::vector<double> orders = compositionOrders(group);
    std::vector<double> rdp(orders.size(), 0.0);
    for (const auto* e : group)
        for (std::size_t i = 0; i < orders.size(); ++i) rdp[i] += entryRdp(*e, orders[i]);
    const auto r = rdpToEpsilon(orders, rdp, delta);
    return {split, r.epsilon, delta, r.order};
}

bool closeEnough(double a, double b, double rtol) {
    if (std::isinf(a) || std::isinf(b)) return a == b;
    return std::fabs(a - b) <= rtol * std::max({1.0, std::fabs(a), std::fabs(b)});
}

}  // namespace

const char* const kSeededRandomnessNotice =
    "seeded randomness: the guarantee holds only while the seed stays secret - this file stores it, so this is "
    "not a release";

void setRandomness(LedgerEntry& entry, RandomnessMode mode) {
    const bool dp = entry.mechanism != MechanismKind::NonPrivate;
    entry.randomness = dp ? mode : RandomnessMode::Secret;
    entry.keyStream = dp ? describeKeyStream(mode) : std::string();
}

bool isPrvGaussian(const LedgerEntry& e) {
    return e.mechanism == MechanismKind::SubsampledGaussian && e.accounting == Accountant::Prv;
}

bool isSeededRelease(const LedgerEntry& entry) {
    return entry.mechanism != MechanismKind::NonPrivate && entry.randomness == RandomnessMode::Seeded;
}

bool sameRelease(const LedgerEntry& a, const LedgerEntry& b) {
    // Numbers compared exactly: a carried entry is a copy of the stored one, read back from the
    // same JSON, so an entry that differs in any digit is another release.
    return a.stage == b.stage && a.mechanism == b.mechanism && a.unit == b.unit && a.split == b.split && a.q == b.q &&
           a.steps == b.steps && a.sigma == b.sigma && a.clipNorm == b.clipNorm &&
           a.dirichletAlpha == b.dirichletAlpha && a.dirichletR == b.dirichletR && a.delta == b.delta &&
           a.epsilon == b.epsilon && a.accounting == b.accounting && a.established == b.established &&
           a.randomness == b.randomness;
}

std::string toString(MechanismKind kind) {
    switch (kind) {
        case MechanismKind::SubsampledGaussian: return "subsampled-gaussian";
        case MechanismKind::SubsampledDirichlet: return "subsampled-dirichlet";
        case MechanismKind::NonPrivate: return "non-private";
    }
    return "unknown";
}

std::string toString(PrivacyUnit unit) { return unit == PrivacyUnit::User ? "user" : "example"; }
std::string toString(Composition c) { return c == Composition::Sequential ? "sequential" : "parallel"; }

bool parseMechanismKind(const std::string& text, MechanismKind& out) {
    for (auto k : {MechanismKind::SubsampledGaussian, MechanismKind::SubsampledDirichlet, MechanismKind::NonPrivate})
        if (toString(k) == text) {
            out = k;
            return true;
        }
    return false;
}

bool parsePrivacyUnit(const std::string& text, PrivacyUnit& out) {
    if (text == "example") {
        out = PrivacyUnit::Example;
        return true;
    }
    if (text == "user") {
        out = PrivacyUnit::User;
        return true;
    }
    return false;
}

bool parseComposition(const std::string& text, Composition& out) {
    if (text == "parallel") {
        out = Composition::Parallel;
        return true;
    }
    if (text == "sequential") {
        out = Composition::Sequential;
        return true;
    }
    return false;
}

double recomputeEpsilon(const LedgerEntry& e) {
    switch (e.mechanism) {
        case MechanismKind::SubsampledGaussian:
            return certifiedGaussianEpsilon(e.accounting, {{e.q, e.sigma, e.steps}}, e.delta);
        case MechanismKind::SubsampledDirichlet:
            return dirichletEpsilon({e.dirichletAlpha, e.dirichletR, e.q, e.steps}, e.delta, kMaxDirichletOrder)
                .epsilon;
        case MechanismKind::NonPrivate: return kInf;
    }
    return kInf;
}

LedgerEntry gaussianEntry(std::string stage, std::string split, PrivacyUnit unit, double q, double sigma,
                          long long steps, double delta, double clipNorm, Accountant accountant) {
    LedgerEntry e;
    e.stage = std::move(stage);
    e.mechanism = MechanismKind::SubsampledGaussian;
    e.unit = unit;
    e.split = std::move(split);
    e.q = q;
    e.sigma = sigma;
    e.steps = steps;
    e.delta = delta;
    e.clipNorm = clipNorm;
    e.accounting = accountant;
    e.accountant = accountant == Accountant::Prv ? kPrvGaussianAccountant : kGaussianAccountant;
    e.assumptions = unit == PrivacyUnit::User
                        ? "add/remove of one user's data; Poisson sampling of users; each user's contribution clipped; "
                          "treated as public: the number of users and the split sizes (they set q), and the label set "
                          "(declared in the spec, never read from the sensitive data)"
                        : "add/remove of one example; Poisson sampling; each example's gradient clipped; treated as "
                          "public: the number of examples and the split sizes (they set q), and the label set "
                          "(declared in the spec, never read from the sensitive data)";
    e.epsilon = recomputeEpsilon(e);
    return e;
}

LedgerEntry dirichletEntry(std::string stage, std::string split, double alpha, double r, double q, long long steps,
                           double delta) {
    LedgerEntry e;
    e.stage = std::move(stage);
    e.mechanism = MechanismKind::SubsampledDirichlet;
    e.unit = PrivacyUnit::Example;
    e.split = std::move(split);
    e.dirichletAlpha = alpha;
    e.dirichletR = r;
    e.q = q;
    e.steps = steps;
    e.delta = delta;
    e.accountant = kDirichletAccountant;
    e.established = false;
    e.assumptions =
        "protects training inputs only: labels are treated as public. The epsilon is claimed by the mechanism's "
        "authors, not established: it treats back-propagation as post-processing of the Dirichlet samples, but the "
        "parameter gradient also carries the network's Jacobian at the private input";
    e.epsilon = recomputeEpsilon(e);
    return e;
}

LedgerEntry nonPrivateEntry(std::string stage, std::string split, std::string why) {
    LedgerEntry e;
    e.stage = std::move(stage);
    e.mechanism = MechanismKind::NonPrivate;
    e.split = std::move(split);
    e.epsilon = kInf;
    e.accountant = "none";
    e.established = true;
    e.assumptions = std::move(why);
    return e;
}

Result<SigmaAfterPrior> calibrateGaussianSigmaAfter(const std::vector<LedgerEntry>& prior, double targetEpsilon,
                                                    double delta, double q, long long steps, Accountant accountant) {
    if (accountant == Accountant::Prv && std::all_of(prior.begin(), prior.end(), isPrvGaussian)) {
        // The group will compose by PRV: calibrate by PRV (the generic bisection would need ~40
        // PRV evaluations).
        std::vector<GaussianMechanism> parts;
        for (const auto& e : prior) parts.push_back({e.q, e.sigma, e.steps});
        auto c = calibrateGaussianSigmaPrvAfter(parts, targetEpsilon, delta, q, steps);
        if (!c) return c.error();
        return SigmaAfterPrior{c->sigma, c->certificate.epsilon};
    }
    auto composed = [&](double sigma) {
        Ledger ledger(Composition::Sequential);
        for (const auto& e : prior) ledger.record(e);
        LedgerEntry next = gaussianEntry("next", "same", PrivacyUnit::Example, q, sigma, steps, delta, 1.0, accountant);
        ledger.record(next);
        return ledger.total().epsilon;
    };
    constexpr double kMaxSigma = 1e6;
    double lo = 0.0, hi = 1.0;
    double atHi = composed(hi);
    while (!(atHi <= targetEpsilon)) {
        lo = hi;
        hi *= 2.0;
        if (hi > kMaxSigma)
            return Error{
                "the earlier stages leave no budget: no noise multiplier up to 1e6 brings the composed total to "
                "epsilon " +
                formatNumber(targetEpsilon)};
        atHi = composed(hi);
    }
    while (hi - lo > 1e-10 * hi) {  // the composed ε is non-increasing in σ
        const double mid = 0.5 * (lo + hi);
        const double atMid = composed(mid);
        if (atMid <= targetEpsilon) {
            hi = mid;
            atHi = atMid;
        } else {
            lo = mid;
        }
    }
    return SigmaAfterPrior{hi, atHi};
}

LedgerTotal Ledger::total() const {
    LedgerTotal t;
    t.composition = composition_;
    if (entries_.empty()) return t;
    double delta = 0.0;
    for (const auto& e : entries_) {
        delta = std::max(delta, e.delta);
        if (!e.established) t.established = false;
        if (isSeededRelease(e)) t.seeded = true;
        if (!e.assumptions.empty() &&
            std::find(t.assumptions.begin(), t.assumptions.end(), e.assumptions) == t.assumptions.end())
            t.assumptions.push_back(e.assumptions);
    }
    if (t.seeded) t.assumptions.insert(t.assumptions.begin(), kSeededRandomnessNotice);
    if (delta <= 0.0) delta = 1e-5;  // only non-private entries: ε is ∞ whatever δ
    // Group by split, keeping first-seen order.
    std::vector<std::string> order;
    std::map<std::string, std::vector<const LedgerEntry*>> groups;
    for (const auto& e : entries_) {
        const std::string key = composition_ == Composition::Sequential ? std::string("all") : e.split;
        if (!groups.count(key)) order.push_back(key);
        groups[key].push_back(&e);
    }
    // Within a group the summed RDP curve is converted once, at the largest δ recorded there.
    for (const auto& key : order) {
        double groupDelta = 0.0;
        for (const auto* e : groups[key]) groupDelta = std::max(groupDelta, e->delta);
        if (groupDelta <= 0.0) groupDelta = delta;
        t.perSplit.push_back(composeSequentially(key, groups[key], groupDelta));
    }
    for (const auto& s : t.perSplit) {
        t.epsilon = std::max(t.epsilon, s.epsilon);
        t.delta = std::max(t.delta, s.delta);
    }
    return t;
}

LedgerVerification Ledger::verify(double recordedTotal, double rtol) const {
    LedgerVerification v;
    for (std::size_t i = 0; i < entries_.size(); ++i) {
        const double again = recomputeEpsilon(entries_[i]);
        const bool same = closeEnough(entries_[i].epsilon, again, rtol);
        v.entries.push_back({i, entries_[i].epsilon, again, same});
        if (!same) {
            v.ok = false;
            v.problems.push_back("entry " + std::to_string(i + 1) + " (" + entries_[i].stage + ", split " +
                                 entries_[i].split + "): recorded epsilon " + std::to_string(entries_[i].epsilon) +
                                 " but its parameters give " + std::to_string(again));
        }
    }
    v.total = total();
    if (recordedTotal >= 0.0 && !closeEnough(recordedTotal, v.total.epsilon, rtol)) {
        v.ok = false;
        v.problems.push_back("recorded total epsilon " + std::to_string(recordedTotal) +
                             " but the entries compose to " + std::to_string(v.total.epsilon));
    }
    return v;
}

}  // namespace dpmix::privacy
