#pragma once
// The three discounts of modified Kneser–Ney (Chen & Goodman 1998, eq. 26) for one order, from
// that order's counts of counts: n_r = number of n-gram types whose (raw or continuation) count
// is exactly r.
//     Y = n1 / (n1 + 2 n2),  D1 = 1 − 2Y n2/n1,  D2 = 2 − 3Y n3/n2,  D3+ = 3 − 4Y n4/n3.
// Each D_r is clamped to [0, r] so that no count is discounted below zero — that keeps every
// conditional distribution summing to 1. When a needed n_r is 0 (tiny corpora), the formulas
// are undefined and all three discounts fall back to Ney's single absolute discount Y (or 0.5
// when there are no singletons at all).
#include <array>
#include <cstdint>

namespace dpmix::text {

struct KneserNeyDiscounts {
    std::array<double, 3> d{0.5, 0.5, 0.5};  // D1, D2, D3+
    bool fallback = false;                   // true when the single-discount fallback was used

    /// D(c) for a count c ≥ 1 (0 for c = 0).
    double forCount(std::uint64_t c) const { return c == 0 ? 0.0 : d[c >= 3 ? 2 : c - 1]; }
};

/// countOfCounts[r − 1] = n_r for r = 1..4.
KneserNeyDiscounts estimateKneserNeyDiscounts(const std::array<std::uint64_t, 4>& countOfCounts);

}  // namespace dpmix::text
