#include "engine/text/kneser_ney_model.h"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>

namespace dpmix::text {
namespace {

std::uint64_t lowMask(int bits) { return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1; }

// Sorts keys and turns them into (unique key, multiplicity) pairs.
void countSorted(std::vector<std::uint64_t>& keys, std::vector<std::uint64_t>& unique,
                 std::vector<std::uint64_t>& counts) {
    std::sort(keys.begin(), keys.end());
    unique.clear();
    counts.clear();
    for (std::size_t i = 0; i < keys.size();) {
        std::size_t j = i + 1;
        while (j < keys.size() && keys[j] == keys[i]) ++j;
        unique.push_back(keys[i]);
        counts.push_back(j - i);
        i = j;
    }
}

// The bits one token id takes in a key, once the order and the vocabulary are checked: an order of
// 1 to 6 whose n ids fit a 64-bit key, and BOS and EOS inside the vocabulary.
Result<int> keyBits(int n, const Vocabulary& vocabulary) {
    if (n < 1 || n > 6) return Error{"n-gram order: got " + std::to_string(n) + ", expected an integer from 1 to 6"};
    if (vocabulary.size < 2)
        return Error{"vocabulary size: got " + std::to_string(vocabulary.size) + ", expected at least 2"};
    for (const auto& [name, id] : {std::pair{"BOS id", vocabulary.bos}, std::pair{"EOS id", vocabulary.eos}})
        if (id < 0 || id >= vocabulary.size)
            return Error{std::string(name) + ": got " + std::to_string(id) + ", expected an id in [0, " +
                         std::to_string(vocabulary.size) + ")"};
    const int bits = std::max(1, static_cast<int>(std::bit_width(static_cast<unsigned>(vocabulary.size - 1))));
    if (n * bits > 64)
        return Error{"n-gram order: " + std::to_string(n) + " × " + std::to_string(bits) + " bits per id (vocabulary " +
                     std::to_string(vocabulary.size) + ") does not fit a 64-bit key; expected order ≤ " +
                     std::to_string(64 / bits)};
    return bits;
}

}  // namespace

Result<KneserNeyModel> trainKneserNey(std::span<const std::vector<TokenId>> documents, const Vocabulary& vocabulary,
                                      const KneserNeyOptions& options, const CancellationToken& cancel) {
    const int n = options.order;
    auto keyBitsOrError = keyBits(n, vocabulary);
    if (!keyBitsOrError) return keyBitsOrError.error();
    const int bits = *keyBitsOrError;

    KneserNeyModel model;
    model.vocabulary_ = vocabulary;
    model.bits_ = bits;
    model.tables_.resize(static_cast<std::size_t>(n));

    // Highest order: one key per scored position (raw counts).
    std::vector<std::uint64_t> keys;
    const std::uint64_t fullMask = lowMask(n * bits);
    for (std::size_t d = 0; d < documents.size(); ++d) {
        throwIfCancelled(cancel);
        const auto& doc = documents[d];
        for (std::size_t t = 0; t < doc.size(); ++t)
            if (doc[t] < 0 || doc[t] >= vocabulary.size)
                return Error{"training document " + std::to_string(d) + ", token " + std::to_string(t) + ": id " +
                             std::to_string(doc[t]) + " is outside the vocabulary [0, " +
                             std::to_string(vocabulary.size) + ")"};
        const std::vector<TokenId> seq = paddedSequence(doc, vocabulary, n);
        std::uint64_t key = 0;
        for (std::size_t p = 0; p < seq.size(); ++p) {
            key = ((key << bits) | static_cast<std::uint64_t>(seq[p])) & fullMask;
            if (p + 1 >= static_cast<std::size_t>(n)) keys.push_back(key);
        }
    }
    model.trainingPositions_ = keys.size();
    countSorted(keys, model.tables_[n - 1].keys, model.tables_[n - 1].counts);

    // Lower orders: continuation counts = number of distinct (m+1)-gram types with this suffix.
    for (int m = n - 1; m >= 1; --m) {
        throwIfCancelled(cancel);
        const auto& higher = model.tables_[m].keys;
        keys.assign(higher.size(), 0);
        const std::uint64_t mask = lowMask(m * bits);
        for (std::size_t i = 0; i < higher.size(); ++i) keys[i] = higher[i] & mask;
        countSorted(keys, model.tables_[m - 1].keys, model.tables_[m - 1].counts);
    }
    keys = {};

    // Discounts from each order's counts of counts, then per-context 1/c(h·) and γ(h). Keys sort
    // by context first (oldest id in the high bits), so each context is one contiguous run.
    for (auto& table : model.tables_) {
        std::array<std::uint64_t, 4> countOfCounts{};
        for (const std::uint64_t c : table.counts)
            if (c >= 1 && c <= 4) ++countOfCounts[c - 1];
        table.discounts = estimateKneserNeyDiscounts(countOfCounts);
        for (std::size_t i = 0; i < table.keys.size();) {
            const std::uint64_t context = table.keys[i] >> bits;
            std::uint64_t total = 0, n1 = 0, n2 = 0, n3 = 0;
            std::size_t j = i;
            for (; j < table.keys.size() && (table.keys[j] >> bits) == context; ++j) {
                const std::uint64_t c = table.counts[j];
                total += c;
                (c == 1 ? n1 : c == 2 ? n2 : n3) += 1;
            }
            const auto& d = table.discounts.d;
            const double inverse = 1.0 / static_cast<double>(total);
            table.contextKeys.push_back(context);
            table.contexts.push_back({inverse, (d[0] * n1 + d[1] * n2 + d[2] * n3) * inverse});
            i = j;
        }
        table.keyIndex.build(table.keys);
        table.contextIndex.build(table.contextKeys);
    }
    return model;
}

std::uint64_t KneserNeyModel::lookupCount(const OrderTable& table, std::uint64_t key) const {
    const std::size_t at = table.keyIndex.find(table.keys, key);
    return at == KeyIndex::npos ? 0 : table.counts[at];
}

double KneserNeyModel::probability(std::span<const TokenId> context, TokenId token) const {
    if (token < 0 || token >= vocabulary_.size)
        throw std::out_of_range("KneserNeyModel::probability: token id " + std::to_string(token) +
                                " outside the vocabulary");
    double p = 1.0 / vocabulary_.size;
    std::uint64_t contextKey = 0;  // the last m − 1 context ids, oldest in the high bits
    for (int m = 1; m <= order(); ++m) {
        if (m > 1) {
            if (context.size() < static_cast<std::size_t>(m - 1)) break;
            const TokenId older = context[context.size() - static_cast<std::size_t>(m - 1)];
            if (older < 0 || older >= vocabulary_.size) break;  // cannot have been seen
            contextKey |= static_cast<std::uint64_t>(older) << (bits_ * (m - 2));
        }
        const OrderTable& table = tables_[static_cast<std::size_t>(m - 1)];
        const std::size_t at = table.contextIndex.find(table.contextKeys, contextKey);
        // An unseen context at order m implies unseen longer contexts too (their suffixes are stored).
        if (at == KeyIndex::npos) break;
        const ContextEntry& entry = table.contexts[at];
        const std::uint64_t c = lookupCount(table, (contextKey << bits_) | static_cast<std::uint64_t>(token));
        const double discounted = std::max(static_cast<double>(c) - table.discounts.forCount(c), 0.0);
        p = discounted * entry.inverseTotal + entry.gamma * p;
    }
    return p;
}

std::uint64_t KneserNeyModel::count(std::span<const TokenId> ngram) const {
    if (ngram.empty() || ngram.size() > tables_.size()) return 0;
    std::uint64_t key = 0;
    for (const TokenId id : ngram) {
        if (id < 0 || id >= vocabulary_.size) return 0;
        key = (key << bits_) | static_cast<std::uint64_t>(id);
    }
    return lookupCount(tables_[ngram.size() - 1], key);
}

}  // namespace dpmix::text
