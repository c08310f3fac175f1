// ρ guidance (docs/RHO_GUIDANCE.md): the a-priori ρ formula (hand-computed cases), the
// constants' fit (recovery of known constants from exact data), and the pilot calibration's
// wiring.
#include "engine/experiments/rho_guidance.h"

#include "tests/engine/audit/audit_fixtures.h"

#include "tests/support/unit_test.h"

#include <cmath>

using namespace dpmix;
using namespace dpmix::audit;
using namespace dpmix::experiments;
using namespace dpmix::test_support;

class TestRhoGuidance : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Monte-Carlo tests run under the `statistical` label, the rest under `unit` (one executable).
    void init() {
        if (!dpmix::test_support::inThisTestPart({"pilotCalibrationProducesPositiveConstants"}))
            QSKIP("runs in the other part of this executable (DPMIX_TEST_PART)");
    }

    void privacyLimitedCaseByHand() {
        // N = 1e5, ε = 1, δ = 1e-5, k = 14, L = 1, α = 0.05, c1 = 0.1, c2 = 0.5:
        // n_stat = (2·0.1/0.05)² = 16; n_priv = 2·0.5·√(14·ln 1e5)/0.05 = 253.914124466981.
        RhoGuidanceInputs in{100000, 1.0, 1e-5, 14, 1.0, 0.05, {0.1, 0.5, false}};
        const auto g = rhoGuidance(in).value();
        DPMIX_COMPARE_NEAR(g.nStatistical, 16.0, 1e-9);
        DPMIX_COMPARE_NEAR(g.nPrivacy, 253.914124466981, 1e-9);
        QVERIFY(g.regime == RhoRegime::PrivacyLimited);
        DPMIX_COMPARE_NEAR(g.rho, 253.914124466981 / 1e5, 1e-14);
        QVERIFY(g.feasible);
    }

    void statisticsLimitedAndInfeasibleCases() {
        // c1 = 1, c2 = 0.01, α = 0.01: n_stat = (2/0.01)² = 40000 > n_priv = 25.39; ρ = 0.4 of 1e5.
        RhoGuidanceInputs in{100000, 1.0, 1e-5, 14, 1.0, 0.01, {1.0, 0.01, false}};
        auto g = rhoGuidance(in).value();
        QVERIFY(g.regime == RhoRegime::StatisticsLimited);
        DPMIX_COMPARE_NEAR(g.rho, 0.4, 1e-12);
        in.trainExamples = 20000;  // needs 40000 of 20000
        g = rhoGuidance(in).value();
        QVERIFY(!g.feasible);
        DPMIX_COMPARE_NEAR(g.rho, 2.0, 1e-12);
    }

    void privacyBalanceByHand() {
        // ε = 2, δ = 1e-5, k = 14, c1 = c2 = 1: n = 14·ln(1e5)/4 = 40.2940047...; of N = 71,757, ρ = n/N.
        const double n = 14.0 * 11.512925464970229 / 4.0;
        auto b = privacyBalance(71757, 2.0, 1e-5, 14).value();
        DPMIX_COMPARE_NEAR(b.examples, n, 1e-9);
        DPMIX_COMPARE_NEAR(b.rho, n / 71757.0, 1e-15);
        // At that n the two terms of the bound are equal (L cancels).
        DPMIX_COMPARE_NEAR(statisticalTerm(b.examples, 3.0), privacyTerm(b.examples, 2.0, 1e-5, 14, 3.0), 1e-12);
        // (c2/c1)² scales it: c2/c1 = 10 → 100 times the examples.
        b = privacyBalance(71757, 2.0, 1e-5, 14, {0.5, 5.0, true}).value();
        DPMIX_COMPARE_NEAR(b.examples, 100.0 * n, 1e-7);
        // Halving ε quadruples it.
        DPMIX_COMPARE_NEAR(privacyBalance(71757, 1.0, 1e-5, 14).value().examples, 4.0 * n, 1e-9);
        auto bad = privacyBalance(71757, 0.0, 1e-5, 14);
        QVERIFY(!bad && contains(bad.error().message, "epsilon"));
        bad = privacyBalance(71757, 1.0, 1e-5, 1);
        QVERIFY(!bad && contains(bad.error().message, "sources"));
    }

    void badInputNamesTheField() {
        RhoGuidanceInputs in{100000, 1.0, 1e-5, 14, 1.0, 0.05, {}};
        in.targetExcess = 0.0;
        auto r = rhoGuidance(in);
        QVERIFY(!r && contains(r.error().message, "target-excess"));
        in.targetExcess = 0.05;
        in.delta = 1.0;
        r = rhoGuidance(in);
        QVERIFY(!r && contains(r.error().message, "delta"));
        in.delta = 1e-5;
        in.sources = 1;
        r = rhoGuidance(in);
        QVERIFY(!r && contains(r.error().message, "sources"));
    }

    void fitRecoversKnownConstants() {
        // Exact data from c1 = 0.03, c2 = 0.4 (L = 13, k = 14, δ = 1e-5): the fit is exact.
        std::vector<PilotPoint> pts;
        for (double n : {500.0, 1000.0, 4000.0})
            for (double e : {0.5, 1.0, 2.0}) {
                const double a = 0.03 * 13.0 / std::sqrt(n) + 0.4 * 13.0 * std::sqrt(14.0 * std::log(1e5)) / (n * e);
                pts.push_back({n, e, a});
            }
        const auto c = fitRhoConstants(pts, 1e-5, 14, 13.0).value();
        DPMIX_COMPARE_NEAR(c.c1, 0.03, 1e-10);
        DPMIX_COMPARE_NEAR(c.c2, 0.4, 1e-10);
        QVERIFY(c.calibrated);
    }

    void fitStaysNonNegative() {
        // Data that follow the statistical term only, slightly perturbed so that the
        // unconstrained c2 would be negative: the fit must return c2 = 0 and c1 > 0.
        std::vector<PilotPoint> pts;
        for (double n : {500.0, 1000.0, 4000.0})
            for (double e : {0.5, 2.0}) pts.push_back({n, e, 0.05 / std::sqrt(n) * (1.0 - 0.5 / (n * e))});
        const auto c = fitRhoConstants(pts, 1e-5, 14, 1.0).value();
        QVERIFY(c.c1 > 0.0);
        QVERIFY(c.c2 >= 0.0);
        QVERIFY(!fitRhoConstants({{100, 1, 0.1}}, 1e-5, 14, 1.0));
    }

    void pilotCalibrationProducesPositiveConstants() {
        const auto d = testing::informativeSourceData(4000, 4, 3);
        const auto pilot = binaryObjectiveBuilder(d.p, d.y).value();
        PilotOptions o;
        o.sampleSizes = {500, 1000, 2000};
        o.epsilons = {0.5, 2.0};
        o.seeds = {0, 1};
        const auto base =
            mixmin::DpMixMinParamsBuilder().delta(1e-5).expectedBatch(100).clipNorm(5.0).stepSize(1.0).steps(50);
        const auto cal = calibrateRhoConstants(pilot, base, 5.0, o).value();
        QCOMPARE(cal.points.size(), std::size_t(6));
        for (const auto& p : cal.points) QVERIFY(p.excess > -1e-7);  // λ* of the pilot is its minimiser
        QVERIFY(cal.constants.calibrated);
        QVERIFY(cal.constants.c1 + cal.constants.c2 > 0.0);
        // A sample size above the pilot is refused, naming the field.
        o.sampleSizes = {5000};
        auto bad = calibrateRhoConstants(pilot, base, 5.0, o);
        QVERIFY(!bad && contains(bad.error().message, "sample-sizes"));
    }
};

QTEST_APPLESS_MAIN(TestRhoGuidance)
#include "tst_rho_guidance.moc"
