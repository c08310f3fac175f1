#include "engine/privacy/dirichlet_accountant.h"
#include "engine/privacy/dirichlet_rdp.h"

#include "tests/support/unit_test.h"

#include <cmath>
#include <numbers>

using namespace dpmix::privacy;
using dpmix::test_support::str;

class TestDirichletAccountant : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void baseRdpByHand() {
        // ε̂(λ) = λ r² ψ′(α − (λ−1) r). α = 3, r = 0.5:
        // λ = 2: 2·0.25·ψ′(2.5), ψ′(2.5) = 0.49035775610023486 (mpmath);
        // λ = 3: 3·0.25·ψ′(2) with ψ′(2) = π²/6 − 1.
        DPMIX_COMPARE_NEAR(dirichletRdp(3.0, 0.5, 2), 0.5 * 0.49035775610023486, 1e-13);
        DPMIX_COMPARE_NEAR(dirichletRdp(3.0, 0.5, 3), 0.75 * (std::numbers::pi * std::numbers::pi / 6 - 1), 1e-13);
    }
    void admissibleOrdersAreStrict() {
        // λ < 1 + α/r: α = 3, r = 0.5 → λ < 7, so 6 is the largest; 7 is not admissible.
        QCOMPARE(maxDirichletOrder(3.0, 0.5), 6);
        QVERIFY(std::isinf(dirichletRdp(3.0, 0.5, 7)));
        QCOMPARE(maxDirichletOrder(3.0, 0.7), 5);  // 1 + 4.29 → 5
        QCOMPARE(maxDirichletOrder(3.0, 0.001), 256);
    }
    void subsampledOrderTwoByHand() {
        // Zhu & Wang Thm 5 at λ = 2: A = (1−q)(q + 1) + q² e^{ε̂(2)}; ε = log A.
        const double q = 0.1, a = 3.0, r = 0.5;
        const double e2 = 0.5 * 0.49035775610023486;
        const double expected = std::log((1 - q) * (q + 1) + q * q * std::exp(e2));
        DPMIX_COMPARE_NEAR(subsampledDirichletRdp(a, r, q, 2), expected, 1e-13);
    }
    void subsampledOrderThreeByHand() {
        // λ = 3: A = (1−q)²(2q+1) + 3q²(1−q)e^{ε̂(2)} + 3q³e^{2ε̂(3)}; ε = log A / 2.
        const double q = 0.2, a = 3.0, r = 0.5;
        const double e2 = 0.5 * 0.49035775610023486;
        const double e3 = 0.75 * (std::numbers::pi * std::numbers::pi / 6 - 1);
        const double A =
            (1 - q) * (1 - q) * (2 * q + 1) + 3 * q * q * (1 - q) * std::exp(e2) + 3 * q * q * q * std::exp(2 * e3);
        DPMIX_COMPARE_NEAR(subsampledDirichletRdp(a, r, q, 3), std::log(A) / 2, 1e-13);
    }
    void fullSamplingIsTheBaseMechanism() {
        QCOMPARE(subsampledDirichletRdp(3.0, 0.4, 1.0, 4), dirichletRdp(3.0, 0.4, 4));
    }
    void reproducesPaperTable7Mnist() {
        // Rao et al. 2026, Table 7: α = 3, δ = 1e-5, q = 250/60000, T = 9600.
        const double q = 250.0 / 60000.0;
        const double eps[] = {0.5, 1.0, 2.0, 4.0};
        const double rStar[] = {0.136, 0.277, 0.472, 0.711};
        for (int i = 0; i < 4; ++i) {
            const auto c = calibrateDirichletR(eps[i], 1e-5, 3.0, q, 9600).value();
            QVERIFY2(std::fabs(c.r - rStar[i]) <= 0.002,
                     str("eps=", eps[i], ": r*=", c.r, " (order ", c.order, "), paper ", rStar[i]).c_str());
            QVERIFY(c.epsilon <= eps[i]);
        }
        // docs/ALGORITHMS.md C.2: at ε = 0.5 the optimal order is 21.
        QCOMPARE(calibrateDirichletR(0.5, 1e-5, 3.0, q, 9600)->order, 21.0);
    }
    void rStarIsTheSupremum() {
        const double q = 250.0 / 60000.0;
        const auto c = calibrateDirichletR(1.0, 1e-5, 3.0, q, 9600).value();
        QVERIFY(dirichletEpsilon({3.0, c.r * (1 + 1e-6), q, 9600}, 1e-5).epsilon > 1.0);
    }
    void tooSmallBudgetIsAnError() {
        const auto tooSmall = calibrateDirichletR(1e-6, 1e-5, 3.0, 0.5, 100000);
        QVERIFY(!tooSmall);
        QVERIFY(tooSmall.error().message.find("raise epsilon") != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestDirichletAccountant)
#include "tst_dirichlet_accountant.moc"
