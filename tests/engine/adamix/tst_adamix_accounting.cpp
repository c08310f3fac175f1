// AdaMix-R's accounting: σ calibrated for q = 1 against ε(δ) of T Gaussian mechanisms computed
// here independently — the RDP conversion the engine uses (Balle et al. 2020, Thm 21) written out
// again, and the exact analytic Gaussian mechanism (Balle & Wang 2018) for the PRV accountant —
// the ledger entry recorded before the first private step, the count of mechanism invocations,
// and the per-example ε_i estimate (<= the dataset ε, equal when every clipped norm is C_t).
#include "adamix_fixtures.h"
#include "engine/adamix/adamix_run.h"
#include "engine/adamix/params.h"
#include "engine/adamix/per_example_privacy.h"
#include "engine/privacy/prv_accountant.h"

#include "tests/support/unit_test.h"

#include <boost/math/special_functions/erf.hpp>

#include <cmath>
#include <limits>
#include <vector>

using namespace dpmix::adamix;
using dpmix::test_support::str;
namespace privacy = dpmix::privacy;

namespace {

// The orders the engine optimises over, written out: 1.1, ..., 10.9 and 12, ..., 63.
std::vector<double> ordersByHand() {
    std::vector<double> orders;
    for (int i = 11; i <= 109; ++i) orders.push_back(i / 10.0);
    for (int a = 12; a <= 63; ++a) orders.push_back(a);
    return orders;
}

// ε(δ) of RDP(α) = α·c by ε = min_α α·c + log((α−1)/α) − (log δ + log α)/(α−1), on `orders`.
double balleConversion(double c, double delta, const std::vector<double>& orders) {
    double best = std::numeric_limits<double>::infinity();
    for (double a : orders)
        best = std::min(best, a * c + std::log((a - 1.0) / a) - (std::log(delta) + std::log(a)) / (a - 1.0));
    return best;
}

// T Gaussian steps of noise multiplier σ (q = 1): RDP(α) = αT/(2σ²).
double rdpEpsilonByHand(long long steps, double sigma, double delta) {
    return balleConversion(static_cast<double>(steps) / (2.0 * sigma * sigma), delta, ordersByHand());
}

double normalCdf(double x) { return 0.5 * boost::math::erfc(-x / std::sqrt(2.0)); }

// Exact ε(δ) of the Gaussian mechanism with μ = sensitivity/std (Balle & Wang 2018, Thm 8):
// δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ), decreasing in ε; solved by bisection. T Gaussian
// steps of multiplier σ compose to one with μ = sqrt(T)/σ.
double analyticGaussianEpsilon(double mu, double delta) {
    auto deltaAt = [mu](double eps) {
        return normalCdf(mu / 2.0 - eps / mu) - std::exp(eps) * normalCdf(-mu / 2.0 - eps / mu);
    };
    double lo = 0.0, hi = 1.0;
    while (deltaAt(hi) > delta) hi *= 2.0;
    for (int i = 0; i < 200; ++i) {
        const double mid = 0.5 * (lo + hi);
        (deltaAt(mid) > delta ? lo : hi) = mid;
    }
    return hi;
}

}  // namespace

class TestAdamixAccounting : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void rdpCalibrationMatchesTheClosedFormForFullBatch() {
        for (double target : {0.5, 1.0, 3.0, 8.0})
            for (long long steps : {1LL, 50LL, 200LL}) {
                const AdamixParams p =
                    AdamixParamsBuilder::defaults().steps(steps).epsilon(target).build(1000, 20).value();
                QCOMPARE(p.q, 1.0);
                const double byHand = rdpEpsilonByHand(steps, p.sigma, p.delta);
                QVERIFY2(byHand <= target * (1.0 + 1e-12), str("eps ", byHand, " target ", target).c_str());
                QVERIFY2(byHand >= target * (1.0 - 1e-6), str("eps ", byHand, " target ", target).c_str());
                DPMIX_COMPARE_NEAR(p.epsilon, byHand, 1e-12 * target);
                // The continuous minimum over α is never above the grid's, and close to it.
                double continuous = std::numeric_limits<double>::infinity();
                for (double a = 1.001; a < 200.0; a *= 1.0005)
                    continuous = std::min(continuous, balleConversion(steps / (2.0 * p.sigma * p.sigma), p.delta, {a}));
                QVERIFY(continuous <= byHand + 1e-12 && continuous >= 0.97 * byHand);
            }
    }

    void givenSigmaTheEpsilonIsTheClosedForm() {
        const AdamixParams p = AdamixParamsBuilder::defaults().steps(100).sigma(5.0).build(1000, 20).value();
        DPMIX_COMPARE_NEAR(p.epsilon, rdpEpsilonByHand(100, 5.0, 1e-5), 1e-12);
    }

    void prvCalibrationIsWithinItsErrorOfTheAnalyticGaussian() {
        for (double target : {1.0, 3.0, 8.0}) {
            const long long steps = 200;
            const AdamixParams p = AdamixParamsBuilder::defaults()
                                       .steps(steps)
                                       .epsilon(target)
                                       .accountant(privacy::Accountant::Prv)
                                       .build(1000, 20)
                                       .value();
            const double exact = analyticGaussianEpsilon(std::sqrt(static_cast<double>(steps)) / p.sigma, p.delta);
            // The certificate is an upper bound on the exact ε, at most the PRV accuracy (0.01 in
            // ε, plus the δ error's effect) above it; calibration puts it at the target.
            QVERIFY2(p.epsilon <= target * (1.0 + 1e-9), str("certified ", p.epsilon).c_str());
            QVERIFY2(exact <= p.epsilon + 1e-9, str("exact ", exact, " certified ", p.epsilon).c_str());
            QVERIFY2(p.epsilon - exact <= 0.02, str("exact ", exact, " certified ", p.epsilon).c_str());
            // The RDP calibration at the same target needs more noise.
            const AdamixParams rdp =
                AdamixParamsBuilder::defaults().steps(steps).epsilon(target).build(1000, 20).value();
            QVERIFY(rdp.sigma >= p.sigma);
        }
    }

    void theLedgerEntryIsRecordedBeforeTheFirstPrivateStep() {
        const auto pub = test::labelledBlobs(3, 8, 3, 1.0, 71);
        const auto priv = test::labelledBlobs(3, 8, 20, 1.0, 72);
        const AdamixParams p = AdamixParamsBuilder::defaults()
                                   .steps(10)
                                   .epsilon(2.0)
                                   .reproducible(5)
                                   .split("fmnist-train")
                                   .build(priv.examples(), pub.examples())
                                   .value();
        privacy::Ledger ledger;
        dpmix::CancellationToken cancel;
        cancel.cancel();  // stop before step 0: the entry must already be there
        QVERIFY_THROWS_EXCEPTION(dpmix::Cancelled, (void)runAdamix(pub, priv, p, &ledger, {}, cancel));
        QCOMPARE(ledger.entries().size(), std::size_t{1});
        const privacy::LedgerEntry& e = ledger.entries().front();
        QCOMPARE(e.stage, std::string("adamix"));
        QCOMPARE(e.split, std::string("fmnist-train"));
        QVERIFY(e.unit == privacy::PrivacyUnit::Example);
        QVERIFY(e.mechanism == privacy::MechanismKind::SubsampledGaussian);
        QCOMPARE(e.q, 1.0);
        QCOMPARE(e.steps, 10LL);
        QCOMPARE(e.sigma, p.sigma);
        QCOMPARE(e.delta, 1e-5);
        QVERIFY(e.randomness == privacy::RandomnessMode::Seeded);
        DPMIX_COMPARE_NEAR(e.epsilon, p.epsilon, 1e-12);

        // A completed run records exactly one entry, made T invocations, and verifies.
        privacy::Ledger full;
        const AdamixResult r = runAdamix(pub, priv, p, &full).value();
        QCOMPARE(full.entries().size(), std::size_t{1});
        QCOMPARE(r.mechanismInvocations, 10LL);
        QCOMPARE(r.clips.size(), std::size_t{10});
        QVERIFY(full.verify().ok);
        DPMIX_COMPARE_NEAR(full.total().epsilon, p.epsilon, 1e-9);
    }

    void theZeroNoiseControlIsRecordedAsNonPrivate() {
        const auto pub = test::labelledBlobs(3, 8, 3, 1.0, 73);
        const auto priv = test::labelledBlobs(3, 8, 20, 1.0, 74);
        const AdamixParams p = AdamixParamsBuilder::defaults()
                                   .steps(5)
                                   .epsilon(2.0)
                                   .noise(NoiseMode::None)
                                   .build(priv.examples(), pub.examples())
                                   .value();
        privacy::Ledger ledger;
        const AdamixResult r = runAdamix(pub, priv, p, &ledger).value();
        QVERIFY(ledger.entries().front().mechanism == privacy::MechanismKind::NonPrivate);
        QVERIFY(std::isinf(r.epsilon));
    }

    void perExampleEpsilonIsAtMostTheDatasetEpsilon() {
        const auto pub = test::labelledBlobs(3, 8, 3, 1.0, 81);
        const auto priv = test::labelledBlobs(3, 8, 40, 1.5, 82);
        const AdamixParams p = AdamixParamsBuilder::defaults()
                                   .steps(30)
                                   .epsilon(3.0)
                                   .reproducible(9)
                                   .build(priv.examples(), pub.examples())
                                   .value();
        const AdamixResult r = runAdamix(pub, priv, p).value();
        QCOMPARE(r.normRatioSums.size(), priv.examples());
        const PerExampleEpsilon est =
            estimatePerExampleEpsilon(r.normRatioSums, p.steps, p.sigma, p.delta, p.accountant).value();
        DPMIX_COMPARE_NEAR(est.datasetEpsilon, r.epsilon, 1e-12);
        const std::vector<double> orders = ordersByHand();
        for (Eigen::Index i = 0; i < est.epsilon.size(); ++i) {
            QVERIFY(est.epsilon(i) <= est.datasetEpsilon);
            QVERIFY(r.normRatioSums(i) <= 30.0 + 1e-9);
            // RDP_i(α) = α S_i / (2σ²), converted as above.
            const double byHand =
                std::max(0.0, balleConversion(r.normRatioSums(i) / (2.0 * p.sigma * p.sigma), p.delta, orders));
            DPMIX_COMPARE_NEAR(est.epsilon(i), std::min(byHand, est.datasetEpsilon), 1e-12);
        }
        QVERIFY(est.epsilon.minCoeff() < est.datasetEpsilon);  // some examples are clipped less than C_t
        QVERIFY(std::string(est.caveat).find("estimate") != std::string::npos);
    }

    void perExampleEpsilonEqualsTheDatasetEpsilonWhenEveryNormIsTheClip() {
        for (auto accountant : {privacy::Accountant::Rdp, privacy::Accountant::Prv}) {
            const long long steps = 50;
            const double sigma = 3.0;
            Eigen::VectorXd sums(4);
            sums << steps, 0.0, 0.5 * steps, 0.9 * steps;
            const auto est = estimatePerExampleEpsilon(sums, steps, sigma, 1e-5, accountant).value();
            const double dataset = privacy::certifiedGaussianEpsilon(accountant, {{1.0, sigma, steps}}, 1e-5);
            DPMIX_COMPARE_NEAR(est.datasetEpsilon, dataset, 1e-12);
            DPMIX_COMPARE_NEAR(est.epsilon(0), dataset, 1e-12 * dataset);
            QCOMPARE(est.epsilon(1), 0.0);
            QVERIFY(est.epsilon(2) < est.epsilon(3) && est.epsilon(3) <= dataset);
        }
        QVERIFY(!estimatePerExampleEpsilon(Eigen::VectorXd::Ones(2), 10, 0.0, 1e-5, privacy::Accountant::Rdp).ok());
    }
};

QTEST_APPLESS_MAIN(TestAdamixAccounting)
#include "tst_adamix_accounting.moc"
