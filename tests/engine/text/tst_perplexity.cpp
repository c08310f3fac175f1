// Perplexity and λ-mixture perplexity against closed forms.
#include "engine/text/perplexity.h"
#include "tests/support/unit_test.h"

#include <cmath>

using namespace dpmix::text;

namespace {

// A unigram model with a fixed table: p(w | ·) = table[w].
class TableModel final : public LanguageModel {
public:
    TableModel(Vocabulary vocabulary, std::vector<double> table) : vocabulary_(vocabulary), table_(std::move(table)) {}
    const Vocabulary& vocabulary() const override { return vocabulary_; }
    int order() const override { return 1; }
    double probability(std::span<const TokenId>, TokenId token) const override { return table_[token]; }

private:
    Vocabulary vocabulary_;
    std::vector<double> table_;
};

}  // namespace

class TestPerplexity : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void uniformModelHasPerplexityV() {
        for (const int v : {2, 7, 4000}) {
            const UniformLanguageModel uniform({v, 0, 1});
            const std::vector<std::vector<TokenId>> docs{{1, 1, 0}, {}, {v - 1, 0, 1, 1, 1, 1, 1}};
            auto ppl = perplexity(uniform, docs);
            QVERIFY(ppl.ok());
            DPMIX_COMPARE_NEAR(*ppl, v, 1e-9 * v);
            auto capped = perplexity(uniform, docs, 2);
            QVERIFY(capped.ok());
            DPMIX_COMPARE_NEAR(*capped, v, 1e-9 * v);
        }
    }

    // V = 4 (bos 3, eos 2); A = (1/2, 1/4, 1/8, 1/8), B uniform. Document [0, 1] → positions 0, 1, EOS.
    // λ = (½, ½): p = (3/8, 1/4, 3/16); perplexity = (3/8 · 1/4 · 3/16)^(−1/3) = (9/512)^(−1/3).
    // A alone: (1/2 · 1/4 · 1/8)^(−1/3) = 64^(1/3) = 4. Capped at 2 positions, A: (1/8)^(−1/2) = √8.
    void mixtureMatchesClosedForm() {
        const Vocabulary vocab{4, 3, 2};
        const TableModel a(vocab, {0.5, 0.25, 0.125, 0.125});
        const UniformLanguageModel b(vocab);
        const LanguageModel* models[] = {&a, &b};
        const std::vector<std::vector<TokenId>> docs{{0, 1}};
        auto mixed = mixturePerplexity(models, Eigen::Vector2d(0.5, 0.5), docs);
        QVERIFY(mixed.ok());
        DPMIX_COMPARE_NEAR(*mixed, std::pow(9.0 / 512.0, -1.0 / 3.0), 1e-12);
        auto onlyA = mixturePerplexity(models, Eigen::Vector2d(1.0, 0.0), docs);
        DPMIX_COMPARE_NEAR(*onlyA, 4.0, 1e-12);
        auto cappedA = perplexity(a, docs, 2);
        DPMIX_COMPARE_NEAR(*cappedA, std::sqrt(8.0), 1e-12);

        // The same from a token matrix (rows = positions, columns = models).
        LmMixtureInputs inputs;
        inputs.tokenProbabilities.resize(3, 2);
        inputs.tokenProbabilities << 0.5, 0.25, 0.25, 0.25, 0.125, 0.25;
        auto fromMatrix = mixturePerplexity(inputs, Eigen::Vector2d(0.5, 0.5));
        QVERIFY(fromMatrix.ok());
        DPMIX_COMPARE_NEAR(*fromMatrix, std::pow(9.0 / 512.0, -1.0 / 3.0), 1e-12);
    }

    void rejectsBadWeightsAndTokens() {
        const UniformLanguageModel u({4, 3, 2});
        const LanguageModel* models[] = {&u, &u};
        const std::vector<std::vector<TokenId>> docs{{0, 1}};
        auto wrongSize = mixturePerplexity(models, Eigen::Vector3d(0.2, 0.3, 0.5), docs);
        QVERIFY(!wrongSize.ok());
        QVERIFY(wrongSize.error().message.find("got 3 weights, expected 2") != std::string::npos);
        auto negative = mixturePerplexity(models, Eigen::Vector2d(1.5, -0.5), docs);
        QVERIFY(!negative.ok());
        QVERIFY(negative.error().message.find("λ[1]") != std::string::npos);
        QVERIFY(!mixturePerplexity(models, Eigen::Vector2d(0.5, 0.6), docs).ok());
        const std::vector<std::vector<TokenId>> outside{{0, 9}};
        auto badToken = perplexity(u, outside);
        QVERIFY(!badToken.ok());
        QVERIFY(badToken.error().message.find("document 0, token 1: id 9") != std::string::npos);
        QVERIFY(!perplexity(u, std::vector<std::vector<TokenId>>{}).ok());
    }
};

QTEST_APPLESS_MAIN(TestPerplexity)
#include "tst_perplexity.moc"
