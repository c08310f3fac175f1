// Non-private MixMin λ*: a closed-form optimum, a brute-force grid on Δ_3 with an independent
// loss, the KKT conditions on the simplex, the gap certificate and option validation.
#include "engine/mixmin/nonprivate_mixmin.h"
#include "engine/mixmin/user_groups.h"
#include "synthetic_proxies.h"
#include "tests/support/unit_test.h"

using namespace dpmix::mixmin;
using namespace dpmix::test_support;

class TestNonPrivateMixmin : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void disjointSupportsGiveTheSourceFrequencies() {
        // Each example is explained by exactly one source: F = −mean log(a_j λ_{s_j}), whose
        // minimiser on Δ is λ_i = n_i / n (the multinomial MLE), including λ_4 = 0.
        const int n = 60;
        Eigen::MatrixXd q = Eigen::MatrixXd::Zero(n, 4);
        for (int j = 0; j < n; ++j) q(j, j < 30 ? 0 : (j < 50 ? 1 : 2)) = 0.2 + 0.01 * (j % 7);
        const auto o = makeTrueClassObjective(q).value();
        const auto r = solveNonPrivateMixMin(o).value();
        QVERIFY(r.converged);
        const Eigen::Vector4d expected(0.5, 1.0 / 3, 1.0 / 6, 0.0);
        QVERIFY2((r.lambda - expected).cwiseAbs().maxCoeff() < 1e-5,
                 str("max error ", (r.lambda - expected).cwiseAbs().maxCoeff()).c_str());
    }

    void matchesBruteForceGridOnThreeSources() {
        for (std::uint64_t seed : {21u, 22u, 23u}) {
            const auto d = testing::randomBinaryData(300, 3, seed);
            const auto o = makeBinaryObjective(d.p, d.y).value();
            const auto r = solveNonPrivateMixMin(o).value();
            QVERIFY(r.converged && r.gap <= 1e-6);
            const Eigen::Vector3d grid =
                testing::gridMinimiser3([&](const Eigen::VectorXd& l) { return testing::referenceBceLoss(d, l); }, 400);
            // λ* is at least as good as the best grid point, and the FW gap certifies it.
            QVERIFY(testing::referenceBceLoss(d, r.lambda) <= testing::referenceBceLoss(d, grid) + 1e-12);
            QVERIFY2((r.lambda - Eigen::VectorXd(grid)).cwiseAbs().maxCoeff() < 0.02,
                     str("seed ", seed, ": λ* far from the grid minimiser").c_str());
            DPMIX_COMPARE_NEAR(r.loss, testing::referenceBceLoss(d, r.lambda), 1e-12);
        }
    }

    void satisfiesKktOnTheSimplex() {
        // KKT for min F on Δ: ∂_i F = ν where λ_i > 0, ∂_i F >= ν elsewhere.
        const auto d = testing::informativeSourceData(3000, 8, 5);
        const auto o = makeBinaryObjective(d.p, d.y).value();
        const auto r = solveNonPrivateMixMin(o, {.gapTolerance = 1e-9}).value();
        QVERIFY(r.converged);
        const Eigen::VectorXd g = o.gradient(r.lambda);
        const double nu = g.minCoeff();
        int support = 0;
        for (Index i = 0; i < g.size(); ++i) {
            if (r.lambda(i) > 1e-3) {
                ++support;
                QVERIFY2(g(i) - nu < 1e-5, str("source ", i, " in the support: ∂F − ν = ", g(i) - nu).c_str());
            }
            QVERIFY(g(i) >= nu);
        }
        QVERIFY(support >= 2);  // an interior optimum: the check is not vacuous
        // Complementary slackness in aggregate: Σ λ_i (∂_i F − ν) is the gap.
        QVERIFY(std::abs(r.lambda.dot(g) - nu - r.gap) < 1e-12);
    }

    void userWeightedObjective() {
        // Weights 1/(m |E_u|): two users, one with 1 example (source 0 explains it), one with 3
        // (source 1 explains them): F = −½ log λ_0 − ½ log λ_1 ⇒ λ* = (½, ½), not (¼, ¾).
        Eigen::MatrixXd q(4, 2);
        q << 1, 0, 0, 1, 0, 1, 0, 1;
        const auto o = makeTrueClassObjective(q).value();
        const auto users = makeUserGroups({{0}, {1, 2, 3}}, 4).value();
        const auto byUser = solveNonPrivateMixMin(o, {}, users.userMeanWeights()).value();
        QVERIFY((byUser.lambda - Eigen::Vector2d(0.5, 0.5)).cwiseAbs().maxCoeff() < 1e-5);
        const auto byExample = solveNonPrivateMixMin(o).value();
        QVERIFY((byExample.lambda - Eigen::Vector2d(0.25, 0.75)).cwiseAbs().maxCoeff() < 1e-5);
    }

    void recordsANonPrivateLedgerEntry() {
        const auto d = testing::randomBinaryData(50, 3, 1);
        const auto r = solveNonPrivateMixMin(makeBinaryObjective(d.p, d.y).value()).value();
        QVERIFY(r.ledgerEntry.mechanism == dpmix::privacy::MechanismKind::NonPrivate);
        QCOMPARE(r.ledgerEntry.split, std::string("A"));
        QVERIFY(std::isinf(r.ledgerEntry.epsilon));
        QCOMPARE(static_cast<long long>(r.lossHistory.size()), r.iterations + 1);
    }

    void badOptionsNameTheField() {
        const auto d = testing::randomBinaryData(10, 3, 1);
        const auto o = makeBinaryObjective(d.p, d.y).value();
        auto msg = [&](NonPrivateOptions opt, Eigen::VectorXd w = {}) {
            return solveNonPrivateMixMin(o, opt, w).error().message;
        };
        QVERIFY(contains(msg({.gapTolerance = 0.0}), "gap-tolerance = 0"));
        QVERIFY(contains(msg({.maxIterations = 0}), "max-iterations = 0"));
        QVERIFY(contains(msg({}, Eigen::VectorXd::Constant(3, 1.0 / 3)), "weights: 3 weights for 10 examples"));
        QVERIFY(contains(msg({}, Eigen::VectorXd::Constant(10, 1.0)), "sum to 10"));
    }
};

QTEST_APPLESS_MAIN(TestNonPrivateMixmin)
#include "tst_nonprivate_mixmin.moc"
