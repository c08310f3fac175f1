// k-scaling core (docs/ALGORITHMS.md A.10): the log-log slope fit on synthetic data with a known
// slope (unit), and the experiment's wiring on a small 10-class problem (statistical).
#include "engine/experiments/k_scaling.h"
#include "engine/experiments/subset_sources.h"
#include "engine/mixmin/nonprivate_mixmin.h"
#include "engine/mixmin/objective.h"

#include "tests/support/unit_test.h"

#include <cmath>
#include <random>

using namespace dpmix;
using namespace dpmix::experiments;
using namespace dpmix::test_support;

namespace {

// A 10-class softmax proxy on n examples with true classes; one-vs-rest labels for class 3.
void tenClassProxy(int n, std::uint64_t seed, Eigen::MatrixXd& p, std::vector<int>& labels) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> cls(0, 9);
    std::normal_distribution<double> noise(0.0, 1.0);
    p.resize(n, 10);
    labels.resize(static_cast<std::size_t>(n));
    for (int j = 0; j < n; ++j) {
        const int c = cls(rng);
        Eigen::VectorXd logits(10);
        for (int i = 0; i < 10; ++i) logits(i) = noise(rng) + (i == c ? 2.0 : 0.0);
        const Eigen::VectorXd e = (logits.array() - logits.maxCoeff()).exp();
        p.row(j) = (e / e.sum()).transpose();
        labels[static_cast<std::size_t>(j)] = c == 3 ? 1 : 0;
    }
}

}  // namespace

class TestKScaling : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Monte-Carlo tests run under the `statistical` label, the rest under `unit` (one executable).
    void init() {
        if (!dpmix::test_support::inThisTestPart(
                {"noisyPowerLawRecoversTheSlope", "experimentRunsAndMeasuresExcessAgainstTheNonPrivateOptimum"}))
            QSKIP("runs in the other part of this executable (DPMIX_TEST_PART)");
    }

    void slopeOfAnExactPowerLaw() {
        // α = 3·k^0.5 for k >= 32; the small-k points follow another law and must be left out.
        std::vector<double> k{2, 4, 8, 16, 32, 64, 128, 256, 512}, a;
        for (double x : k) a.push_back(x < 32 ? 100.0 / x : 3.0 * std::sqrt(x));
        const auto f = fitLogLogSlope(k, a, 32.0).value();
        DPMIX_COMPARE_NEAR(f.slope, 0.5, 1e-12);
        DPMIX_COMPARE_NEAR(f.intercept, std::log(3.0), 1e-12);
        DPMIX_COMPARE_NEAR(f.rSquared, 1.0, 1e-12);
        QCOMPARE(f.points, 5LL);
    }

    void slopeByHandOnTwoPoints() {
        // Through (32, 1) and (128, 8): slope = ln 8 / ln 4 = 1.5.
        const auto f = fitLogLogSlope({32, 128}, {1, 8}, 32.0).value();
        DPMIX_COMPARE_NEAR(f.slope, 1.5, 1e-12);
    }

    void noisyPowerLawRecoversTheSlope() {
        // Multiplicative noise with known mean 0 in log space, many ks: least squares is unbiased,
        // so over 50 noise draws the mean fitted slope is 0.49 within 4 standard errors.
        std::mt19937_64 rng(1);
        std::normal_distribution<double> noise(0.0, 0.2);
        std::vector<double> k;
        for (int i = 32; i <= 1024; i += 32) k.push_back(i);
        double sum = 0.0, sumSq = 0.0;
        const int draws = 50;
        for (int d = 0; d < draws; ++d) {
            std::vector<double> a;
            for (double x : k) a.push_back(2e-3 * std::pow(x, 0.49) * std::exp(noise(rng)));
            const double s = fitLogLogSlope(k, a, 32.0).value().slope;
            sum += s;
            sumSq += s * s;
        }
        const double mean = sum / draws, sd = std::sqrt(sumSq / draws - mean * mean);
        QVERIFY2(std::fabs(mean - 0.49) < 4.0 * sd / std::sqrt(double(draws)) + 1e-9, str(mean).c_str());
    }

    void nonPositiveExcessIsSkippedAndTooFewPointsFail() {
        const auto f = fitLogLogSlope({32, 64, 128}, {1.0, -1e-7, 4.0}, 32.0).value();
        QCOMPARE(f.points, 2LL);
        DPMIX_COMPARE_NEAR(f.slope, 1.0, 1e-12);  // ln 4 / ln 4
        QVERIFY(!fitLogLogSlope({32, 64}, {1.0, 0.0}, 32.0));
        QVERIFY(!fitLogLogSlope({2, 4, 8}, {1.0, 2.0, 3.0}, 32.0));
    }

    void experimentRunsAndMeasuresExcessAgainstTheNonPrivateOptimum() {
        Eigen::MatrixXd p;
        std::vector<int> y;
        tenClassProxy(3000, 5, p, y);
        KScalingOptions o;
        o.ks = {2, 8, 32, 64};
        o.seeds = {0, 1, 2};
        o.subsetSeed = 9;
        const auto base = mixmin::DpMixMinParamsBuilder()
                              .epsilon(1.0)
                              .delta(1e-5)
                              .expectedBatch(300)
                              .clipNorm(13.0)
                              .stepSize(1.0)
                              .steps(100);
        const auto r = runKScaling(p, y, base, o).value();
        QCOMPARE(r.rows.size(), std::size_t(4));
        for (const auto& row : r.rows) {
            QCOMPARE(static_cast<long long>(row.subsets.size()), row.k);
            QCOMPARE(row.excess.size(), std::size_t(3));
            // λ* minimises F to within its gap certificate, so no DP run can beat it by more.
            for (double e : row.excess) QVERIFY(e >= -row.nonPrivateGap - 1e-12);
            // F(λ*) is the minimum of the subset-task objective built independently here.
            const auto P = subsetSourceProbabilities(p, row.subsets).value();
            const auto obj = mixmin::makeBinaryObjective(P, y).value();
            const auto star = mixmin::solveNonPrivateMixMin(obj).value();
            DPMIX_COMPARE_NEAR(star.loss, row.nonPrivateLoss, 1e-5);
        }
        QVERIFY(r.fitted);
        QCOMPARE(r.fit.points, 2LL);
        // Bad input names the field.
        auto bad = runKScaling(p, y, base, KScalingOptions{{1}, {0}, 0, 32.0, 1e-8, 0});
        QVERIFY(!bad && contains(bad.error().message, "ks"));
    }
};

QTEST_APPLESS_MAIN(TestKScaling)
#include "tst_k_scaling.moc"
