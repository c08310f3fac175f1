#include "engine/audit/claim_verdict.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <tuple>

namespace dpmix::audit {
namespace {

bool sameValue(double a, double b) { return std::abs(a - b) <= 1e-6 * std::max(std::abs(a), std::abs(b)); }

std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

/// A one-run audit's ε_LB from m, r, v, δ and confidence, or nothing when they cannot be a valid
/// audit or disagree with the record's confusion matrix of the guesses.
std::optional<double> oneRunBound(const StoredMechanismAudit& a) {
    const auto& c = a.counts;
    const auto& o = *a.oneRun;
    if (c.falsePositives < 0 || c.falseNegatives < 0 || c.falsePositives > c.negatives ||
        c.falseNegatives > c.positives || o.guesses != c.negatives + c.positives ||
        o.correct != o.guesses - c.falsePositives - c.falseNegatives)
        return std::nullopt;
    auto bound = privacy::oneRunEpsilonLowerBound(o, a.delta, a.confidence);
    if (!bound) return std::nullopt;
    return *bound;
}

/// ε_LB from the stored counts, or nothing when the counts cannot be a valid audit.
std::optional<double> recomputedBound(const StoredMechanismAudit& a) {
    if (a.oneRun) return oneRunBound(a);
    const auto& c = a.counts;
    if (c.negatives < 1 || c.positives < 1 || c.falsePositives < 0 || c.falseNegatives < 0 ||
        c.falsePositives > c.negatives || c.falseNegatives > c.positives || !(a.delta >= 0.0 && a.delta < 1.0) ||
        !(a.confidence > 0.0 && a.confidence < 1.0))
        return std::nullopt;
    return privacy::auditEpsilonLowerBound(c, a.delta, a.confidence).epsilonLB;
}

}  // namespace

ClaimVerdict claimVerdict(const std::string& mechanism, double claimedEpsilon, double delta,
                          const std::vector<StoredMechanismAudit>& audits) {
    ClaimVerdict v;
    for (const auto& a : audits) {
        if (a.mechanism != mechanism) continue;
        const auto lb = recomputedBound(a);
        if (!lb) continue;
        const AuditEvidence evidence{a.runId, a.name, a.claimedEpsilon, *lb};
        if (sameValue(a.claimedEpsilon, claimedEpsilon) && sameValue(a.delta, delta)) {
            ++v.audits;
            if (!v.strongest || *lb > v.strongest->epsilonLB) v.strongest = evidence;
        } else if (*lb > a.claimedEpsilon &&
                   (!v.refutedElsewhere ||
                    *lb - a.claimedEpsilon > v.refutedElsewhere->epsilonLB - v.refutedElsewhere->claimedEpsilon)) {
            v.refutedElsewhere = evidence;
        }
    }
    if (v.audits > 0)
        v.status = v.strongest->epsilonLB > claimedEpsilon ? ClaimStatus::Refuted : ClaimStatus::NotRefuted;
    return v;
}

std::optional<StoredMechanismAudit> mechanismAuditFrom(long long runId, const std::string& name,
                                                       const std::string& detailsJson,
                                                       const privacy::AuditCounts& counts, double delta,
                                                       double confidence) {
    const auto details = nlohmann::json::parse(detailsJson, nullptr, false);
    if (!details.is_object() || !details.contains("mechanism") || !details["mechanism"].is_string() ||
        !details.contains("claimed_epsilon") || !details["claimed_epsilon"].is_number())
        return std::nullopt;
    StoredMechanismAudit a;
    a.runId = runId;
    a.name = name;
    a.mechanism = details["mechanism"].get<std::string>();
    a.claimedEpsilon = details["claimed_epsilon"].get<double>();
    a.delta = delta;
    a.confidence = confidence;
    a.counts = counts;
    // Black-box and white-box one-run records ("variant") are judged alike: DP-SGD's ε covers every
    // released step, so either audit's ε_LB, recomputed from m, r and v, can refute the claim.
    if (details.contains("kind") && details["kind"].is_string() && details["kind"].get<std::string>() == "one-run") {
        for (const char* key : {"canaries", "guesses", "correct"})
            if (!details.contains(key) || !details[key].is_number_integer()) return std::nullopt;
        a.oneRun = privacy::OneRunCounts{details["canaries"].get<long long>(), details["guesses"].get<long long>(),
                                         details["correct"].get<long long>()};
    }
    return a;
}

std::string auditedMechanismOf(const privacy::LedgerEntry& entry) {
    if (entry.mechanism == privacy::MechanismKind::SubsampledDirichlet) return "dirichlet";
    if (entry.mechanism == privacy::MechanismKind::SubsampledGaussian && entry.stage == "finetune") return "dp-sgd";
    return "";
}

std::optional<ClaimVerdict> entryVerdict(const privacy::LedgerEntry& e,
                                         const std::vector<StoredMechanismAudit>& audits) {
    const std::string mechanism = auditedMechanismOf(e);
    if (mechanism.empty()) return std::nullopt;
    auto v = claimVerdict(mechanism, e.epsilon, e.delta, audits);
    if (v.status == ClaimStatus::NotAudited && !v.refutedElsewhere &&
        e.mechanism != privacy::MechanismKind::SubsampledDirichlet)
        return std::nullopt;
    return v;
}

std::vector<std::string> claimVerdictLines(const std::vector<privacy::LedgerEntry>& entries,
                                           const std::vector<StoredMechanismAudit>& audits) {
    std::vector<std::string> lines;
    std::vector<std::tuple<std::string, double, double>> seen;
    for (const auto& e : entries) {
        const auto v = entryVerdict(e, audits);
        if (!v) continue;
        const std::string mechanism = auditedMechanismOf(e);
        bool repeat = false;
        for (const auto& [m, eps, delta] : seen)
            repeat = repeat || (m == mechanism && sameValue(eps, e.epsilon) && sameValue(delta, e.delta));
        if (repeat) continue;
        seen.emplace_back(mechanism, e.epsilon, e.delta);
        lines.push_back((mechanism == "dirichlet" ? std::string("Dirichlet mechanism") : std::string("DP-SGD")) +
                        " at ε = " + number(e.epsilon) + ", δ = " + number(e.delta) + ": " + describe(*v, e.epsilon));
    }
    return lines;
}

std::optional<std::string> refutedClaim(const std::vector<privacy::LedgerEntry>& entries,
                                        const std::vector<StoredMechanismAudit>& audits) {
    for (const auto& e : entries)
        if (const auto v = entryVerdict(e, audits); v && v->status == ClaimStatus::Refuted)
            return "its " + e.stage + " mechanism: " + describe(*v, e.epsilon);
    return std::nullopt;
}

std::string describe(const ClaimVerdict& v, double claimedEpsilon) {
    std::string text;
    switch (v.status) {
        case ClaimStatus::Refuted:
            text = "claim refuted by audit (ε_LB = " + number(v.strongest->epsilonLB) +
                   " > ε = " + number(claimedEpsilon) + "; audit run #" + std::to_string(v.strongest->runId) + ")";
            break;
        case ClaimStatus::NotRefuted:
            text = "claimed, not refuted (best ε_LB = " + number(v.strongest->epsilonLB) + " in " +
                   std::to_string(v.audits) + (v.audits == 1 ? " audit" : " audits") + "; audit run #" +
                   std::to_string(v.strongest->runId) + ")";
            break;
        case ClaimStatus::NotAudited: text = "claimed, not audited"; break;
    }
    if (v.status != ClaimStatus::Refuted && v.refutedElsewhere)
        text += "; the same mechanism's claim ε = " + number(v.refutedElsewhere->claimedEpsilon) +
                " was refuted (ε_LB = " + number(v.refutedElsewhere->epsilonLB) + ", audit run #" +
                std::to_string(v.refutedElsewhere->runId) + ")";
    return text;
}

}  // namespace dpmix::audit
