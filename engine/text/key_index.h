#pragma once
// An open-addressing hash index over a sorted array of distinct 64-bit keys (the n-gram tables):
// one or two cache misses per lookup instead of a ~20-step binary search, which is what scoring
// thousands of documents under k proxies spends its time on. The keys stay in their array; the
// index stores positions + 1 (0 = empty slot), load factor ≤ 1/2, linear probing.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace dpmix::text {

class KeyIndex {
public:
    static constexpr std::size_t npos = std::numeric_limits<std::size_t>::max();

    void build(const std::vector<std::uint64_t>& keys) {
        const std::size_t capacity = std::bit_ceil(std::max<std::size_t>(2, 2 * keys.size()));
        shift_ = 64 - std::countr_zero(capacity);
        mask_ = capacity - 1;
        slots_.assign(capacity, 0);
        for (std::size_t i = 0; i < keys.size(); ++i) {
            std::size_t s = slot(keys[i]);
            while (slots_[s] != 0) s = (s + 1) & mask_;
            slots_[s] = static_cast<std::uint32_t>(i + 1);
        }
    }

    /// Position of `key` in `keys` (the array the index was built on), or npos.
    std::size_t find(const std::vector<std::uint64_t>& keys, std::uint64_t key) const {
        for (std::size_t s = slot(key);; s = (s + 1) & mask_) {
            const std::uint32_t entry = slots_[s];
            if (entry == 0) return npos;
            if (keys[entry - 1] == key) return entry - 1;
        }
    }

private:
    std::size_t slot(std::uint64_t key) const {
        return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ULL) >> shift_) & mask_;  // Fibonacci hashing
    }
    std::vector<std::uint32_t> slots_;
    int shift_ = 63;
    std::size_t mask_ = 1;
};

}  // namespace dpmix::text
