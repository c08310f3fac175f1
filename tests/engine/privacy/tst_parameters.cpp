#include "engine/privacy/parameters.h"

#include "tests/support/unit_test.h"

#include <string>

using namespace dpmix::privacy;
using namespace dpmix::test_support;

namespace {
std::string message(const dpmix::Error& e) { return e.message; }
}  // namespace

class TestParameters : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void validGaussianQuery() {
        auto r = GaussianEpsilonQueryBuilder().q(0.01).sigma(1.0).steps(1000).delta(1e-6).build();
        QVERIFY(r.ok());
        QCOMPARE(r->mechanism.q, 0.01);
        QCOMPARE(r->delta, 1e-6);
    }
    void eachBadFieldIsNamedWithValueAndRange() {
        struct Case {
            GaussianEpsilonQueryBuilder b;
            const char* field;
            const char* value;
            const char* range;
        };
        const Case cases[] = {
            {GaussianEpsilonQueryBuilder().q(1.5).sigma(1).steps(1).delta(1e-5), "q", "1.5", "(0, 1]"},
            {GaussianEpsilonQueryBuilder().q(0).sigma(1).steps(1).delta(1e-5), "q", "0", "(0, 1]"},
            {GaussianEpsilonQueryBuilder().q(0.1).sigma(-2).steps(1).delta(1e-5), "sigma", "-2", "> 0"},
            {GaussianEpsilonQueryBuilder().q(0.1).sigma(1).steps(0).delta(1e-5), "steps", "0", ">= 1"},
            {GaussianEpsilonQueryBuilder().q(0.1).sigma(1).steps(1).delta(1), "delta", "1", "(0, 1)"},
        };
        for (const auto& c : cases) {
            auto r = c.b.build();
            QVERIFY(!r.ok());
            const std::string m = message(r.error());
            QVERIFY2(startsWith(m, str(c.field, " = ", c.value)), m.c_str());
            QVERIFY2(contains(m, c.range), m.c_str());
        }
    }
    void missingFieldIsNamed() {
        auto r = SigmaQueryBuilder().epsilon(1).q(0.1).steps(10).build();
        QVERIFY(!r.ok());
        QCOMPARE(message(r.error()), std::string("missing delta: it is required"));
    }
    void dirichletScaleMustBeBelowAlpha() {
        auto r = DirichletMechanismBuilder().alpha(3).r(3).q(0.1).steps(10).build();
        QVERIFY(!r.ok());
        QVERIFY(contains(message(r.error()), "r = 3"));
        QVERIFY(contains(message(r.error()), "alpha = 3"));
        QVERIFY(DirichletRQueryBuilder().epsilon(1).delta(1e-5).alpha(3).q(0.01).steps(100).build().ok());
        QVERIFY(!DirichletRQueryBuilder().epsilon(0).delta(1e-5).alpha(3).q(0.01).steps(100).build().ok());
    }
    void auditCountsMustFitTheRuns() {
        QVERIFY(AuditBoundQueryBuilder().fp(0).fn(0).negatives(10).positives(10).delta(1e-5).build().ok());
        auto r = AuditBoundQueryBuilder().fp(11).fn(0).negatives(10).positives(10).delta(1e-5).build();
        QVERIFY(!r.ok());
        QVERIFY(startsWith(message(r.error()), "fp = 11"));
        QVERIFY(!AuditBoundQueryBuilder().fp(0).fn(-1).negatives(10).positives(10).delta(1e-5).build().ok());
        QVERIFY(
            !AuditBoundQueryBuilder().fp(0).fn(0).negatives(10).positives(10).delta(1e-5).confidence(1.0).build().ok());
    }
};

QTEST_APPLESS_MAIN(TestParameters)
#include "tst_parameters.moc"
