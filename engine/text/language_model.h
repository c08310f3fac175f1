#pragma once
// What every language-model proxy offers: p(token | preceding tokens) over a fixed vocabulary.
// The n-gram proxies implement it now; a small causal transformer may later.
//
// Scoring convention (shared by perplexity, the mixture-objective inputs and the proxies' own
// training): a document's token ids x_1..x_L are preceded by (order − 1) BOS ids and followed by
// one EOS id; the scored positions are x_1..x_L, EOS — so a document of L tokens has L + 1 scored
// positions, and the end of the document is part of its likelihood. BOS is never predicted.
#include <cstddef>
#include <span>
#include <vector>

namespace dpmix::text {

using TokenId = int;

/// The ids a model predicts: every id in [0, size) is an outcome (BOS included, with whatever
/// small probability the model gives it), so probabilities sum to 1 over [0, size).
struct Vocabulary {
    int size = 0;
    TokenId bos = 1;
    TokenId eos = 2;
};

class LanguageModel {
public:
    virtual ~LanguageModel() = default;
    virtual const Vocabulary& vocabulary() const = 0;
    /// n: the model looks at the last n − 1 tokens of the context.
    virtual int order() const = 0;
    /// p(token | context); `context` ends with the token just before `token` (BOS-padded as above;
    /// a shorter context than n − 1 tokens is used as far as it goes). token must be in [0, size).
    virtual double probability(std::span<const TokenId> context, TokenId token) const = 0;
};

/// p(w | ·) = 1 / V: the reference model (its perplexity is exactly V).
class UniformLanguageModel final : public LanguageModel {
public:
    explicit UniformLanguageModel(Vocabulary vocabulary) : vocabulary_(vocabulary) {}
    const Vocabulary& vocabulary() const override { return vocabulary_; }
    int order() const override { return 1; }
    double probability(std::span<const TokenId>, TokenId) const override { return 1.0 / vocabulary_.size; }

private:
    Vocabulary vocabulary_;
};

/// The scored sequence of one document for a model of order n: (n − 1) BOS, the tokens, EOS.
/// Position p ≥ n − 1 of the result is scored with context [0, p).
std::vector<TokenId> paddedSequence(std::span<const TokenId> tokens, const Vocabulary& vocabulary, int order);

/// Number of scored positions of a document of `tokens` tokens under a cap (0 = no cap):
/// min(tokens + 1, cap). The cap keeps the first positions.
std::size_t scoredPositions(std::size_t tokens, std::size_t maxPositions);

/// p_model(w_t | w_<t) for the first scoredPositions(tokens.size(), maxPositions) positions.
std::vector<double> positionProbabilities(const LanguageModel& model, std::span<const TokenId> tokens,
                                          std::size_t maxPositions = 0);

}  // namespace dpmix::text
