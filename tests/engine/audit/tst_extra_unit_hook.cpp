// The audit hook added to engine/mixmin (mixmin::ExtraUnit): one canary unit outside the
// objective, Poisson-sampled with rate q from its own stream, clipped like every other unit.
// Expected values: one EG step computed by hand (test-side BCE gradient, clip, sum, softmax).
#include "engine/mixmin/dp_mixmin.h"
#include "engine/mixmin/params.h"
#include "tests/support/unit_test.h"

#include "audit_fixtures.h"

#include <cmath>

using namespace dpmix;
using namespace dpmix::mixmin;
using dpmix::test_support::str;

namespace {

Eigen::VectorXd clipTo(const Eigen::VectorXd& g, double c) {
    const double n = g.norm();
    return n > c ? Eigen::VectorXd(g * (c / n)) : g;
}

// λ_1 after one noiseless full-batch step from uniform, computed independently of the engine.
Eigen::VectorXd handStep(const Eigen::MatrixXd& p, const std::vector<int>& y, const Eigen::VectorXd& extra, double c,
                         double eta) {
    const Eigen::Index k = p.cols();
    Eigen::VectorXd sum = Eigen::VectorXd::Zero(k);
    for (Eigen::Index j = 0; j < p.rows(); ++j) {
        const double f = p.row(j).mean();  // Σ λ_i p_i at λ = 1/k
        const double coef = y[static_cast<std::size_t>(j)] == 1 ? -1.0 / f : 1.0 / (1.0 - f);
        sum += clipTo(coef * p.row(j).transpose(), c);
    }
    if (extra.size() > 0) sum += clipTo(extra, c);
    const Eigen::VectorXd z = (-eta * sum / static_cast<double>(p.rows())).array();  // log(1/k) cancels
    const Eigen::VectorXd e = (z.array() - z.maxCoeff()).exp();
    return e / e.sum();
}

DpMixMinParams oneFullStep(long long n, double clip) {
    return DpMixMinParamsBuilder()
        .epsilon(1.0)
        .delta(1e-5)
        .samplingRate(1.0)
        .clipNorm(clip)
        .stepSize(1.0)
        .steps(1)
        .noise(NoiseMode::None)
        .build(n)
        .value();
}

}  // namespace

class TestExtraUnitHook : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Monte-Carlo tests run under the `statistical` label, the rest under `unit` (one executable).
    void init() {
        if (!dpmix::test_support::inThisTestPart({"unitIsSampledAtRateQ"}))
            QSKIP("runs in the other part of this executable (DPMIX_TEST_PART)");
    }

    void oneStepMatchesHandComputation() {
        Eigen::MatrixXd p(3, 3);
        p << 0.2, 0.5, 0.8, 0.9, 0.1, 0.3, 0.05, 0.02, 0.4;
        const std::vector<int> y{1, 0, 1};
        const auto objective = makeBinaryObjective(p, y).value();
        const double c = 2.0;                     // example 3 (f ≈ 0.157, |g| ≈ 2.6) is clipped
        const Eigen::Vector3d v(0.0, -7.0, 0.0);  // extra unit above C: must be clipped to norm C
        ExtraUnit unit{[&](const Eigen::VectorXd&, Eigen::VectorXd& g) { g = v; }};
        const auto r = runDpMixMin(objective, oneFullStep(3, c), nullptr, {}, {}, &unit).value();
        const Eigen::VectorXd expected = handStep(p, y, v, c, 1.0);
        QVERIFY2((r.lambda - expected).cwiseAbs().maxCoeff() < 1e-12, "λ_1 differs from the hand computation");
        // And without the unit, the hand step without it.
        const auto r0 = runDpMixMin(objective, oneFullStep(3, c)).value();
        QVERIFY((r0.lambda - handStep(p, y, Eigen::VectorXd(), c, 1.0)).cwiseAbs().maxCoeff() < 1e-12);
        QVERIFY((r.lambda - r0.lambda).norm() > 1e-3);  // the unit really moved λ
    }

    void gradientSeesTheCurrentLambda() {
        const auto d = audit::testing::informativeSourceData(50, 3, 5);
        const auto objective = makeBinaryObjective(d.p, d.y).value();
        auto params = oneFullStep(50, 100.0);
        params.steps = 3;
        std::vector<Eigen::VectorXd> seen;
        ExtraUnit unit{[&](const Eigen::VectorXd& l, Eigen::VectorXd& g) {
            seen.push_back(l);
            g.setZero();
        }};
        const auto r = runDpMixMin(objective, params, nullptr, {}, {}, &unit).value();
        QCOMPARE(seen.size(), std::size_t(3));  // q = 1: sampled every step
        QVERIFY((seen[0] - Eigen::VectorXd::Constant(3, 1.0 / 3)).norm() < 1e-15);
        QVERIFY((seen[2] - r.trajectory[2].lambda).norm() < 1e-15);  // λ_2 before step 3
    }

    void zeroGradientUnitLeavesTheRunUnchanged() {
        // Its own sampling stream: batches and noise of the same seed are untouched.
        const auto d = audit::testing::informativeSourceData(400, 4, 9);
        const auto objective = makeBinaryObjective(d.p, d.y).value();
        auto params = DpMixMinParamsBuilder()
                          .epsilon(1.0)
                          .delta(1e-5)
                          .expectedBatch(40)
                          .clipNorm(5.0)
                          .stepSize(1.0)
                          .steps(50)
                          .reproducible(123)
                          .build(400)
                          .value();
        ExtraUnit zero{[](const Eigen::VectorXd&, Eigen::VectorXd& g) { g.setZero(); }};
        const auto a = runDpMixMin(objective, params).value();
        const auto b = runDpMixMin(objective, params, nullptr, {}, {}, &zero).value();
        QCOMPARE(a.lambda, b.lambda);
    }

    void unitIsSampledAtRateQ() {
        // Binomial(T, q) calls over many seeds: the mean must be T·q within 5 standard errors.
        const auto d = audit::testing::informativeSourceData(200, 3, 2);
        const auto objective = makeBinaryObjective(d.p, d.y).value();
        auto params = DpMixMinParamsBuilder()
                          .epsilon(1.0)
                          .delta(1e-5)
                          .samplingRate(0.1)
                          .clipNorm(5.0)
                          .stepSize(1.0)
                          .steps(200)
                          .noise(NoiseMode::None)
                          .build(200)
                          .value();
        long long calls = 0;
        ExtraUnit unit{[&](const Eigen::VectorXd&, Eigen::VectorXd& g) {
            ++calls;
            g.setZero();
        }};
        const int seeds = 50;
        for (int s = 0; s < seeds; ++s) {
            params.randomness = dpmix::privacy::RandomnessSource::seeded(static_cast<std::uint64_t>(s), "dp-mixmin");
            QVERIFY(runDpMixMin(objective, params, nullptr, {}, {}, &unit).ok());
        }
        const double trials = 200.0 * seeds, mean = trials * 0.1, sd = std::sqrt(trials * 0.1 * 0.9);
        QVERIFY2(std::fabs(static_cast<double>(calls) - mean) < 5 * sd, str(calls).c_str());
    }
};

QTEST_APPLESS_MAIN(TestExtraUnitHook)
#include "tst_extra_unit_hook.moc"
