// The one-run bound (Steinke, Nasr & Jagielski 2023, Theorem 3.1) against the theorem's formula
// evaluated here by direct summation of the binomial law in long double (no Boost, no bisection of
// the code under test), the closed form of an all-correct audit, its monotonicity, its edges and
// the errors that name the argument.
#include "engine/privacy/one_run_bound.h"

#include "tests/support/unit_test.h"

#include <cmath>
#include <stdexcept>

using namespace dpmix::privacy;

namespace {

/// P[Binomial(r, p) ≥ k] by summing the probability mass function, p = e^ε/(1 + e^ε).
long double binomialTail(long long r, long long k, long double eps) {
    if (k <= 0) return 1.0L;
    const long double logP = -std::log1p(std::exp(-eps)), logQ = -eps + logP;
    long double sum = 0.0L;
    for (long long j = k; j <= r; ++j)
        sum += std::exp(std::lgamma(static_cast<long double>(r + 1)) - std::lgamma(static_cast<long double>(j + 1)) -
                        std::lgamma(static_cast<long double>(r - j + 1)) + j * logP + (r - j) * logQ);
    return sum;
}

/// The theorem's right-hand side as the paper states it: f(v) + 2mδ · max_i (f(v−i) − f(v))/i.
long double theoremBound(long long m, long long r, long long v, long double eps, long double delta) {
    const long double fv = binomialTail(r, v, eps);
    long double alpha = 0.0L;
    for (long long i = 1; i <= m; ++i) alpha = std::max(alpha, (binomialTail(r, v - i, eps) - fv) / i);
    return std::min(1.0L, fv + 2.0L * m * delta * alpha);
}

}  // namespace

class TestOneRunBound : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void pureEpsilonIsTheBinomialTail() {
        for (long long r : {1LL, 17LL, 200LL})
            for (long long v : {0LL, 1LL, r / 2, (3 * r) / 4, r})
                for (double eps : {0.0, 0.3, 1.0, 4.0, 9.0}) {
                    const double expected = static_cast<double>(binomialTail(r, v, eps));
                    const double got = oneRunTailBound({1000, r, v}, eps, 0.0);
                    QVERIFY2(
                        std::abs(got - expected) <= 1e-12 + 1e-9 * expected,
                        dpmix::test_support::str("r ", r, " v ", v, " eps ", eps, ": ", got, " vs ", expected).c_str());
                }
        // At ε = 0 every guess is a fair coin: P[Bin(4, 1/2) ≥ 3] = 5/16.
        DPMIX_COMPARE_NEAR(oneRunTailBound({4, 4, 3}, 0.0, 0.0), 5.0 / 16.0, 1e-15);
    }

    void deltaTermIsTheTheorems() {
        // 2mδ ≤ 1: the theorem's value itself.
        for (double delta : {1e-5, 1e-4, 5e-4})
            for (long long v : {30LL, 45LL, 55LL}) {
                const double expected = static_cast<double>(theoremBound(1000, 60, v, 2.0L, delta));
                DPMIX_COMPARE_NEAR(oneRunTailBound({1000, 60, v}, 2.0, delta), expected, 1e-12 + 1e-9 * expected);
            }
        // 2mδ > 1: a larger value (still a bound), never a smaller one.
        const double theorem = static_cast<double>(theoremBound(1000, 60, 50, 2.0L, 2e-3L));
        QVERIFY(oneRunTailBound({1000, 60, 50}, 2.0, 2e-3) >= theorem - 1e-12);
    }

    void allCorrectHasAClosedForm() {
        // v = r, δ = 0: P[W ≥ r] = p^r < β  ⇔  p < β^{1/r}, so ε_LB = logit(β^{1/r}), or 0 below 1/2.
        for (long long r : {1LL, 5LL, 40LL, 100LL, 1000LL, 100000LL}) {
            const double p = std::pow(0.05, 1.0 / static_cast<double>(r));
            const double expected = std::max(0.0, std::log(p / (1.0 - p)));
            DPMIX_COMPARE_NEAR(oneRunEpsilonLowerBound({r, r, r}, 0.0).value(), expected, 1e-7);
        }
        // r = 100 by hand: 0.05^{1/100} = 0.970487..., logit = ln(0.970487 / 0.029513) = 3.4929.
        DPMIX_COMPARE_NEAR(oneRunEpsilonLowerBound({100, 100, 100}, 0.0).value(), 3.4929, 1e-4);
    }

    void theBoundIsWhereTheTestStopsRejecting() {
        struct Case {
            long long m, r, v;
            double delta, confidence;
        };
        for (const Case& c :
             {Case{1000, 200, 170, 1e-5, 0.95}, Case{1000, 200, 130, 0.0, 0.95}, Case{500, 100, 95, 1e-4, 0.99},
              Case{1000, 1000, 990, 1e-5, 0.95}, Case{2000, 64, 64, 1e-5, 0.999}}) {
            const double eps = oneRunEpsilonLowerBound({c.m, c.r, c.v}, c.delta, c.confidence).value();
            const long double beta = 1.0L - c.confidence;
            const std::string what = dpmix::test_support::str("m ", c.m, " r ", c.r, " v ", c.v, ": eps ", eps);
            QVERIFY2(eps > 0.0, what.c_str());
            QVERIFY2(theoremBound(c.m, c.r, c.v, eps - 1e-6, c.delta) < beta, what.c_str());
            QVERIFY2(theoremBound(c.m, c.r, c.v, eps + 1e-6, c.delta) >= beta, what.c_str());
        }
    }

    void moreEvidenceNeverLowersTheBound() {
        double previous = 0.0;
        for (long long v = 0; v <= 200; v += 5) {
            const double eps = oneRunEpsilonLowerBound({1000, 200, v}, 1e-5).value();
            QVERIFY2(eps >= previous, dpmix::test_support::str("v ", v).c_str());
            previous = eps;
        }
        QVERIFY(previous > 4.0);
        const OneRunCounts c{1000, 200, 180};
        const double base = oneRunEpsilonLowerBound(c, 1e-5).value();
        QVERIFY(oneRunEpsilonLowerBound(c, 1e-3).value() < base);            // a weaker hypothesis
        QVERIFY(oneRunEpsilonLowerBound(c, 1e-5, 0.999).value() < base);     // a stricter test
        QVERIFY(oneRunEpsilonLowerBound(c, 1e-5, 0.95, 10).value() < base);  // a union over 10 choices
        for (double eps = 0.0; eps < 8.0; eps += 0.25)                       // the bound grows with ε
            QVERIFY(oneRunTailBound(c, eps + 0.25, 1e-5) >= oneRunTailBound(c, eps, 1e-5));
    }

    void edgesGiveZero() {
        QCOMPARE(oneRunEpsilonLowerBound({0, 0, 0}, 1e-5).value(), 0.0);        // nothing guessed
        QCOMPARE(oneRunEpsilonLowerBound({1000, 0, 0}, 1e-5).value(), 0.0);     // abstained everywhere
        QCOMPARE(oneRunEpsilonLowerBound({1000, 100, 0}, 1e-5).value(), 0.0);   // all wrong
        QCOMPARE(oneRunEpsilonLowerBound({1000, 100, 50}, 1e-5).value(), 0.0);  // chance level
        QCOMPARE(oneRunTailBound({10, 10, 0}, 3.0, 0.0), 1.0);
    }

    void badInputNamesTheArgument() {
        const auto field = [](const dpmix::Result<double>& r) { return r.ok() ? std::string() : r.error().field; };
        QCOMPARE(field(oneRunEpsilonLowerBound({10, 5, 6}, 1e-5)), std::string("correct"));
        QCOMPARE(field(oneRunEpsilonLowerBound({10, 11, 3}, 1e-5)), std::string("guesses"));
        QCOMPARE(field(oneRunEpsilonLowerBound({-1, 0, 0}, 1e-5)), std::string("canaries"));
        QCOMPARE(field(oneRunEpsilonLowerBound({10, 5, 3}, 1.0)), std::string("delta"));
        QCOMPARE(field(oneRunEpsilonLowerBound({10, 5, 3}, -1e-9)), std::string("delta"));
        QCOMPARE(field(oneRunEpsilonLowerBound({10, 5, 3}, 1e-5, 1.0)), std::string("confidence"));
        QCOMPARE(field(oneRunEpsilonLowerBound({10, 5, 3}, 1e-5, 0.0)), std::string("confidence"));
        QCOMPARE(field(oneRunEpsilonLowerBound({10, 5, 3}, 1e-5, 0.95, 0)), std::string("comparisons"));
        const auto e = oneRunEpsilonLowerBound({10, 5, 6}, 1e-5).error();
        QVERIFY2(e.message.find("correct = 6") != std::string::npos, e.message.c_str());
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, oneRunTailBound({10, 5, 6}, 1.0, 0.0));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, oneRunTailBound({10, 5, 3}, -1.0, 0.0));
    }
};

QTEST_APPLESS_MAIN(TestOneRunBound)
#include "tst_one_run_bound.moc"
