#include "engine/privacy/audit_bound.h"

#include "tests/support/unit_test.h"

#include <cmath>

using namespace dpmix::privacy;

class TestAuditBound : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void zeroErrorsClosedForm() {
        // Beta(1, n) quantile at 0.975 is 1 − 0.025^{1/n}.
        DPMIX_COMPARE_NEAR(clopperPearsonUpper(0, 1000), (1 - std::pow(0.025, 1.0 / 1000)), 1e-14);
        // Paper ceiling: 1000 EVAL runs per world, no errors, δ = 1e-5 → ε_LB = 5.6006.
        const auto b = auditEpsilonLowerBound({0, 0, 1000, 1000}, 1e-5);
        const double p = 1 - std::pow(0.025, 1.0 / 1000);
        DPMIX_COMPARE_NEAR(b.epsilonLB, std::log((1 - 1e-5 - p) / p), 1e-10);
        DPMIX_COMPARE_NEAR(b.epsilonLB, 5.6006, 5e-5);
    }
    void oneBelowAllClosedForm() {
        // k = n−1 errors: Beta(n, 1) quantile at p is p^{1/n}.
        DPMIX_COMPARE_NEAR(clopperPearsonUpper(99, 100), std::pow(0.975, 1.0 / 100), 1e-13);
    }
    void interiorCountsMatchScipy() {
        // scipy.stats.beta.ppf(0.975, 6, 95) and beta.ppf(0.995, 4, 997).
        DPMIX_COMPARE_NEAR(clopperPearsonUpper(5, 100), 0.11283491110546275, 1e-12);
        DPMIX_COMPARE_NEAR(clopperPearsonUpper(3, 1000, 0.99), 0.01093377742040524, 1e-12);
    }
    void allErrorsGiveZero() {
        const auto b = auditEpsilonLowerBound({500, 500, 500, 500}, 1e-5);
        QCOMPARE(b.fprUpper, 1.0);
        QCOMPARE(b.fnrUpper, 1.0);
        QCOMPARE(b.epsilonLB, 0.0);
    }
    void chanceLevelAttackGivesZero() { QCOMPARE(auditEpsilonLowerBound({500, 500, 1000, 1000}, 1e-5).epsilonLB, 0.0); }
    void usesTheBetterOfTheTwoDirections() {
        // Many false negatives but no false positives: the first term carries the bound.
        const auto b = auditEpsilonLowerBound({0, 600, 1000, 1000}, 1e-5);
        const double fpr = 1 - std::pow(0.025, 1.0 / 1000);
        const double expected = std::log((1 - 1e-5 - b.fnrUpper) / fpr);
        DPMIX_COMPARE_NEAR(b.epsilonLB, expected, 1e-12);
        QVERIFY(b.epsilonLB > 0);
    }
    void badCountsThrow() {
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, auditEpsilonLowerBound({11, 0, 10, 10}, 1e-5));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, auditEpsilonLowerBound({0, 0, 0, 10}, 1e-5));
    }
};

QTEST_APPLESS_MAIN(TestAuditBound)
#include "tst_audit_bound.moc"
