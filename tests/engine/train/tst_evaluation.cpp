// AUC (Mann–Whitney, ties ½) against a brute-force pairwise count, and the other metrics
// against hand-computed values.
#include "engine/train/evaluation.h"

#include "tests/support/unit_test.h"

#include <cmath>
#include <limits>
#include <random>
#include <string>

using namespace dpmix::train;

namespace {

// The definition: over all (positive, negative) pairs, 1 if the positive scores higher, ½ on a tie.
double bruteForceAuc(const std::vector<double>& s, const std::vector<int>& y) {
    double wins = 0, pairs = 0;
    for (std::size_t i = 0; i < s.size(); ++i)
        for (std::size_t j = 0; j < s.size(); ++j)
            if (y[i] == 1 && y[j] == 0) {
                pairs += 1;
                wins += s[i] > s[j] ? 1.0 : (s[i] == s[j] ? 0.5 : 0.0);
            }
    return wins / pairs;
}

}  // namespace

class TestEvaluation : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void aucHandExample() {
        // Pairs (pos, neg): (0.35,0.1) win, (0.35,0.4) loss, (0.8,0.1) win, (0.8,0.4) win → 3/4.
        std::vector<double> s{0.1, 0.4, 0.35, 0.8};
        std::vector<int> y{0, 0, 1, 1};
        QCOMPARE(*rocAuc(s, y), 0.75);
        // All tied: every pair counts ½.
        std::vector<double> tied{0.3, 0.3, 0.3};
        std::vector<int> ty{1, 0, 1};
        QCOMPARE(*rocAuc(tied, ty), 0.5);
    }

    void aucMatchesBruteForceWithTies() {
        for (unsigned seed = 1; seed <= 200; ++seed) {
            std::mt19937 rng(seed);
            const int n = 2 + static_cast<int>(rng() % 60);
            std::vector<double> s(n);
            std::vector<int> y(n);
            for (int i = 0; i < n; ++i) {
                s[i] = static_cast<double>(rng() % 7) / 7.0;  // few distinct values: many ties
                y[i] = static_cast<int>(rng() % 2);
            }
            y[0] = 0;
            y[1] = 1;
            DPMIX_COMPARE_NEAR(*rocAuc(s, y), bruteForceAuc(s, y), 1e-12);
        }
    }

    void aucErrors() {
        std::vector<double> s{0.1, 0.2};
        std::vector<int> onlyPos{1, 1}, bad{0, 2}, one{1};
        QVERIFY(!rocAuc(s, onlyPos).ok());
        QVERIFY(rocAuc(s, onlyPos).error().message.find("2 positives, 0 negatives") != std::string::npos);
        QVERIFY(rocAuc(s, bad).error().message.find("index 1") != std::string::npos);
        QVERIFY(!rocAuc(s, one).ok());
    }

    void macroAucSkipsUndefinedClasses() {
        // 4 examples × 3 classes; class 2 has only negatives.
        std::vector<double> s{0.1, 0.9, 0.5, 0.4, 0.8, 0.5, 0.35, 0.2, 0.5, 0.8, 0.1, 0.5};
        std::vector<int> y{0, 1, 0, 0, 1, 0, 1, 0, 0, 1, 0, 0};
        auto m = macroAuc(s, y, 3);
        QVERIFY(m.ok());
        QCOMPARE(m->classesUsed, 2);
        QCOMPARE(m->perClass[0], 0.75);  // the hand example above
        QCOMPARE(m->perClass[1], 1.0);   // positives 0.9, 0.8 above negatives 0.2, 0.1
        QVERIFY(std::isnan(m->perClass[2]));
        QCOMPARE(m->macro, 0.875);
        QVERIFY(!macroAuc(s, y, 5).ok());
    }

    void collapsedOutputsAreNamed() {
        QCOMPARE(collapsedOutputs(std::vector<float>{}), std::string());
        QCOMPARE(collapsedOutputs(std::vector<float>{0.3f}), std::string());  // one logit: nothing to compare
        // Standard deviation of {1, 2}: 0.5; of {0, 0.001}: 0.0005 (at most kConstantLogitStd = 0.001).
        QCOMPARE(collapsedOutputs(std::vector<float>{1.0f, 2.0f}), std::string());
        QCOMPARE(collapsedOutputs(std::vector<float>{-1.5f, -1.5f, -1.5f}),
                 std::string("constant outputs: 3 logits all -1.5 (standard deviation 0)"));
        QCOMPARE(collapsedOutputs(std::vector<float>{0.0f, 0.001f}),
                 std::string("constant outputs: 2 logits all 0.0005 (standard deviation 0.0005)"));
        QCOMPARE(collapsedOutputs(std::vector<float>{0.0f, 0.01f}), std::string());
        const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
        QCOMPARE(collapsedOutputs(std::vector<float>{1.0f, nan, 2.0f, -inf}),
                 std::string("non-finite outputs: 2 of 4 logits NaN or infinite"));
        // σ(40) = 1 − 4e-18 and σ(−200) = 1e-87: exactly 1 and 0 in float; σ(5) = 0.9933 is not.
        QCOMPARE(collapsedOutputs(std::vector<float>{40.0f, -200.0f, 60.0f}),
                 std::string("saturated outputs: all 3 probabilities exactly 0 or 1 in float"));
        QCOMPARE(collapsedOutputs(std::vector<float>{40.0f, -200.0f, 5.0f}), std::string());
    }

    void meanStdAndPerplexity() {
        std::vector<double> v{2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0};  // mean 5, Σ(x−5)² = 32
        auto ms = meanAndStd(v);
        QCOMPARE(ms->mean, 5.0);
        DPMIX_COMPARE_NEAR(ms->std, std::sqrt(32.0 / 7.0), 1e-12);
        QCOMPARE(meanAndStd(std::vector<double>{3.0})->std, 0.0);
        QVERIFY(!meanAndStd(std::vector<double>{}).ok());
        // NLLs ln 2 and ln 8: mean ln 4, perplexity 4.
        DPMIX_COMPARE_NEAR(*perplexity(std::vector<double>{std::log(2.0), std::log(8.0)}), 4.0, 1e-12);
        QVERIFY(!perplexity(std::vector<double>{-1.0}).ok());
        QVERIFY(!perplexity(std::vector<double>{}).ok());
    }
};

QTEST_APPLESS_MAIN(TestEvaluation)
#include "tst_evaluation.moc"
