#include "engine/experiments/regime_advice.h"

#include <cmath>
#include <cstdio>
#include <limits>

namespace dpmix::experiments {
namespace {

std::string signedNumber(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%+.3f", value);
    return text;
}

std::string countText(long long n) {
    std::string digits = std::to_string(n), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

std::string epsilonText(double epsilon) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", epsilon);
    return text;
}

double distance(const RegimeCell& cell, long long n, double epsilon) {
    return std::abs(std::log(static_cast<double>(cell.n) / static_cast<double>(n))) +
           std::abs(std::log(cell.epsilon / epsilon));
}

std::string clause(const std::string& baseline, const PairedDifference& d) {
    if (d.seeds == 0) return "had no " + baseline + " result to compare with";
    if (!d.hasInterval())
        return "had one seed against " + baseline + " (" + signedNumber(d.mean) +
               " AUC): no claim without 2 or more seeds";
    const std::string numbers = differenceText(d) + " AUC, " + std::to_string(d.seeds) + " seeds";
    if (d.aheadBeyondNoise()) return "beat " + baseline + " (" + numbers + ")";
    if (d.behindBeyondNoise()) return "lost to " + baseline + " (" + numbers + ")";
    return "did not differ from " + baseline + " beyond seed noise (" + numbers + ")";
}

std::string headlineOf(const RegimeCell& cell) {
    const auto& ri = cell.vsRandomInit;
    const auto& un = cell.vsUniform;
    if (cell.paysOff())
        return "Choosing public data privately is expected to pay here: DP-MixMin was ahead of both Random Init and "
               "Uniform on the reference data.";
    if (ri.aheadBeyondNoise())
        return "Pretraining on public data is expected to help here, but uniform weights did as well as a privately "
               "chosen mixture on the reference data.";
    if (ri.behindBeyondNoise())
        return "Public data is not expected to help here: training from scratch (Random Init) was ahead on the "
               "reference data.";
    if (un.aheadBeyondNoise())
        return "A privately chosen mixture beat uniform weights on the reference data, but pretraining did not beat "
               "training from scratch beyond seed noise.";
    return "No method was ahead beyond seed noise at this regime on the reference data: expect little difference.";
}

}  // namespace

std::string differenceText(const PairedDifference& d) {
    if (!d.hasInterval()) return signedNumber(d.mean);
    return signedNumber(d.mean) + " [" + signedNumber(d.low) + ", " + signedNumber(d.high) + "]";
}

std::string baselineVerdict(const RegimeCell& cell) {
    return "DP-MixMin " + clause("Random Init", cell.vsRandomInit) + "; it " + clause("Uniform", cell.vsUniform) + ".";
}

std::optional<RegimeAdvice> regimeAdvice(const RegimeMap& map, PoolKind kind, long long n, double epsilon) {
    if (map.cells.empty() || n < 1 || !(epsilon > 0.0) || !std::isfinite(epsilon)) return std::nullopt;
    const RegimeCell* best = nullptr;
    bool bestSameKind = false;
    double bestDistance = std::numeric_limits<double>::infinity();
    for (const auto& cell : map.cells) {
        const bool sameKind = cell.poolKind == kind;
        const double d = distance(cell, n, epsilon);
        if ((sameKind && !bestSameKind) || (sameKind == bestSameKind && d < bestDistance)) {
            best = &cell;
            bestSameKind = sameKind;
            bestDistance = d;
        }
    }
    RegimeAdvice advice;
    advice.cell = *best;
    advice.samePoolKind = bestSameKind;
    advice.headline = headlineOf(*best);
    advice.detail = "Empirical estimate on reference data (" + map.reference +
                    "), not a promise: at n = " + countText(best->n) + ", ε = " + epsilonText(best->epsilon) +
                    " with " + std::string(traitsOf(best->poolKind).label) + ", " + baselineVerdict(*best);
    if (!bestSameKind) advice.detail += " The map holds no regime with " + std::string(traitsOf(kind).label) + ".";
    return advice;
}

}  // namespace dpmix::experiments
