#pragma once
// Every way dpmix derives one seed from another, in one place (docs/DEVELOPING.md, "Seeds").
//
// New code uses `derive` (an indexed family: run i of an audit world, the draw of seed s) or
// `mix` (one stream per purpose of a run seed), with a named stream constant so two purposes
// never share a stream by accident. The named functions below them are older derivations that
// stored results depend on — the demo's AUCs, the tables in docs/ — and are kept bit for bit;
// they live here so that no call site does arithmetic on a seed.
#include <array>
#include <cstdint>

namespace dpmix::seeds {

/// SplitMix64's output function for state `x` (Steele, Lea & Flood 2014): one well-mixed 64-bit
/// value per input; splitMix64(0) is SplitMix64's first output from seed 0, 0xE220A8397B1DCDAF.
std::uint64_t splitMix64(std::uint64_t x);

/// Seed `index` of stream `stream` of a base seed: splitMix64(splitMix64(splitMix64(base) ^ stream) ^ index).
/// Distinct, well-mixed seeds for neighbouring indices; used for jobs that run in any order on
/// any thread (audit runs, sweep points, AdaMix-R draws), so results do not depend on scheduling.
std::uint64_t derive(std::uint64_t base, std::uint64_t stream, std::uint64_t index);

/// One stream per purpose of a run seed: SplitMix64's finaliser of seed + γ·(purpose + 1),
/// γ = 0x9E3779B97F4A7C15 (data splits' helpers, text sampling, PSG, AdaMix-R's shots).
std::uint64_t mix(std::uint64_t seed, std::uint64_t purpose);

// ---- kept derivations (their streams are in stored results) ----

/// The proxy's public hold-out shuffle: seed XOR the ASCII bytes of "proxy".
std::uint64_t proxyHoldOut(std::uint64_t runSeed);
/// The subset of a capped supervised training (--proxy-examples, --extractor-examples): seed
/// XOR 0x5DEECE66D (java.util.Random's multiplier, an arbitrary odd constant here).
std::uint64_t trainingSubset(std::uint64_t seed);
/// A text run's language-model initialisation and pretraining seeds from its mixture seed
/// (two fixed primes keep them apart; arithmetic modulo 2^64).
std::uint64_t textModelInit(std::uint64_t mixtureSeed);
std::uint64_t textPretraining(std::uint64_t mixtureSeed);
/// The words of random search's std::seed_seq: the seed's low and high 32 bits, then 3.
std::array<std::uint32_t, 3> randomSearchWords(std::uint64_t seed);

}  // namespace dpmix::seeds
