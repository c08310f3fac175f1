#include "engine/text/language_model.h"

#include <algorithm>

namespace dpmix::text {

std::vector<TokenId> paddedSequence(std::span<const TokenId> tokens, const Vocabulary& vocabulary, int order) {
    const std::size_t pad = order > 1 ? static_cast<std::size_t>(order - 1) : 0;
    std::vector<TokenId> sequence;
    sequence.reserve(pad + tokens.size() + 1);
    sequence.insert(sequence.end(), pad, vocabulary.bos);
    sequence.insert(sequence.end(), tokens.begin(), tokens.end());
    sequence.push_back(vocabulary.eos);
    return sequence;
}

std::size_t scoredPositions(std::size_t tokens, std::size_t maxPositions) {
    const std::size_t all = tokens + 1;  // + EOS
    return maxPositions == 0 ? all : std::min(all, maxPositions);
}

std::vector<double> positionProbabilities(const LanguageModel& model, std::span<const TokenId> tokens,
                                          std::size_t maxPositions) {
    const std::vector<TokenId> sequence = paddedSequence(tokens, model.vocabulary(), model.order());
    const std::size_t first = sequence.size() - tokens.size() - 1;
    const std::size_t count = scoredPositions(tokens.size(), maxPositions);
    std::vector<double> out(count);
    const std::span<const TokenId> all(sequence);
    for (std::size_t i = 0; i < count; ++i) {
        const std::size_t p = first + i;
        out[i] = model.probability(all.first(p), sequence[p]);
    }
    return out;
}

}  // namespace dpmix::text
