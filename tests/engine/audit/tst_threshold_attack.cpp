// Threshold selection and error counting of the audit attack. Expected values: hand counts, the
// closed-form zero-error Clopper–Pearson ceiling, and a brute-force search written here.
#include "engine/audit/threshold_attack.h"

#include "tests/support/unit_test.h"

#include <cmath>
#include <random>

using namespace dpmix;
using namespace dpmix::audit;
using dpmix::test_support::str;

namespace {

// Test-side counting with plain loops (independent of the binary searches in the code).
privacy::AuditCounts bruteCounts(const std::vector<double>& in, const std::vector<double>& out, double t, bool higher) {
    privacy::AuditCounts c{0, 0, static_cast<long long>(out.size()), static_cast<long long>(in.size())};
    for (double s : out) c.falsePositives += higher ? (s >= t) : (s <= t);
    for (double s : in) c.falseNegatives += higher ? !(s >= t) : !(s <= t);
    return c;
}

}  // namespace

class TestThresholdAttack : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void countsByHand() {
        const std::vector<double> in{1, 2, 3}, out{0, 2, 5};
        // in iff s >= 2: out {2, 5} are false positives, in {1} a false negative.
        auto c = countErrors(in, out, 2.0, AttackDirection::HigherIsIn);
        QCOMPARE(c.falsePositives, 2LL);
        QCOMPARE(c.falseNegatives, 1LL);
        QCOMPARE(c.negatives, 3LL);
        QCOMPARE(c.positives, 3LL);
        // in iff s <= 2: out {0, 2} false positives, in {3} a false negative.
        c = countErrors(in, out, 2.0, AttackDirection::LowerIsIn);
        QCOMPARE(c.falsePositives, 2LL);
        QCOMPARE(c.falseNegatives, 1LL);
    }

    void separableScoresReachTheZeroErrorCeiling() {
        std::vector<double> in, out;
        for (int i = 0; i < 200; ++i) {
            in.push_back(10.0 + i * 0.01);
            out.push_back(-1.0 - i * 0.01);
        }
        const double delta = 1e-5;
        const auto c = selectThreshold(in, out, delta);
        // FP = FN = 0 on 200 + 200 runs: FPR_ub = FNR_ub = 1 − 0.025^{1/200}.
        const double p = 1.0 - std::pow(0.025, 1.0 / 200.0);
        DPMIX_COMPARE_NEAR(c.epsilonLB, std::log((1.0 - delta - p) / p), 1e-9);
        QVERIFY(c.direction == AttackDirection::HigherIsIn);
        QVERIFY(c.threshold > -1.0 && c.threshold <= 10.0);
    }

    void reversedScoresChooseLowerIsIn() {
        // 50 + 50 runs: enough for a positive bound (with a handful every bound is 0 and ties
        // keep HigherIsIn).
        std::vector<double> in, out;
        for (int i = 0; i < 50; ++i) {
            in.push_back(-5.0 + 0.06 * i);  // in [-5, -2.06]
            out.push_back(1.0 + 0.08 * i);  // in [1, 4.92]
        }
        const auto c = selectThreshold(in, out, 1e-5);
        QVERIFY(c.direction == AttackDirection::LowerIsIn);
        QVERIFY(c.threshold >= -2.06 && c.threshold < 1.0);
        QVERIFY(c.epsilonLB > 0.0);
        const auto counts = countErrors(in, out, c.threshold, c.direction);
        QCOMPARE(counts.falsePositives, 0LL);
        QCOMPARE(counts.falseNegatives, 0LL);
    }

    void picksTheMaximisingThresholdOnAHandMadeSet() {
        // Overlapping sets where the best τ is not at the obvious gap: the in-scores have a low
        // tail, and trading FNs for FPs changes ε_LB non-monotonically.
        std::vector<double> in, out;
        std::mt19937_64 rng(11);
        std::uniform_real_distribution<double> u(0.0, 1.0);
        for (int i = 0; i < 60; ++i) out.push_back(u(rng));
        for (int i = 0; i < 45; ++i) in.push_back(0.9 + u(rng));
        for (int i = 0; i < 15; ++i) in.push_back(0.5 * u(rng));
        const double delta = 1e-5;
        // Brute force: every τ on a fine grid spanning the scores, both directions.
        double best = 0.0;
        for (int g = -10; g <= 2100; ++g) {
            const double t = g * 0.001;
            for (bool higher : {true, false})
                best =
                    std::max(best, privacy::auditEpsilonLowerBound(bruteCounts(in, out, t, higher), delta).epsilonLB);
        }
        const auto c = selectThreshold(in, out, delta);
        QVERIFY2(std::fabs(c.epsilonLB - best) < 1e-12, str("selected ", c.epsilonLB, ", brute force ", best).c_str());
        QVERIFY(best > 0.5);  // the set is informative, so the check is not vacuous
        // The reported ε is the one the chosen (τ, direction) really gives.
        const auto counts = bruteCounts(in, out, c.threshold, c.direction == AttackDirection::HigherIsIn);
        QCOMPARE(privacy::auditEpsilonLowerBound(counts, delta).epsilonLB, c.epsilonLB);
    }

    void chanceScoresGiveZero() {
        const std::vector<double> same{1, 2, 3, 4};
        QCOMPARE(selectThreshold(same, same, 1e-5).epsilonLB, 0.0);
    }

    void emptySetsThrow() {
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, selectThreshold({}, {1.0}, 1e-5));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, selectThreshold({1.0}, {}, 1e-5));
    }
};

QTEST_APPLESS_MAIN(TestThresholdAttack)
#include "tst_threshold_attack.moc"
