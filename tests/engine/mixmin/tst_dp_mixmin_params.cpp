// DP-MixMin parameters: the published σ of the synthetic reference configuration
// (docs/ALGORITHMS.md A.11: n = 5000, B = 1000 ⇒ q = 0.2, T = 100, δ = 1e-5, integer orders 2..256),
// the builder's calibration, and errors that name the field.
#include "engine/mixmin/params.h"
#include "engine/privacy/gaussian_accountant.h"
#include "engine/privacy/rdp_orders.h"
#include "tests/support/unit_test.h"

using namespace dpmix::mixmin;
using namespace dpmix::test_support;
using namespace std::string_literals;
namespace privacy = dpmix::privacy;

class TestDpMixminParams : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void publishedSigmaOfTheSyntheticReference_data() {
        QTest::addColumn<double>("epsilon");
        QTest::addColumn<double>("sigma");
        QTest::newRow("eps 0.2") << 0.2 << 35.976;
        QTest::newRow("eps 0.5") << 0.5 << 15.506;
        QTest::newRow("eps 1") << 1.0 << 8.278;
        QTest::newRow("eps 2") << 2.0 << 4.502;
        QTest::newRow("eps 5") << 5.0 << 2.147;
    }
    void publishedSigmaOfTheSyntheticReference() {
        QFETCH(double, epsilon);
        QFETCH(double, sigma);
        // The builder resolves the reference's expected batch to q = 0.2 ...
        const auto p = DpMixMinParamsBuilder::imagingDefaults().epsilon(epsilon).build(5000).value();
        QCOMPARE(p.q, 0.2);
        QCOMPARE(p.steps, 100LL);
        QCOMPARE(p.delta, 1e-5);
        // ... and σ for (ε, δ, q, T) on the reference's order grid is the published one (3 decimals).
        const auto cal =
            privacy::calibrateGaussianSigma(epsilon, p.delta, p.q, p.steps, privacy::integerOrders(2, 256)).value();
        QVERIFY2(std::abs(cal.sigma - sigma) <= 1.5e-3, str("sigma ", cal.sigma, ", published ", sigma).c_str());
        // The builder's σ (default Opacus grid, the one the ledger recomputes ε on) is within
        // 1% of it, and meets the target on that grid.
        QVERIFY(std::abs(p.sigma - sigma) <= 0.01 * sigma);
        QVERIFY(p.calibratedEpsilon <= epsilon);
        const double eps = privacy::gaussianEpsilon({p.q, p.sigma, p.steps}, p.delta).epsilon;
        QVERIFY(eps <= epsilon && eps > epsilon * (1 - 1e-6));
    }

    void userLevelUsesTheUserSamplingRate() {
        const auto p = DpMixMinParamsBuilder::languageDefaults(true)
                           .epsilon(1)
                           .expectedBatch(30)
                           .build(150, privacy::PrivacyUnit::User)
                           .value();
        QCOMPARE(p.q, 0.2);
        QCOMPARE(p.clipNorm, 0.01);
        QCOMPARE(p.steps, 200LL);
        QCOMPARE(p.stepSize, 5.0);
        QCOMPARE(p.maxExamplesPerUser, 15LL);
        QVERIFY(p.unit == privacy::PrivacyUnit::User);
        QCOMPARE(DpMixMinParamsBuilder::languageDefaults(false).epsilon(1).samplingRate(0.1).build(10).value().clipNorm,
                 0.2);
    }

    void badParametersNameTheField_data() {
        QTest::addColumn<int>("which");
        QTest::addColumn<std::string>("expected");
        QTest::newRow("epsilon") << 0 << "epsilon = 0 is out of range"s;
        QTest::newRow("delta") << 1 << "delta = 1 is out of range"s;
        QTest::newRow("q") << 2 << "q = 1.5 is out of range"s;
        QTest::newRow("batch") << 3
                               << "expected-batch = 2000 is out of range: expected at most the examples (n) = 1000"s;
        QTest::newRow("clip") << 4 << "clip = -1 is out of range"s;
        QTest::newRow("eta") << 5 << "eta = 0 is out of range"s;
        QTest::newRow("steps") << 6 << "steps = 0 is out of range"s;
        QTest::newRow("n") << 7 << "examples (n) = 0 is out of range"s;
        QTest::newRow("missing epsilon") << 8 << "missing epsilon"s;
        QTest::newRow("q and batch") << 9 << "q and expected-batch are both given"s;
        QTest::newRow("no G") << 10 << "missing max-examples-per-user"s;
        QTest::newRow("G = 0") << 11 << "max-examples-per-user = 0 is out of range"s;
        QTest::newRow("G at example level") << 12 << "applies to user-level runs only"s;
        QTest::newRow("unreachable epsilon") << 13 << "epsilon = 1e-08 cannot be met"s;
        QTest::newRow("nan clip") << 14 << "clip = nan is out of range"s;
        QTest::newRow("missing rate") << 15 << "missing q or expected-batch"s;
    }
    void badParametersNameTheField() {
        QFETCH(int, which);
        QFETCH(std::string, expected);
        DpMixMinParamsBuilder b;
        b.epsilon(1).delta(1e-5).samplingRate(0.1).clipNorm(1).stepSize(1).steps(10);
        long long n = 1000;
        auto unit = privacy::PrivacyUnit::Example;
        switch (which) {
            case 0: b.epsilon(0); break;
            case 1: b.delta(1); break;
            case 2: b.samplingRate(1.5); break;
            case 3:
                b = DpMixMinParamsBuilder{};
                b.epsilon(1).delta(1e-5).expectedBatch(2000).clipNorm(1).stepSize(1).steps(10);
                break;
            case 4: b.clipNorm(-1); break;
            case 5: b.stepSize(0); break;
            case 6: b.steps(0); break;
            case 7: n = 0; break;
            case 8:
                b = DpMixMinParamsBuilder{};
                b.delta(1e-5).samplingRate(0.1).clipNorm(1).stepSize(1).steps(10);
                break;
            case 9: b.expectedBatch(10); break;
            case 10: unit = privacy::PrivacyUnit::User; break;
            case 11:
                unit = privacy::PrivacyUnit::User;
                b.maxExamplesPerUser(0);
                break;
            case 12: b.maxExamplesPerUser(5); break;
            case 13: b.epsilon(1e-8).samplingRate(1.0).steps(100000); break;
            case 14: b.clipNorm(std::nan("")); break;
            case 15:
                b = DpMixMinParamsBuilder{};
                b.epsilon(1).delta(1e-5).clipNorm(1).stepSize(1).steps(10);
                break;
        }
        const auto r = b.build(n, unit);
        QVERIFY(!r.ok());
        QVERIFY2(contains(r.error().message, expected), r.error().message.c_str());
    }
};

QTEST_APPLESS_MAIN(TestDpMixminParams)
#include "tst_dp_mixmin_params.moc"
