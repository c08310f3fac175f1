// Canary construction and scores. Expected values derived by hand in the comments.
#include "engine/audit/canary.h"

#include "audit_fixtures.h"

#include "tests/support/unit_test.h"

#include <cmath>

using namespace dpmix;
using namespace dpmix::audit;
using namespace dpmix::test_support;

class TestCanary : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void maxClipVectorHasNormCAndTheChosenSign() {
        auto lower = Canary::maxClip(4, 2, 13.0, MaxClipSign::LowerTopSource).value();
        QCOMPARE(lower.maxClipVector(), Eigen::Vector4d(0, 0, 13.0, 0).eval());
        auto raise = Canary::maxClip(4, 2, 13.0, MaxClipSign::RaiseTopSource).value();
        QCOMPARE(raise.maxClipVector(), Eigen::Vector4d(0, 0, -13.0, 0).eval());
        Eigen::VectorXd g;
        raise.extraUnit().gradient(Eigen::VectorXd::Constant(4, 0.25), g);
        QCOMPARE(g, raise.maxClipVector());
        // Score: log λ_{i*}.
        const Eigen::Vector4d l(0.1, 0.2, 0.3, 0.4);
        QCOMPARE(raise.score(l), std::log(0.3));
    }

    void quietestSourceByHand() {
        // At λ = 1/3, BCE gradient g = −P/f (y = 1) or P/(1 − f) (y = 0), f = mean of the row:
        //   x1 P = (0.5, 0.2, 0.8), y 1: f 0.5, g = (−1, −0.4, −1.6)
        //   x2 P = (0.1, 0.2, 0.3), y 0: f 0.2, g = (0.125, 0.25, 0.375)
        //   x3 P = (0.3, 0.2, 0.1), y 1: f 0.2, g = (−1.5, −1, −0.5)
        // Unclipped population variances per source: 0.4618, 0.2606, 0.6529 → source 1.
        Eigen::MatrixXd p(3, 3);
        p << 0.5, 0.2, 0.8, 0.1, 0.2, 0.3, 0.3, 0.2, 0.1;
        const auto splitA = mixmin::makeBinaryObjective(p, {1, 0, 1}).value();
        const Eigen::VectorXd uniform = Eigen::VectorXd::Constant(3, 1.0 / 3.0);
        QCOMPARE(quietestSource(splitA, uniform, 100.0, false), Eigen::Index{1});
        // Clipped to C = 1 (x1 by 1/1.9287, x3 by 1/1.8708; x2 has norm 0.4677 and is kept):
        // variances 0.1504, 0.1035, 0.2422 → still source 1.
        QCOMPARE(quietestSource(splitA, uniform, 1.0, false), Eigen::Index{1});
        // Tangent projection removes each row's mean first: x1 (−0.0, 0.6, −0.6), x2 (−0.125, 0,
        // 0.125), x3 (−0.5, 0, 0.5) → variances 0.0451, 0.08, 0.2085 → source 0.
        QCOMPARE(quietestSource(splitA, uniform, 100.0, true), Eigen::Index{0});
    }

    void naturalCanaryDirectionByHand() {
        // Row (0.2, 0.5, 0.8), label 1, at λ_0 = 1/3: f = 0.5, g = −(1/f)·P = (−0.4, −1, −1.6);
        // centred (0.6, 0, −0.6); d = −centred / ‖·‖ = (−1, 0, 1)/√2.
        const auto splitA = testing::objectiveOf(testing::informativeSourceData(20, 3, 1));
        auto example = makeNaturalCanary(Eigen::Vector3d(0.2, 0.5, 0.8), 1).value();
        auto c = Canary::natural(splitA, example).value();
        const double r = 1.0 / std::sqrt(2.0);
        QVERIFY((c.scoreDirection() - Eigen::Vector3d(-r, 0, r)).norm() < 1e-14);
        const Eigen::Vector3d l(0.2, 0.3, 0.5);
        DPMIX_COMPARE_NEAR(c.score(l), (std::log(0.5) - std::log(0.2)) * r, 1e-14);
        // The extra unit returns the canary's own gradient at the λ it is given.
        Eigen::VectorXd g;
        c.extraUnit().gradient(Eigen::Vector3d::Constant(1.0 / 3), g);
        QVERIFY((g - Eigen::Vector3d(-0.4, -1.0, -1.6)).norm() < 1e-12);
    }

    void badCanariesAreRejectedWithTheField() {
        const auto splitA = testing::objectiveOf(testing::informativeSourceData(20, 3, 1));
        auto wrongK = makeNaturalCanary(Eigen::Vector4d(0.1, 0.2, 0.3, 0.4), 0).value();
        auto e = Canary::natural(splitA, wrongK);
        QVERIFY(!e);
        QVERIFY(contains(e.error().message, "natural-canary"));
        QVERIFY(contains(e.error().message, "4 sources"));
        auto badLabel = makeNaturalCanary(Eigen::Vector3d(0.1, 0.2, 0.3), 2);
        QVERIFY(!badLabel);
        QVERIFY(contains(badLabel.error().message, "label is 2"));
        auto badProb = makeNaturalCanary(Eigen::Vector3d(0.1, 1.2, 0.3), 1);
        QVERIFY(!badProb);
        QVERIFY(contains(badProb.error().message, "natural-canary"));
        QVERIFY(!Canary::maxClip(3, 3, 1.0, MaxClipSign::LowerTopSource));
        QVERIFY(!Canary::maxClip(3, 0, 0.0, MaxClipSign::LowerTopSource));
    }
};

QTEST_APPLESS_MAIN(TestCanary)
#include "tst_canary.moc"
