#include "engine/privacy/gaussian_accountant.h"
#include "engine/privacy/rdp_conversion.h"
#include "engine/privacy/rdp_orders.h"
#include "reference_table.h"

#include "tests/support/unit_test.h"

#include <cmath>

using namespace dpmix::privacy;
using dpmix::test_support::str;

class TestGaussianAccountant : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void conversionAtOneOrderByHand() {
        // Balle et al. 2020: ε = rdp + log((α-1)/α) - (log δ + log α)/(α-1).
        // α = 2, rdp = 1, δ = e^{-10}: 1 + log(1/2) - (-10 + log 2) = 11 - 2 log 2.
        DPMIX_COMPARE_NEAR(rdpToEpsilonAtOrder(2.0, 1.0, std::exp(-10.0)), (11.0 - 2.0 * std::log(2.0)), 1e-12);
    }
    void fullBatchMatchesClosedFormMinimum() {
        // q = 1: RDP(α) = Tα/(2σ²); minimise the conversion over the grid independently here.
        const double sigma = 2.0, delta = 1e-5;
        const long long steps = 10;
        double best = INFINITY, bestOrder = 0;
        for (double a : defaultRdpOrders()) {
            const double e =
                steps * a / (2 * sigma * sigma) + std::log((a - 1) / a) - (std::log(delta) + std::log(a)) / (a - 1);
            if (e < best) {
                best = e;
                bestOrder = a;
            }
        }
        const auto r = gaussianEpsilon({1.0, sigma, steps}, delta);
        DPMIX_COMPARE_NEAR(r.epsilon, best, 1e-12 * best);
        QCOMPARE(r.order, bestOrder);
    }
    void calibrationMeetsTargetTightly() {
        for (double target : {0.2, 1.0, 3.0, 8.0}) {
            const auto c = calibrateGaussianSigma(target, 1e-5, 0.01, 2000).value();
            QVERIFY(c.epsilon <= target);
            QVERIFY2(target - c.epsilon <= 1e-4 * target, str(c.epsilon).c_str());
            // Slightly less noise breaks the budget: σ is the smallest.
            QVERIFY(gaussianEpsilon({0.01, c.sigma * (1 - 1e-6), 2000}, 1e-5).epsilon > target);
        }
    }
    void calibrationNeverExceedsOpacus() {
        // Opacus's get_noise_multiplier stops within 0.01 of the target, from above in σ.
        const auto rows = readReferenceTable(DPMIX_PRIVACY_REFERENCE_DIR "/sigma_reference.csv");
        QVERIFY(rows.size() >= 8);
        for (const auto& row : rows) {
            const auto c =
                calibrateGaussianSigma(row["epsilon"], row["delta"], row["q"], static_cast<long long>(row["steps"]))
                    .value();
            QVERIFY2(c.sigma <= row["opacus_sigma"],
                     str("eps=", row["epsilon"], " q=", row["q"], ": ", c.sigma, " > ", row["opacus_sigma"]).c_str());
            QVERIFY(c.sigma > 0.9 * row["opacus_sigma"]);
        }
    }
    void publishedSyntheticSigmaTable() {
        // docs/ALGORITHMS.md A.11: NumPy reference of Algorithm 1, n = 5000, B = 1000 (q = 0.2), T = 100,
        // δ = 1e-5, RDP with integer orders 2..256.
        const double eps[] = {0.2, 0.5, 1.0, 2.0, 5.0};
        const double sigma[] = {35.976, 15.506, 8.278, 4.502, 2.147};
        const auto orders = integerOrders(2, 256);
        for (int i = 0; i < 5; ++i) {
            const auto c = calibrateGaussianSigma(eps[i], 1e-5, 0.2, 100, orders).value();
            QVERIFY2(std::fabs(c.sigma - sigma[i]) < 1.5e-3, str("eps=", eps[i], " sigma=", c.sigma).c_str());
        }
    }
    void unreachableBudgetIsAnError() {
        const auto tooSmall = calibrateGaussianSigma(1e-9, 1e-12, 1.0, 100000);
        QVERIFY(!tooSmall);
        QVERIFY(tooSmall.error().message.find("budget is too small") != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestGaussianAccountant)
#include "tst_gaussian_accountant.moc"
