// DP-MixMin Algorithm 1, deterministic parts: convergence to λ* with the noise off and
// clipping inactive, a hand-computed clipped step, EG invariance of the tangent projection,
// ledger recording, zero-noise bookkeeping, seeds, trajectory, progress and cancellation.
#include "engine/mixmin/dp_mixmin.h"
#include "engine/mixmin/nonprivate_mixmin.h"
#include "engine/mixmin/weight_metrics.h"
#include "synthetic_proxies.h"
#include "tests/support/unit_test.h"

#include <cmath>
#include <limits>

using namespace dpmix::mixmin;
using namespace dpmix::test_support;
using dpmix::privacy::MechanismKind;

namespace {

DpMixMinParamsBuilder controlBuilder() {
    // Zero noise and a clip norm no gradient reaches: plain stochastic EG on F.
    DpMixMinParamsBuilder b;
    b.epsilon(1.0).delta(1e-5).clipNorm(1e9).stepSize(1.0).noise(NoiseMode::None);
    return b;
}

}  // namespace

class TestDpMixmin : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void fullBatchWithoutNoiseConvergesToTheGridOptimum() {
        for (std::uint64_t seed : {31u, 32u, 33u}) {
            const auto d = testing::randomBinaryData(200, 3, seed);
            const auto o = makeBinaryObjective(d.p, d.y).value();
            const auto p = controlBuilder().samplingRate(1.0).steps(3000).reproducible(seed).build(200).value();
            const auto r = runDpMixMin(o, p).value();
            const Eigen::Vector3d grid =
                testing::gridMinimiser3([&](const Eigen::VectorXd& l) { return testing::referenceBceLoss(d, l); }, 400);
            QVERIFY2((r.lambdaLast - Eigen::VectorXd(grid)).cwiseAbs().maxCoeff() < 0.02,
                     str("seed ", seed, ": far from the brute-force optimum").c_str());
            const auto star = solveNonPrivateMixMin(o, {.gapTolerance = 1e-10}).value();
            QVERIFY((r.lambdaLast - star.lambda).cwiseAbs().maxCoeff() < 1e-4);
        }
    }

    void nonFiniteUnitsContributeNothing() {
        RowMatrix g(3, 2);
        g << 3.0, 4.0, std::nan(""), 1.0, std::numeric_limits<double>::infinity(), 0.0;
        const Eigen::VectorXd f = clippingFactors(g, ClippedGradient::Raw, 2.5);
        QVERIFY(g.row(1).isZero() && g.row(2).isZero());
        QCOMPARE(f(0), 0.5);  // min(1, 2.5 / 5)
        const Eigen::VectorXd sum = g.transpose() * f;
        QVERIFY(sum.allFinite());
        QCOMPARE(sum(0), 1.5);
        QCOMPARE(sum(1), 2.0);
        // End to end: a unit whose gradient is NaN whenever it is sampled leaves λ finite.
        const auto d = testing::randomBinaryData(200, 3, 8);
        const auto o = makeBinaryObjective(d.p, d.y).value();
        const ExtraUnit poisoned{[](const Eigen::VectorXd&, Eigen::VectorXd& grad) { grad.setConstant(std::nan("")); }};
        const auto p = DpMixMinParamsBuilder()
                           .epsilon(1)
                           .delta(1e-5)
                           .samplingRate(1.0)
                           .clipNorm(1.0)
                           .stepSize(1.0)
                           .steps(20)
                           .build(200)
                           .value();
        const auto r = runDpMixMin(o, p, nullptr, {}, {}, &poisoned).value();
        QVERIFY(r.lambda.allFinite());
        DPMIX_COMPARE_NEAR(r.lambda.sum(), 1.0, 1e-9);
    }

    void poissonBatchesWithoutNoiseApproachLambdaStar() {
        // Stochastic EG with a small step: the iterate average reaches a near-optimal F, for
        // every seed (its cosine to λ* is high but the early iterates bias it slightly).
        const auto d = testing::informativeSourceData(2000, 5, 3);
        const auto o = makeBinaryObjective(d.p, d.y).value();
        const auto star = solveNonPrivateMixMin(o).value();
        for (std::uint64_t seed = 0; seed < 5; ++seed) {
            const auto p =
                controlBuilder().expectedBatch(200).stepSize(0.3).steps(1500).reproducible(seed).build(2000).value();
            const auto r = runDpMixMin(o, p).value();
            const double excess =
                testing::referenceBceLoss(d, r.lambdaAverage) - testing::referenceBceLoss(d, star.lambda);
            QVERIFY2(excess >= 0.0 && excess < 1e-3, str("seed ", seed, ": excess ", excess).c_str());
            QVERIFY(cosineSimilarity(r.lambdaAverage, star.lambda) > 0.99);
            // Far better than the start: F(uniform) − F(λ*) is much larger.
            QVERIFY(testing::referenceBceLoss(d, Eigen::VectorXd::Constant(5, 0.2)) -
                        testing::referenceBceLoss(d, star.lambda) >
                    10 * excess);
        }
    }

    void oneClippedStepByHand() {
        // n = 1, P = (0.2, 0.6), y = 1, λ_0 = (½, ½): g = −(0.5, 1.5), ‖g‖ = √2.5. With C = 0.5,
        // q = 1 and no noise, g̃ = g · 0.5/√2.5 and λ_1 ∝ λ_0 ⊙ exp(−η g̃).
        Eigen::MatrixXd p(1, 2);
        p << 0.2, 0.6;
        const auto o = makeBinaryObjective(p, {1}).value();
        DpMixMinParamsBuilder b;
        b.epsilon(1).delta(1e-5).samplingRate(1.0).clipNorm(0.5).stepSize(2.0).steps(1).noise(NoiseMode::None);
        const auto r = runDpMixMin(o, b.build(1).value()).value();
        const double s = 0.5 / std::sqrt(2.5);
        const double a = std::exp(2.0 * 0.5 * s), c = std::exp(2.0 * 1.5 * s);
        DPMIX_COMPARE_NEAR(r.lambdaLast(0), a / (a + c), 1e-14);
        DPMIX_COMPARE_NEAR(r.lambdaLast(1), c / (a + c), 1e-14);
    }

    void tangentProjectionIsInvisibleWithoutClippingAndNoise() {
        const auto d = testing::randomBinaryData(300, 4, 8);
        const auto o = makeBinaryObjective(d.p, d.y).value();
        const auto raw =
            runDpMixMin(o, controlBuilder().expectedBatch(50).steps(200).reproducible(4).build(300).value()).value();
        const auto tan = runDpMixMin(o, controlBuilder()
                                            .expectedBatch(50)
                                            .steps(200)
                                            .reproducible(4)
                                            .clippedGradient(ClippedGradient::TangentProjected)
                                            .build(300)
                                            .value())
                             .value();
        QVERIFY((raw.lambdaLast - tan.lambdaLast).cwiseAbs().maxCoeff() < 1e-12);
    }

    void recordsTheCalibratedGaussianEntry() {
        const auto d = testing::randomBinaryData(1000, 3, 2);
        const auto o = makeBinaryObjective(d.p, d.y).value();
        DpMixMinParamsBuilder b = DpMixMinParamsBuilder::imagingDefaults();
        const auto p = b.epsilon(2.0).expectedBatch(100).reproducible(1).build(1000).value();
        dpmix::privacy::Ledger ledger;
        const auto r = runDpMixMin(o, p, &ledger).value();
        QCOMPARE(ledger.entries().size(), std::size_t(1));
        const auto& e = ledger.entries()[0];
        QVERIFY(e.mechanism == MechanismKind::SubsampledGaussian);
        QCOMPARE(e.stage, std::string("mixture"));
        QCOMPARE(e.split, std::string("A"));
        QCOMPARE(e.q, 0.1);
        QCOMPARE(e.steps, 100LL);
        QCOMPARE(e.clipNorm, 13.0);
        QCOMPARE(e.sigma, p.sigma);
        // ε recorded = target within the calibration tolerance, never above it.
        QVERIFY(e.epsilon <= 2.0);
        QVERIFY(e.epsilon > 2.0 * (1 - 1e-6));
        QCOMPARE(r.epsilon, e.epsilon);
        QVERIFY(ledger.verify().ok);
        DPMIX_COMPARE_NEAR(ledger.total().epsilon, e.epsilon, 1e-12);
    }

    void zeroNoiseRunIsRecordedAsNonPrivate() {
        const auto d = testing::randomBinaryData(100, 3, 2);
        const auto o = makeBinaryObjective(d.p, d.y).value();
        dpmix::privacy::Ledger ledger;
        const auto r = runDpMixMin(o, controlBuilder().expectedBatch(10).steps(5).build(100).value(), &ledger).value();
        QVERIFY(r.ledgerEntry.mechanism == MechanismKind::NonPrivate);
        QVERIFY(ledger.entries().at(0).mechanism == MechanismKind::NonPrivate);
        QVERIFY(std::isinf(r.epsilon));
        QCOMPARE(r.sigma, 0.0);
        QVERIFY(std::isinf(ledger.total().epsilon));
    }

    void seedsReproduceAndDiffer() {
        const auto d = testing::randomBinaryData(500, 4, 3);
        const auto o = makeBinaryObjective(d.p, d.y).value();
        auto run = [&](std::uint64_t seed) {
            return runDpMixMin(o, DpMixMinParamsBuilder::imagingDefaults()
                                      .epsilon(1)
                                      .expectedBatch(50)
                                      .reproducible(seed)
                                      .build(500)
                                      .value())
                .value()
                .lambda;
        };
        QCOMPARE(run(7), run(7));
        QVERIFY((run(7) - run(8)).norm() > 1e-6);
    }

    void trajectoryAndReleasedIterate() {
        const auto d = testing::randomBinaryData(200, 3, 4);
        const auto o = makeBinaryObjective(d.p, d.y).value();
        const auto p = DpMixMinParamsBuilder::imagingDefaults()
                           .epsilon(1)
                           .expectedBatch(20)
                           .steps(25)
                           .trajectoryEvery(10)
                           .release(ReleasedIterate::Average)
                           .build(200)
                           .value();
        const auto r = runDpMixMin(o, p).value();
        std::vector<long long> steps;
        for (const auto& s : r.trajectory) steps.push_back(s.step);
        QCOMPARE(steps, (std::vector<long long>{0, 10, 20, 25}));
        QCOMPARE(r.trajectory.front().lambda, Eigen::VectorXd(Eigen::VectorXd::Constant(3, 1.0 / 3)));
        QCOMPARE(r.trajectory.back().lambda, r.lambdaLast);
        QCOMPARE(r.lambda, r.lambdaAverage);
        QVERIFY(std::abs(r.lambda.sum() - 1.0) < 1e-12 && r.lambda.minCoeff() >= 0.0);
    }

    void progressAndCancellation() {
        const auto d = testing::randomBinaryData(200, 3, 4);
        const auto o = makeBinaryObjective(d.p, d.y).value();
        const auto p =
            DpMixMinParamsBuilder::imagingDefaults().epsilon(1).expectedBatch(20).steps(300).build(200).value();
        long long last = 0, total = 0;
        const auto r = runDpMixMin(o, p, nullptr, [&](const dpmix::ProgressEvent& e) {
            last = e.done;
            total = e.total;
        });
        QVERIFY(r.ok());
        QCOMPARE(last, 300LL);
        QCOMPARE(total, 300LL);

        dpmix::CancellationToken token;
        dpmix::privacy::Ledger ledger;
        bool threw = false;
        try {
            (void)runDpMixMin(
                o, p, &ledger,
                [&](const dpmix::ProgressEvent& e) {
                    if (e.done >= 30) token.cancel();
                },
                token);
        } catch (const dpmix::Cancelled&) {
            threw = true;
        }
        QVERIFY(threw);
        QVERIFY(ledger.entries().empty());  // nothing released, nothing recorded
    }

    void extraUnitActsLikeOneMoreExample() {
        // The audit hook: with q = 1, no noise and no clipping, an extra unit carrying example z's
        // gradient equals running on the data with z appended — up to the divisor, which stays
        // q·n (not n + 1), so the appended run uses η·(n + 1)/n.
        const auto d = testing::randomBinaryData(50, 3, 12);
        Eigen::MatrixXd pz(51, 3);
        pz << d.p, Eigen::RowVector3d(0.9, 0.2, 0.5);
        std::vector<int> yz = d.y;
        yz.push_back(1);
        const auto base = makeBinaryObjective(d.p, d.y).value();
        const auto withZ = makeBinaryObjective(pz, yz).value();
        const auto zOnly = makeBinaryObjective(pz.bottomRows(1), {1}).value();
        ExtraUnit extra{[&](const Eigen::VectorXd& lambda, Eigen::VectorXd& g) {
            RowMatrix row;
            const std::vector<Index> first{0};
            zOnly.exampleGradients(lambda, first, row);
            g = row.row(0).transpose();
        }};
        const auto a =
            runDpMixMin(base, controlBuilder().samplingRate(1.0).steps(50).build(50).value(), nullptr, {}, {}, &extra)
                .value();
        const auto b =
            runDpMixMin(withZ, controlBuilder().samplingRate(1.0).steps(50).stepSize(51.0 / 50.0).build(51).value())
                .value();
        QVERIFY((a.lambdaLast - b.lambdaLast).cwiseAbs().maxCoeff() < 1e-12);
        const auto none = runDpMixMin(base, controlBuilder().samplingRate(1.0).steps(50).build(50).value()).value();
        QVERIFY((a.lambdaLast - none.lambdaLast).cwiseAbs().maxCoeff() > 1e-4);  // z matters
    }

    void paramsForOtherDataAreRefused() {
        const auto d = testing::randomBinaryData(100, 3, 4);
        const auto o = makeBinaryObjective(d.p, d.y).value();
        const auto p = DpMixMinParamsBuilder::imagingDefaults().epsilon(1).expectedBatch(20).build(101).value();
        const auto r = runDpMixMin(o, p);
        QVERIFY(!r.ok());
        QVERIFY(contains(r.error().message, "built for 101 examples but the data have 100"));
    }
};

QTEST_APPLESS_MAIN(TestDpMixmin)
#include "tst_dp_mixmin.moc"
