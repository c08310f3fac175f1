#include "engine/privacy/gaussian_accountant.h"
#include "engine/privacy/gaussian_rdp.h"
#include "engine/privacy/rdp_orders.h"
#include "reference_table.h"

#include "tests/support/unit_test.h"

#include <cmath>

using namespace dpmix::privacy;
using dpmix::test_support::str;

namespace {
bool relClose(double a, double b, double rtol) { return std::fabs(a - b) <= rtol * std::fabs(b); }
}  // namespace

class TestGaussianRdp : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void fullBatchIsTheGaussianClosedForm() {
        for (double sigma : {0.5, 1.0, 3.7})
            for (double a : {1.5, 2.0, 7.3, 63.0})
                QCOMPARE(subsampledGaussianRdp(1.0, sigma, a), a / (2 * sigma * sigma));
    }
    void orderTwoClosedForm() {
        // For α = 2 the binomial sum is (1-q)² + 2q(1-q) + q² e^{1/σ²} = 1 + q²(e^{1/σ²} - 1).
        for (double q : {0.001, 0.05, 0.5, 0.9})
            for (double sigma : {0.6, 1.0, 4.0}) {
                const double expected = std::log1p(q * q * std::expm1(1.0 / (sigma * sigma)));
                QVERIFY2(relClose(subsampledGaussianRdp(q, sigma, 2.0), expected, 1e-12),
                         str("q=", q, " sigma=", sigma).c_str());
            }
    }
    // The values are memoised per thread: interleaved queries must each get their own closed
    // form back, also after the memo has been cleared for being full.
    void repeatedAndInterleavedQueriesKeepTheirOwnValues() {
        auto closedFormOrderTwo = [](double q, double sigma) {
            return std::log1p(q * q * std::expm1(1.0 / (sigma * sigma)));
        };
        for (int pass = 0; pass < 2; ++pass)
            for (double q : {0.01, 0.1, 0.5})
                for (double sigma : {0.8, 1.0, 2.0})
                    QVERIFY(std::fabs(subsampledGaussianRdp(q, sigma, 2.0) - closedFormOrderTwo(q, sigma)) <
                            1e-12 * closedFormOrderTwo(q, sigma));
        const double first = subsampledGaussianRdp(0.05, 1.3, 2.5);
        for (int i = 0; i < 70000; ++i) (void)subsampledGaussianRdp(0.05, 1.0 + i * 1e-6, 2.0);  // overfills it
        QCOMPARE(subsampledGaussianRdp(0.05, 1.3, 2.5), first);
        DPMIX_COMPARE_NEAR(subsampledGaussianRdp(0.1, 1.0, 2.0), closedFormOrderTwo(0.1, 1.0), 1e-12);
    }

    void fractionalSeriesAgreesWithIntegerSumNearIntegers() {
        // Two different formulas (MTZ §3.3 vs §3.4) must agree where they meet.
        for (double q : {0.01, 0.2})
            for (double sigma : {0.8, 2.0})
                for (int a : {2, 3, 8, 20}) {
                    const double integer = subsampledGaussianRdp(q, sigma, static_cast<double>(a));
                    const double nearby = subsampledGaussianRdp(q, sigma, a + 1e-9);
                    QVERIFY2(relClose(nearby, integer, 1e-6), str("q=", q, " s=", sigma, " a=", a).c_str());
                }
    }
    void fractionalOrdersStayBetweenTheirIntegerNeighbours() {
        // Rényi divergence is non-decreasing in the order, so D_⌊α⌋ <= D_α <= D_⌈α⌉; the integer
        // orders are the exact binomial sum. At q = 0.5, σ = 14.45 the fractional series alone
        // went negative from α ≈ 52.7 (cancellation); the result must still be a valid bound.
        for (double q : {0.01, 0.1, 0.5, 0.8})
            for (double sigma : {0.7, 2.0, 14.45})
                for (double a : {1.5, 5.5, 10.9, 20.5, 52.7, 53.3, 80.5, 150.5}) {
                    const double r = subsampledGaussianRdp(q, sigma, a);
                    const double below = a < 2 ? 0.0 : subsampledGaussianRdp(q, sigma, std::floor(a));
                    const double above = subsampledGaussianRdp(q, sigma, std::ceil(a));
                    QVERIFY2(r >= below * (1 - 1e-9) && r <= above * (1 + 1e-9),
                             str("q=", q, " sigma=", sigma, " alpha=", a, ": ", r, " not in [", below, ", ", above, "]")
                                 .c_str());
                }
    }
    void edgeCases() {
        QCOMPARE(subsampledGaussianRdp(0.0, 1.0, 2.0), 0.0);
        QVERIFY(std::isinf(subsampledGaussianRdp(0.1, 0.0, 2.0)));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, subsampledGaussianRdp(1.5, 1.0, 2.0));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, subsampledGaussianRdp(0.5, 1.0, 1.0));
    }
    void compositionIsLinearInSteps() {
        const auto orders = defaultRdpOrders();
        const auto one = subsampledGaussianRdp(0.03, 1.1, 1, orders);
        const auto many = subsampledGaussianRdp(0.03, 1.1, 250, orders);
        for (std::size_t i = 0; i < orders.size(); ++i) QVERIFY(relClose(many[i], 250 * one[i], 1e-14));
    }
    void defaultOrderGridIsOpacusGrid() {
        const auto orders = defaultRdpOrders();
        QCOMPARE(orders.size(), std::size_t(99 + 52));
        QCOMPARE(orders.front(), 1.1);
        QCOMPARE(orders[98], 10.9);
        QCOMPARE(orders[99], 12.0);
        QCOMPARE(orders.back(), 63.0);
    }
    void publishedExample() {
        // The example in docs/PRIVACY.md ("Agreement with Opacus"): q = 0.01, σ = 1, T = 1000,
        // δ = 1e-6 → ε = 2.43669380 at order 8.
        const auto r = gaussianEpsilon({0.01, 1.0, 1000}, 1e-6);
        DPMIX_COMPARE_NEAR(r.epsilon, 2.43669380, 5e-9);
        QCOMPARE(r.order, 8.0);
    }
    void matchesIndependentReferenceTable() {
        const auto rows = readReferenceTable(DPMIX_PRIVACY_REFERENCE_DIR "/rdp_reference.csv");
        QVERIFY(rows.size() >= 50);
        int onLastOrder = 0;
        for (const auto& row : rows) {
            const auto r =
                gaussianEpsilon({row["q"], row["sigma"], static_cast<long long>(row["steps"])}, row["delta"]);
            using dpmix::test_support::Exact;
            const std::string where =
                str("q=", row["q"], " sigma=", row["sigma"], " T=", row["steps"], " delta=", row["delta"], ": got ",
                    Exact{r.epsilon}, " want ", Exact{row["epsilon"]});
            QVERIFY2(relClose(r.epsilon, row["epsilon"], 1e-6), where.c_str());
            QVERIFY2(r.order == row["order"], (where + str(" order ", r.order, " vs ", row["order"])).c_str());
            if (row["order"] == 63.0) ++onLastOrder;
        }
        QVERIFY(onLastOrder >= 3);  // the table includes optima on the grid's last order
    }
};

QTEST_APPLESS_MAIN(TestGaussianRdp)
#include "tst_gaussian_rdp.moc"
