#pragma once
// Random helpers whose output is fixed by the C++ standard's mt19937_64 alone. std::shuffle and
// std::uniform_*_distribution are implementation-defined, so splits made with them could differ
// between standard libraries; these do not.
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace dpmix::data {

/// Uniform double in [0, 1) with 53 random bits. `Gen` is any generator of 64 random bits per
/// call: mt19937_64 for public-data work, privacy::MechanismRng inside a DP mechanism.
template <typename Gen>
double uniform01(Gen& gen) {
    return static_cast<double>(std::uint64_t{gen()} >> 11) * 0x1.0p-53;
}

/// Uniform integer in [0, bound), bound > 0, without modulo bias (rejection sampling).
template <typename Gen>
std::uint64_t uniformBelow(Gen& gen, std::uint64_t bound) {
    static_assert(Gen::min() == 0 && Gen::max() == ~std::uint64_t{0}, "expects 64 random bits per call");
    const std::uint64_t threshold = (0 - bound) % bound;  // 2^64 mod bound
    while (true) {
        const std::uint64_t r = gen();
        if (r >= threshold) return r % bound;
    }
}

/// Fisher–Yates shuffle.
template <typename T, typename Gen>
void portableShuffle(std::vector<T>& items, Gen& gen) {
    for (std::size_t i = items.size(); i > 1; --i) {
        const std::size_t j = static_cast<std::size_t>(uniformBelow(gen, i));
        std::swap(items[i - 1], items[j]);
    }
}

/// Up to `cap` distinct elements of `pool`, uniformly without replacement, into `out` (all of
/// them, in order, when pool.size() <= cap). User-level DP uses it for the at most G examples a
/// sampled user contributes per step; the draws then come from the mechanism's sampling stream.
template <typename T, typename Gen>
void sampleWithoutReplacement(const std::vector<T>& pool, std::size_t cap, Gen& gen, std::vector<T>& out) {
    out = pool;
    if (pool.size() <= cap) return;
    // Partial Fisher–Yates: the first `cap` slots become a uniform sample without replacement.
    for (std::size_t i = 0; i < cap; ++i) {
        const auto j = i + static_cast<std::size_t>(uniformBelow(gen, out.size() - i));
        std::swap(out[i], out[j]);
    }
    out.resize(cap);
}

}  // namespace dpmix::data
