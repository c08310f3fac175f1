#include "engine/privacy/one_run_guesses.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

namespace dpmix::privacy {

OneRunGuesses guessMembership(std::span<const double> scores, long long kPlus, long long kMinus) {
    const auto m = static_cast<long long>(scores.size());
    if (kPlus < 0 || kMinus < 0 || kPlus > m - kMinus)
        throw std::invalid_argument("guessMembership: k+ = " + std::to_string(kPlus) +
                                    " and k- = " + std::to_string(kMinus) + " for " + std::to_string(m) + " canaries");
    for (double s : scores)
        if (std::isnan(s)) throw std::invalid_argument("guessMembership: a score is NaN");
    std::vector<std::size_t> order(scores.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    // One total order (score descending, index ascending), so the result never depends on the sort.
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return scores[a] != scores[b] ? scores[a] > scores[b] : a < b; });
    OneRunGuesses g;
    g.guess.assign(scores.size(), MembershipGuess::Abstain);
    for (long long i = 0; i < kPlus; ++i) g.guess[order[static_cast<std::size_t>(i)]] = MembershipGuess::In;
    for (long long i = m - kMinus; i < m; ++i) g.guess[order[static_cast<std::size_t>(i)]] = MembershipGuess::Out;
    g.in = kPlus;
    g.out = kMinus;
    return g;
}

long long countCorrectGuesses(const OneRunGuesses& guesses, std::span<const std::uint8_t> included) {
    if (guesses.guess.size() != included.size())
        throw std::invalid_argument("countCorrectGuesses: " + std::to_string(guesses.guess.size()) + " guesses for " +
                                    std::to_string(included.size()) + " canaries");
    long long correct = 0;
    for (std::size_t i = 0; i < included.size(); ++i) {
        const auto g = guesses.guess[i];
        if ((g == MembershipGuess::In && included[i] != 0) || (g == MembershipGuess::Out && included[i] == 0))
            ++correct;
    }
    return correct;
}

std::vector<std::uint8_t> drawInclusion(long long canaries, MechanismRng& rng) {
    std::vector<std::uint8_t> included(static_cast<std::size_t>(std::max(0LL, canaries)));
    for (auto& bit : included) bit = static_cast<std::uint8_t>(rng() >> 63);  // the top bit: a fair coin
    return included;
}

}  // namespace dpmix::privacy
