// Modified Kneser–Ney: normalisation over the vocabulary, hand-computed probabilities on tiny
// corpora (counts, continuation counts, discounts written out below), discount estimation.
#include "engine/text/kneser_ney_model.h"
#include "tests/support/unit_test.h"

#include <map>
#include <random>
#include <set>

using namespace dpmix::text;
using dpmix::test_support::str;

namespace {

double sumOverVocabulary(const KneserNeyModel& model, const std::vector<TokenId>& context) {
    double sum = 0.0;
    for (TokenId w = 0; w < model.vocabulary().size; ++w) sum += model.probability(context, w);
    return sum;
}

// Brute-force modified Kneser–Ney straight from the definitions (maps of id vectors, recursion),
// sharing nothing with the packed-key implementation: the reference for orders 3 and 4.
class BruteForceKneserNey {
public:
    BruteForceKneserNey(const std::vector<std::vector<TokenId>>& docs, int v, int n) : v_(v), n_(n), counts_(n + 1) {
        for (const auto& doc : docs) {
            std::vector<TokenId> seq(static_cast<std::size_t>(n - 1), 0);  // BOS = 0
            seq.insert(seq.end(), doc.begin(), doc.end());
            seq.push_back(1);  // EOS = 1
            for (std::size_t p = static_cast<std::size_t>(n - 1); p < seq.size(); ++p)
                ++counts_[n][std::vector<TokenId>(seq.begin() + static_cast<long>(p) - (n - 1),
                                                  seq.begin() + static_cast<long>(p) + 1)];
        }
        for (int m = n - 1; m >= 1; --m) {  // continuation counts: distinct left neighbours
            std::map<std::vector<TokenId>, std::set<TokenId>> left;
            for (const auto& [gram, c] : counts_[m + 1])
                left[std::vector<TokenId>(gram.begin() + 1, gram.end())].insert(gram[0]);
            for (const auto& [gram, set] : left) counts_[m][gram] = set.size();
        }
        discounts_.resize(static_cast<std::size_t>(n + 1));
        for (int m = 1; m <= n; ++m) {
            double r[5] = {0, 0, 0, 0, 0};
            for (const auto& [gram, c] : counts_[m])
                if (c <= 4) r[c] += 1;
            if (r[1] > 0 && r[2] > 0 && r[3] > 0 && r[4] > 0) {
                const double y = r[1] / (r[1] + 2 * r[2]);
                discounts_[m] = {std::clamp(1 - 2 * y * r[2] / r[1], 0.0, 1.0),
                                 std::clamp(2 - 3 * y * r[3] / r[2], 0.0, 2.0),
                                 std::clamp(3 - 4 * y * r[4] / r[3], 0.0, 3.0)};
            } else {
                const double d = r[1] > 0 ? r[1] / (r[1] + 2 * r[2]) : 0.5;
                discounts_[m] = {d, d, d};
            }
        }
    }
    // p_m(w | h), h = the last m − 1 ids.
    double p(int m, std::vector<TokenId> h, TokenId w) const {
        if (m == 0) return 1.0 / v_;
        const std::vector<TokenId> shorter(h.begin() + (h.empty() ? 0 : 1), h.end());
        double total = 0, n1 = 0, n2 = 0, n3 = 0, c = 0;
        for (const auto& [gram, count] : counts_[m]) {
            if (!std::equal(h.begin(), h.end(), gram.begin())) continue;
            total += count;
            (count == 1 ? n1 : count == 2 ? n2 : n3) += 1;
            if (gram.back() == w) c = static_cast<double>(count);
        }
        if (total == 0) return p(m - 1, shorter, w);
        const auto& d = discounts_[static_cast<std::size_t>(m)];
        const double dc = c == 0 ? 0 : d[c >= 3 ? 2 : static_cast<std::size_t>(c) - 1];
        return std::max(c - dc, 0.0) / total + (d[0] * n1 + d[1] * n2 + d[2] * n3) / total * p(m - 1, shorter, w);
    }

private:
    int v_, n_;
    std::vector<std::map<std::vector<TokenId>, std::size_t>> counts_;
    std::vector<std::array<double, 3>> discounts_;
};

}  // namespace

class TestKneserNey : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void probabilitiesSumToOne_data() {
        QTest::addColumn<int>("order");
        for (int n = 1; n <= 4; ++n) QTest::newRow(str("order ", n).c_str()) << n;
    }
    void probabilitiesSumToOne() {
        QFETCH(int, order);
        // Skewed random corpus over 40 ids (ids 38, 39 never occur: zero-count outcomes).
        const Vocabulary vocab{40, 0, 1};
        std::mt19937_64 gen(7);
        std::vector<std::vector<TokenId>> docs(60);
        for (auto& doc : docs) {
            const int length = 1 + static_cast<int>(gen() % 30);
            for (int t = 0; t < length; ++t) {
                const auto r = gen() % 100;  // Zipf-like: small ids far more frequent
                doc.push_back(2 + static_cast<TokenId>(r < 50 ? r % 4 : r < 80 ? r % 12 : r % 36));
            }
        }
        auto model = trainKneserNey(docs, vocab, {order});
        QVERIFY2(model.ok(), model.ok() ? "" : model.error().message.c_str());
        const auto& longDoc = *std::find_if(docs.begin(), docs.end(), [](const auto& d) { return d.size() >= 2; });
        const std::vector<std::vector<TokenId>> contexts{
            {},                        // no context: the lower orders only
            {0, 0, 0},                 // start of a document
            {docs[0][0]},              // one seen token
            {longDoc[0], longDoc[1]},  // a seen bigram
            {5, 2, 3},                 // arbitrary, possibly unseen trigram context
            {39, 39, 39},              // never-seen ids
            {2, 3, 4, 5, 2, 3},        // longer than any order needs
        };
        for (const auto& context : contexts) {
            const double sum = sumOverVocabulary(*model, context);
            QVERIFY2(std::abs(sum - 1.0) < 1e-9, str("sum ", dpmix::test_support::Exact{sum}).c_str());
        }
        // Every outcome has positive probability (the uniform base), even an unseen id.
        QVERIFY(model->probability(std::vector<TokenId>{2, 2, 2}, 39) > 0.0);
    }

    void matchesBruteForceAtOrders3And4() {
        const int v = 7;  // 0 = BOS, 1 = EOS, 2..6 words
        std::mt19937_64 gen(5);
        std::vector<std::vector<TokenId>> docs(400);
        for (auto& doc : docs) {
            const int length = static_cast<int>(gen() % 12);
            for (int t = 0; t < length; ++t)
                doc.push_back(2 + static_cast<TokenId>(gen() % 3 == 0 ? gen() % 5 : gen() % 2));
        }
        for (const int n : {3, 4}) {
            auto model = trainKneserNey(docs, {v, 0, 1}, {n});
            QVERIFY(model.ok());
            // The full formulas at orders 2..n (with only 7 unigram types, order 1 lacks some n_r and falls back).
            for (int m = 2; m <= n; ++m) QVERIFY(!model->discounts(m).fallback);
            const BruteForceKneserNey reference(docs, v, n);
            std::vector<TokenId> context(static_cast<std::size_t>(n - 1), 0);
            int compared = 0;
            // Every context over the 7 ids (7^(n−1) of them) and every outcome.
            for (long code = 0; code < static_cast<long>(std::pow(v, n - 1)); ++code) {
                long rest = code;
                for (auto& id : context) {
                    id = static_cast<TokenId>(rest % v);
                    rest /= v;
                }
                for (TokenId w = 0; w < v; ++w) {
                    const double expected = reference.p(n, context, w);
                    QVERIFY2(std::abs(model->probability(context, w) - expected) < 1e-12,
                             str("order ", n, " context code ", code, " token ", w).c_str());
                    ++compared;
                }
            }
            QCOMPARE(compared, static_cast<int>(std::pow(v, n)));
        }
    }

    // Order 1 on raw counts, the full modified-KN discount formulas.
    // Vocabulary: 0 = BOS, 1 = EOS, a = 2, b = 3, c = 4, d = 5 (V = 6). One document "a b b c c c d d d d".
    // Scored positions: the 10 tokens + EOS: c(a)=1, c(b)=2, c(c)=3, c(d)=4, c(EOS)=1, total 11.
    // Counts of counts: n1 = 2 (a, EOS), n2 = 1, n3 = 1, n4 = 1.
    // Y = 2/(2+2) = 1/2; D1 = 1 − 2·½·1/2 = 1/2; D2 = 2 − 3·½·1/1 = 1/2; D3+ = 3 − 4·½·1/1 = 1.
    // γ = (D1·N1 + D2·N2 + D3+·N3+)/11 = (½·2 + ½·1 + 1·2)/11 = 3.5/11; base 1/6.
    void handComputedUnigramModifiedDiscounts() {
        const Vocabulary vocab{6, 0, 1};
        const std::vector<std::vector<TokenId>> docs{{2, 3, 3, 4, 4, 4, 5, 5, 5, 5}};
        auto model = trainKneserNey(docs, vocab, {1});
        QVERIFY(model.ok());
        QVERIFY(!model->discounts(1).fallback);
        QCOMPARE(model->discounts(1).d[0], 0.5);
        QCOMPARE(model->discounts(1).d[1], 0.5);
        QCOMPARE(model->discounts(1).d[2], 1.0);
        const double gammaBase = 3.5 / 11.0 / 6.0;
        const std::vector<TokenId> none;
        DPMIX_COMPARE_NEAR(model->probability(none, 2), (0.5 / 11 + gammaBase), 1e-15);
        DPMIX_COMPARE_NEAR(model->probability(none, 3), (1.5 / 11 + gammaBase), 1e-15);
        DPMIX_COMPARE_NEAR(model->probability(none, 4), (2.0 / 11 + gammaBase), 1e-15);
        DPMIX_COMPARE_NEAR(model->probability(none, 5), (3.0 / 11 + gammaBase), 1e-15);
        DPMIX_COMPARE_NEAR(model->probability(none, 1), (0.5 / 11 + gammaBase), 1e-15);
        DPMIX_COMPARE_NEAR(model->probability(none, 0), gammaBase, 1e-15);
    }

    // Order 2 with continuation counts. Vocabulary: 0 = BOS <s>, 1 = EOS </s>, a = 2, b = 3, c = 4.
    // Documents "a b", "a b a", "b"; bigram events (one BOS of padding):
    //   (<s>,a) (a,b) (b,</s>) | (<s>,a) (a,b) (b,a) (a,</s>) | (<s>,b) (b,</s>)
    // Raw bigram counts: (<s>,a)=2 (a,b)=2 (b,</s>)=2 (b,a)=1 (a,</s>)=1 (<s>,b)=1.
    //   n1 = 3, n2 = 3, n3 = n4 = 0 → fallback D = n1/(n1+2n2) = 3/9 = 1/3.
    // Unigram continuation counts (distinct left neighbours): a {<s>,b} = 2, b {a,<s>} = 2,
    //   </s> {b,a} = 2, <s> = c = 0. Total 6; n1 = 0 → fallback D = 1/2.
    //   γ1 = ½·3/6 = 1/4;  p1(a) = p1(b) = p1(</s>) = 1.5/6 + ¼·⅕ = 3/10;  p1(<s>) = p1(c) = 1/20.
    // Context <s>: a:2, b:1 (total 3, N1 = N2 = 1): γ = (⅓ + ⅓)/3 = 2/9.
    //   p(a|<s>) = (5/3)/3 + 2/9·3/10 = 28/45;  p(b|<s>) = (2/3)/3 + 1/15 = 13/45;  p(c|<s>) = 2/9·1/20 = 1/90.
    // Context a: b:2, </s>:1 → the same numbers; context b: </s>:2, a:1 → the same numbers.
    // Context c was never seen → p(w|c) = p1(w).
    void handComputedBigramContinuationCounts() {
        const Vocabulary vocab{5, 0, 1};
        const TokenId bos = 0, eos = 1, a = 2, b = 3, c = 4;
        const std::vector<std::vector<TokenId>> docs{{a, b}, {a, b, a}, {b}};
        auto model = trainKneserNey(docs, vocab, {2});
        QVERIFY(model.ok());
        QCOMPARE(model->count(std::vector<TokenId>{bos, a}), std::uint64_t{2});
        QCOMPARE(model->count(std::vector<TokenId>{b, a}), std::uint64_t{1});
        QCOMPARE(model->count(std::vector<TokenId>{a}), std::uint64_t{2});
        QCOMPARE(model->count(std::vector<TokenId>{eos}), std::uint64_t{2});
        QCOMPARE(model->count(std::vector<TokenId>{c}), std::uint64_t{0});
        QCOMPARE(model->types(2), std::size_t{6});
        QVERIFY(model->discounts(2).fallback);
        DPMIX_COMPARE_NEAR(model->discounts(2).d[0], 1.0 / 3, 1e-15);
        QCOMPARE(model->discounts(1).d[0], 0.5);

        auto p = [&](TokenId context, TokenId w) { return model->probability(std::vector<TokenId>{context}, w); };
        const double tol = 1e-14;
        DPMIX_COMPARE_NEAR(p(bos, a), 28.0 / 45, tol);
        DPMIX_COMPARE_NEAR(p(bos, b), 13.0 / 45, tol);
        DPMIX_COMPARE_NEAR(p(bos, c), 1.0 / 90, tol);
        DPMIX_COMPARE_NEAR(p(bos, eos), 1.0 / 15, tol);
        DPMIX_COMPARE_NEAR(p(a, b), 28.0 / 45, tol);
        DPMIX_COMPARE_NEAR(p(a, eos), 13.0 / 45, tol);
        DPMIX_COMPARE_NEAR(p(b, eos), 28.0 / 45, tol);
        DPMIX_COMPARE_NEAR(p(b, a), 13.0 / 45, tol);
        DPMIX_COMPARE_NEAR(p(b, b), 1.0 / 15, tol);
        DPMIX_COMPARE_NEAR(p(c, a), 0.3, tol);
        DPMIX_COMPARE_NEAR(p(c, c), 0.05, tol);
        DPMIX_COMPARE_NEAR(model->probability(std::vector<TokenId>{}, bos), 0.05, tol);
        QCOMPARE(model->trainingPositions(), std::uint64_t{9});
    }

    void discountFormulas() {
        // n = (10, 4, 2, 1): Y = 10/18; D1 = 1 − 2·(10/18)·(4/10) = 5/9; D2 = 2 − 3·(10/18)·(2/4) = 7/6;
        // D3+ = 3 − 4·(10/18)·(1/2) = 17/9.
        const auto d = estimateKneserNeyDiscounts({10, 4, 2, 1});
        QVERIFY(!d.fallback);
        DPMIX_COMPARE_NEAR(d.d[0], 5.0 / 9, 1e-15);
        DPMIX_COMPARE_NEAR(d.d[1], 7.0 / 6, 1e-15);
        DPMIX_COMPARE_NEAR(d.d[2], 17.0 / 9, 1e-15);
        QCOMPARE(d.forCount(0), 0.0);
        QCOMPARE(d.forCount(1), d.d[0]);
        QCOMPARE(d.forCount(7), d.d[2]);
        // n = (1, 10, 1, 1): Y = 1/21, D1 = 1 − 20/21 = 1/21 (not clamped); D2 = 2 − 3/21·1/10 = 2 − 1/70.
        const auto e = estimateKneserNeyDiscounts({1, 10, 1, 1});
        DPMIX_COMPARE_NEAR(e.d[0], 1.0 / 21, 1e-15);
        DPMIX_COMPARE_NEAR(e.d[1], (2.0 - 1.0 / 70), 1e-15);
        // n = (1, 1, 100, 1): D2 = 2 − 3·(1/3)·100 = −98 → clamped to 0.
        const auto f = estimateKneserNeyDiscounts({1, 1, 100, 1});
        QCOMPARE(f.d[1], 0.0);
        // No singletons: the fallback 0.5.
        const auto g = estimateKneserNeyDiscounts({0, 3, 0, 0});
        QVERIFY(g.fallback);
        QCOMPARE(g.d[0], 0.5);
    }

    // The hash index finds exactly the stored keys (brute force against std::set).
    void keyIndexFindsExactlyTheStoredKeys() {
        std::mt19937_64 gen(3);
        std::set<std::uint64_t> stored;
        while (stored.size() < 5000) stored.insert(gen() >> (gen() % 40));  // mixed magnitudes
        const std::vector<std::uint64_t> keys(stored.begin(), stored.end());
        KeyIndex index;
        index.build(keys);
        for (std::size_t i = 0; i < keys.size(); ++i) QCOMPARE(index.find(keys, keys[i]), i);
        for (int t = 0; t < 20000; ++t) {
            const std::uint64_t probe = gen() % 2 ? gen() : gen() >> 50;
            QCOMPARE(index.find(keys, probe) != KeyIndex::npos, stored.count(probe) == 1);
        }
        KeyIndex empty;
        empty.build({});
        QCOMPARE(empty.find({}, 0), KeyIndex::npos);
    }

    void rejectsBadInput() {
        const std::vector<std::vector<TokenId>> docs{{2, 3}, {2, 9}};
        auto outside = trainKneserNey(docs, {5, 0, 1}, {2});
        QVERIFY(!outside.ok());
        QVERIFY2(outside.error().message.find("document 1, token 1: id 9") != std::string::npos,
                 outside.error().message.c_str());
        auto order = trainKneserNey(docs, {10, 0, 1}, {0});
        QVERIFY(!order.ok());
        QVERIFY(order.error().message.find("order: got 0") != std::string::npos);
        // 65536 ids need 16 bits: order 5 does not fit 64 bits.
        auto wide = trainKneserNey(docs, {65536, 0, 1}, {5});
        QVERIFY(!wide.ok());
        QVERIFY2(wide.error().message.find("expected order ≤ 4") != std::string::npos, wide.error().message.c_str());
        auto badBos = trainKneserNey(docs, {10, 12, 1}, {2});
        QVERIFY(!badBos.ok());
        QVERIFY(badBos.error().message.find("BOS id: got 12") != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestKneserNey)
#include "tst_kneser_ney.moc"
