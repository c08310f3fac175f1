#pragma once
// The two random parts of a one-run audit besides the mechanism (docs/AUDIT.md, "One-run audits"):
// which canaries are included (each independently with probability 1/2 — the bound of
// one_run_bound.h assumes exactly that), and the auditor's guesses from the canaries' scores
// (a post-processing of the trained model: the rule never sees the inclusion vector).
#include "engine/privacy/mechanism_random.h"

#include <cstdint>
#include <span>
#include <vector>

namespace dpmix::privacy {

enum class MembershipGuess : std::int8_t { Out = -1, Abstain = 0, In = 1 };

struct OneRunGuesses {
    std::vector<MembershipGuess> guess;  // one per canary
    long long in = 0, out = 0;           // k₊ and k₋ as made
    long long made() const { return in + out; }
};

/// Higher score = more likely included. Canaries are ordered by score, highest first, ties by the
/// lower index first; the first kPlus are guessed in, the last kMinus out, the rest abstain.
/// Throws std::invalid_argument for kPlus or kMinus < 0, kPlus + kMinus > scores.size() or a
/// NaN score (a caller validates its options and scores first).
OneRunGuesses guessMembership(std::span<const double> scores, long long kPlus, long long kMinus);

/// v: guesses "in" of included canaries plus guesses "out" of excluded ones. `included` holds 0/1,
/// one per canary; throws std::invalid_argument when the sizes differ.
long long countCorrectGuesses(const OneRunGuesses& guesses, std::span<const std::uint8_t> included);

/// m independent fair coins from `rng`: 1 = the canary is in the training set.
std::vector<std::uint8_t> drawInclusion(long long canaries, MechanismRng& rng);

}  // namespace dpmix::privacy
