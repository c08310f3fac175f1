#pragma once
// Interpolated modified Kneser–Ney n-gram model (Chen & Goodman 1998), the CPU proxy of one
// public text domain. For the highest order n (raw counts c) and each lower order m < n
// (continuation counts c' = number of distinct tokens seen to the left):
//     p_m(w | h) = max(c(hw) − D_m(c(hw)), 0) / c(h·) + γ_m(h) · p_{m−1}(w | h⁻),
//     γ_m(h) = (D_m1 N1(h·) + D_m2 N2(h·) + D_m3+ N3+(h·)) / c(h·),
// with p_0(w) = 1/V (uniform over the vocabulary, so every id has probability > 0), h⁻ = h minus
// its oldest token, and p_m = p_{m−1} when the context h was never seen. Each p_m sums to 1 over
// the vocabulary because every discount is at most its count (kneser_ney_discounts.h).
// Documents are padded with n − 1 BOS and one EOS (language_model.h), so every lower-order n-gram
// has a left extension and no special case is needed for the start of a document.
//
// Storage: per order, the sorted packed n-gram keys with their counts, and the sorted contexts with
// 1/c(h·) and γ(h); lookups go through a hash index over those arrays (key_index.h). A key packs the ids, oldest first,
// in ceil(log2 V) bits each, so order × bits must fit in 64 (order ≤ 4 for V ≤ 65536).
#include "engine/core/cancellation.h"
#include "engine/core/result.h"
#include "engine/text/key_index.h"
#include "engine/text/kneser_ney_discounts.h"
#include "engine/text/language_model.h"

#include <cstdint>
#include <span>
#include <vector>

namespace dpmix::text {

struct KneserNeyOptions {
    int order = 3;  // n: 1 (unigram) .. 6, within the 64-bit key limit above
};

class KneserNeyModel final : public LanguageModel {
public:
    const Vocabulary& vocabulary() const override { return vocabulary_; }
    int order() const override { return static_cast<int>(tables_.size()); }
    double probability(std::span<const TokenId> context, TokenId token) const override;

    /// The count the model uses for an m-gram (m = ngram.size() in 1..n): raw at m = n,
    /// continuation count below. 0 when unseen.
    std::uint64_t count(std::span<const TokenId> ngram) const;
    /// Discounts of order m (1..n).
    const KneserNeyDiscounts& discounts(int m) const { return tables_.at(static_cast<std::size_t>(m - 1)).discounts; }
    /// Number of distinct m-grams stored at order m.
    std::size_t types(int m) const { return tables_.at(static_cast<std::size_t>(m - 1)).keys.size(); }
    /// Scored positions seen in training (tokens + one EOS per document).
    std::uint64_t trainingPositions() const { return trainingPositions_; }

private:
    friend Result<KneserNeyModel> trainKneserNey(std::span<const std::vector<TokenId>>, const Vocabulary&,
                                                 const KneserNeyOptions&, const CancellationToken&);
    struct ContextEntry {
        double inverseTotal = 0.0;  // 1 / c(h·)
        double gamma = 0.0;         // γ(h)
    };
    struct OrderTable {
        std::vector<std::uint64_t> keys;         // packed m-grams, sorted
        std::vector<std::uint64_t> counts;       // parallel to keys
        std::vector<std::uint64_t> contextKeys;  // packed (m−1)-gram contexts, sorted
        std::vector<ContextEntry> contexts;      // parallel to contextKeys
        KeyIndex keyIndex, contextIndex;         // hash lookups into keys / contextKeys
        KneserNeyDiscounts discounts;
    };
    std::uint64_t lookupCount(const OrderTable& table, std::uint64_t key) const;

    Vocabulary vocabulary_;
    int bits_ = 1;
    std::vector<OrderTable> tables_;  // index m − 1
    std::uint64_t trainingPositions_ = 0;
};

/// Trains on documents of token ids (without BOS/EOS; they are added here). Errors name the
/// option or the document and position of an id outside [0, V). Polls `cancel` per document.
Result<KneserNeyModel> trainKneserNey(std::span<const std::vector<TokenId>> documents, const Vocabulary& vocabulary,
                                      const KneserNeyOptions& options = {}, const CancellationToken& cancel = {});

}  // namespace dpmix::text
