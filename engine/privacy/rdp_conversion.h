#pragma once
#include <vector>

namespace dpmix::privacy {

struct EpsilonAtOrder {
    double epsilon;  // +inf when no order gives a finite bound
    double order;    // the order that attains it (NaN when epsilon is +inf)
};

/// (ε, δ) from an RDP curve by the conversion of Balle et al. 2020 (Thm 21), which is the
/// same expression as Canonne, Kamath & Steinke 2020 (Lemma 13):
///   ε = min_α  RDP(α) + log((α-1)/α) - (log δ + log α)/(α-1).
/// Orders must be > 1; `rdp[i]` is the (already composed) RDP at `orders[i]`.
/// Throws std::invalid_argument on mismatched sizes or δ outside (0, 1).
EpsilonAtOrder rdpToEpsilon(const std::vector<double>& orders, const std::vector<double>& rdp, double delta);

/// The conversion at a single order (no minimisation).
double rdpToEpsilonAtOrder(double order, double rdp, double delta);

}  // namespace dpmix::privacy
