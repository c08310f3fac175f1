// MixMin objectives: hand-derived loss values, closed-form gradients against central finite
// differences (h = 1e-6), the binary BCE vs multi-class relation (docs/ALGORITHMS.md A.2(a)5)
// and input validation.
#include "engine/mixmin/objective.h"
#include "synthetic_proxies.h"
#include "tests/support/unit_test.h"

#include <cmath>
#include <random>

using namespace dpmix::mixmin;
using dpmix::mixmin::testing::randomInteriorLambda;
using namespace dpmix::test_support;
using namespace std::string_literals;

namespace {

// Central differences of ℓ_j in every coordinate (λ moved just off the simplex, still > 0).
Eigen::VectorXd finiteDifference(const MixtureObjective& o, const Eigen::VectorXd& lambda, Index j) {
    const double h = 1e-6;
    Eigen::VectorXd g(lambda.size());
    for (Index i = 0; i < lambda.size(); ++i) {
        Eigen::VectorXd a = lambda, b = lambda;
        a(i) += h;
        b(i) -= h;
        g(i) = (o.exampleLoss(a, j) - o.exampleLoss(b, j)) / (2 * h);
    }
    return g;
}

// Compares every per-example closed-form gradient with finite differences at random λ.
void checkGradientsByFiniteDifferences(const MixtureObjective& o, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    for (int trial = 0; trial < 5; ++trial) {
        const Eigen::VectorXd lambda = randomInteriorLambda(static_cast<int>(o.sources()), rng);
        std::vector<Index> all(static_cast<std::size_t>(o.examples()));
        for (Index j = 0; j < o.examples(); ++j) all[static_cast<std::size_t>(j)] = j;
        RowMatrix g;
        o.exampleGradients(lambda, all, g);
        for (Index j = 0; j < o.examples(); ++j) {
            const Eigen::VectorXd fd = finiteDifference(o, lambda, j);
            const double err = (g.row(j).transpose() - fd).norm();
            QVERIFY2(err <= 1e-6 * std::max(1.0, fd.norm()),
                     str("example ", j, ": closed form vs FD differ by ", err).c_str());
        }
        // The full gradient is the mean of the per-example ones (and matches FD of F).
        const Eigen::VectorXd full = o.gradient(lambda);
        QVERIFY((full - g.colwise().mean().transpose()).norm() < 1e-12 * std::max(1.0, full.norm()));
        const double h = 1e-6;
        for (Index i = 0; i < lambda.size(); ++i) {
            Eigen::VectorXd a = lambda, b = lambda;
            a(i) += h;
            b(i) -= h;
            const double fd = (o.loss(a) - o.loss(b)) / (2 * h);
            QVERIFY(std::abs(fd - full(i)) <= 1e-6 * std::max(1.0, std::abs(fd)));
        }
    }
}

}  // namespace

class TestMixminObjective : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void bceLossByHand() {
        // P = (0.2, 0.6), λ = (1/2, 1/2): f = 0.4.
        Eigen::MatrixXd p(2, 2);
        p << 0.2, 0.6, 0.2, 0.6;
        const auto o = makeBinaryObjective(p, {1, 0}).value();
        const Eigen::Vector2d l(0.5, 0.5);
        QCOMPARE(o.exampleLoss(l, 0), 0.916290731874155);   // −log 0.4
        QCOMPARE(o.exampleLoss(l, 1), 0.5108256237659907);  // −log 0.6
        QCOMPARE(o.loss(l), 0.5 * (0.916290731874155 + 0.5108256237659907));
        RowMatrix g;
        const std::vector<Index> idx{0, 1};
        o.exampleGradients(l, idx, g);
        // y = 1: −P/f = −(0.5, 1.5);  y = 0: +P/(1 − f) = (1/3, 1).
        QVERIFY(std::abs(g(0, 0) + 0.5) < 1e-14 && std::abs(g(0, 1) + 1.5) < 1e-14);
        QVERIFY(std::abs(g(1, 0) - 1.0 / 3) < 1e-14 && std::abs(g(1, 1) - 1.0) < 1e-14);
    }

    void bceClampsTheMixtureProbability() {
        Eigen::MatrixXd p(1, 2);
        p << 0.0, 0.0;
        const auto o = makeBinaryObjective(p, {1}).value();
        QCOMPARE(o.exampleLoss(Eigen::Vector2d(0.5, 0.5), 0), -std::log(1e-6));
    }

    void trueClassAndLanguageLossesByHand() {
        Eigen::MatrixXd q(1, 2);
        q << 0.1, 0.9;
        const auto tc = makeTrueClassObjective(q).value();
        QCOMPARE(tc.exampleLoss(Eigen::Vector2d(0.25, 0.75), 0), 0.35667494393873245);  // −log 0.7

        // −(1/4) log(½e^−10 + ½e^−12)
        Eigen::MatrixXd ll(1, 2);
        ll << -10.0, -12.0;
        const auto seq = makeSequenceObjective(ll, {4}).value();
        DPMIX_COMPARE_NEAR(seq.exampleLoss(Eigen::Vector2d(0.5, 0.5), 0), 2.6415547923792433, 1e-14);

        // Two tokens, mixture probability 0.3 each: −(1/2)(2 log 0.3) = −log 0.3.
        Eigen::MatrixXd tok(2, 2);
        tok << 0.5, 0.1, 0.2, 0.4;
        const auto tk = makeTokenObjective(tok, {0, 2}).value();
        DPMIX_COMPARE_NEAR(tk.exampleLoss(Eigen::Vector2d(0.5, 0.5), 0), 1.2039728043259361, 1e-14);
    }

    void sequenceGradientSurvivesTinyLikelihoods() {
        // LL in the −1000s: exp underflows, the log-space form must not. With λ uniform,
        // g_0 = −(1/L) e^{LL_0} / (½e^{LL_0} + ½e^{LL_1}) = −(1/L) · 2 / (1 + e^{−1}).
        Eigen::MatrixXd ll(1, 2);
        ll << -5000.0, -5001.0;
        const auto o = makeSequenceObjective(ll, {10}).value();
        RowMatrix g;
        const std::vector<Index> idx{0};
        o.exampleGradients(Eigen::Vector2d(0.5, 0.5), idx, g);
        // (LL − lse with |LL| = 5000 carries an absolute rounding error of ~5000 ulp: 1e-11 relative.)
        QVERIFY(std::abs(g(0, 0) + 0.1 * 2.0 / (1.0 + std::exp(-1.0))) < 1e-11);
        QVERIFY(std::abs(g(0, 1) + 0.1 * 2.0 * std::exp(-1.0) / (1.0 + std::exp(-1.0))) < 1e-11);
        QVERIFY(std::isfinite(o.exampleLoss(Eigen::Vector2d(0.5, 0.5), 0)));
    }

    void bceGradientMatchesFiniteDifferences() {
        const auto d = testing::randomBinaryData(40, 6, 11);
        checkGradientsByFiniteDifferences(makeBinaryObjective(d.p, d.y).value(), 1);
    }

    void multiClassGradientMatchesFiniteDifferences() {
        std::mt19937_64 rng(5);
        std::uniform_real_distribution<double> u(0.05, 1.0);
        const int n = 30, k = 5, classes = 4;
        std::vector<Eigen::MatrixXd> probs;
        for (int i = 0; i < k; ++i) {
            Eigen::MatrixXd m(n, classes);
            for (int j = 0; j < n; ++j) {
                for (int c = 0; c < classes; ++c) m(j, c) = u(rng);
                m.row(j) /= m.row(j).sum();
            }
            probs.push_back(m);
        }
        std::vector<int> labels(n);
        for (int j = 0; j < n; ++j) labels[static_cast<std::size_t>(j)] = j % classes;
        const auto q = trueClassProbabilities(probs, labels).value();
        QCOMPARE(q(3, 2), probs[2](3, labels[3]));  // picks the true class of each source
        checkGradientsByFiniteDifferences(makeTrueClassObjective(q).value(), 2);
    }

    void sequenceGradientMatchesFiniteDifferences() {
        std::mt19937_64 rng(7);
        std::uniform_real_distribution<double> u(-60.0, -20.0);
        Eigen::MatrixXd ll(25, 4);
        std::vector<long long> len(25);
        for (int j = 0; j < 25; ++j) {
            for (int i = 0; i < 4; ++i) ll(j, i) = u(rng);
            len[static_cast<std::size_t>(j)] = 5 + j;
        }
        checkGradientsByFiniteDifferences(makeSequenceObjective(ll, len).value(), 3);
    }

    void tokenGradientMatchesFiniteDifferences() {
        std::mt19937_64 rng(9);
        std::uniform_real_distribution<double> u(0.01, 0.9);
        std::vector<Index> offsets{0};
        for (int j = 0; j < 12; ++j) offsets.push_back(offsets.back() + 1 + j % 5);
        Eigen::MatrixXd tok(offsets.back(), 3);
        for (Index t = 0; t < tok.rows(); ++t)
            for (Index i = 0; i < 3; ++i) tok(t, i) = u(rng);
        checkGradientsByFiniteDifferences(makeTokenObjective(tok, offsets).value(), 4);
    }

    void binaryMultiClassFormDiffersFromBceByConstantVector() {
        // Same loss; for y = 0 the gradients differ by 1/(1 − f) · 1, for y = 1 not at all.
        const auto d = testing::randomBinaryData(20, 4, 13);
        const auto bce = makeBinaryObjective(d.p, d.y).value();
        const auto ce = makeTrueClassObjective(binaryTrueClassProbabilities(d.p, d.y).value()).value();
        std::mt19937_64 rng(1);
        const Eigen::VectorXd l = randomInteriorLambda(4, rng);
        DPMIX_COMPARE_NEAR(bce.loss(l), ce.loss(l), 1e-12);
        std::vector<Index> all(20);
        for (Index j = 0; j < 20; ++j) all[static_cast<std::size_t>(j)] = j;
        RowMatrix gb, gc;
        bce.exampleGradients(l, all, gb);
        ce.exampleGradients(l, all, gc);
        for (Index j = 0; j < 20; ++j) {
            const double f = d.p.row(j).dot(l);
            const double expected = d.y[static_cast<std::size_t>(j)] == 1 ? 0.0 : -1.0 / (1.0 - f);
            QVERIFY(((gc.row(j) - gb.row(j)).array() - expected).abs().maxCoeff() < 1e-10);
        }
    }

    void weightedLossIsTheWeightedSum() {
        Eigen::MatrixXd p(2, 2);
        p << 0.2, 0.6, 0.2, 0.6;
        const auto o = makeBinaryObjective(p, {1, 0}).value();
        QVERIFY(std::abs(o.loss(Eigen::Vector2d(0.5, 0.5), Eigen::Vector2d(0.25, 0.75)) -
                         (0.25 * 0.916290731874155 + 0.75 * 0.5108256237659907)) < 1e-14);
    }

    void badInputsNameTheField_data() {
        QTest::addColumn<std::string>("which");
        QTest::addColumn<std::string>("expected");
        QTest::newRow("probability > 1") << "p"s
                                         << "proxy probabilities: entry (example 1, source 0) = 1.5"s;
        QTest::newRow("one source") << "k1"s
                                    << "k >= 2"s;
        QTest::newRow("label 2") << "label"s
                                 << "labels: label of example 0 = 2"s;
        QTest::newRow("label count") << "count"s
                                     << "labels: 1 labels for 2 examples"s;
        QTest::newRow("positive LL") << "ll"s
                                     << "sequence log-likelihoods: entry (example 0, source 1) = 3"s;
        QTest::newRow("zero tokens") << "len"s
                                     << "token counts: count of sequence 0 = 0"s;
        QTest::newRow("bad offsets") << "offsets"s
                                     << "sequence offsets: sequence 0 has 0 tokens"s;
        QTest::newRow("logits") << "logits"s
                                << "sums to 3"s;
        QTest::newRow("no rows") << "empty"s
                                 << "at least one example"s;
    }
    void badInputsNameTheField() {
        QFETCH(std::string, which);
        QFETCH(std::string, expected);
        Eigen::MatrixXd p2(2, 2);
        p2 << 0.1, 0.2, 1.5, 0.3;
        Eigen::MatrixXd ok(2, 2);
        ok << 0.1, 0.2, 0.3, 0.4;
        std::string message;
        if (which == "p") message = makeBinaryObjective(p2, {0, 1}).error().message;
        if (which == "k1")
            message = makeBinaryObjective(Eigen::MatrixXd::Constant(3, 1, 0.5), {0, 1, 0}).error().message;
        if (which == "label") message = makeBinaryObjective(ok, {2, 0}).error().message;
        if (which == "count") message = makeBinaryObjective(ok, {1}).error().message;
        if (which == "ll") {
            Eigen::MatrixXd ll(1, 2);
            ll << -1.0, 3.0;
            message = makeSequenceObjective(ll, {1}).error().message;
        }
        if (which == "len") message = makeSequenceObjective(-ok, {0, 1}).error().message;
        if (which == "offsets") message = makeTokenObjective(ok, {0, 0, 2}).error().message;
        if (which == "logits") {
            std::vector<Eigen::MatrixXd> probs{Eigen::MatrixXd::Constant(2, 3, 1.0),
                                               Eigen::MatrixXd::Constant(2, 3, 1.0)};
            message = trueClassProbabilities(probs, {0, 1}).error().message;
        }
        if (which == "empty") message = makeTrueClassObjective(Eigen::MatrixXd(0, 3)).error().message;
        QVERIFY2(contains(message, expected), message.c_str());
    }
};

QTEST_APPLESS_MAIN(TestMixminObjective)
#include "tst_mixmin_objective.moc"
