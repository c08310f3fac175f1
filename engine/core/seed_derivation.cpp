#include "engine/core/seed_derivation.h"

namespace dpmix::seeds {

std::uint64_t splitMix64(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

std::uint64_t derive(std::uint64_t base, std::uint64_t stream, std::uint64_t index) {
    return splitMix64(splitMix64(splitMix64(base) ^ stream) ^ index);
}

std::uint64_t mix(std::uint64_t seed, std::uint64_t purpose) {
    // splitMix64 adds γ once; the purpose's multiple of γ goes before it.
    return splitMix64(seed + 0x9E3779B97F4A7C15ULL * purpose);
}

std::uint64_t proxyHoldOut(std::uint64_t runSeed) { return runSeed ^ 0x70726f7879ULL; }

std::uint64_t trainingSubset(std::uint64_t seed) { return seed ^ 0x5DEECE66DULL; }

std::uint64_t textModelInit(std::uint64_t mixtureSeed) { return mixtureSeed * 1000003 + 11; }

std::uint64_t textPretraining(std::uint64_t mixtureSeed) { return mixtureSeed * 104729 + 3; }

std::array<std::uint32_t, 3> randomSearchWords(std::uint64_t seed) {
    return {static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32), 3u};
}

}  // namespace dpmix::seeds
