#include "engine/privacy/log_math.h"

#include "tests/support/unit_test.h"

#include <cmath>

using namespace dpmix::privacy;

class TestLogMath : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void logAddMatchesDirectSum() {
        QCOMPARE(logAdd(std::log(2.0), std::log(3.0)), std::log(5.0));
        QCOMPARE(logAdd(kNegInf, 1.5), 1.5);
        // Large arguments where exp() overflows: log(e^1000 + e^1000) = 1000 + log 2.
        DPMIX_COMPARE_NEAR(logAdd(1000.0, 1000.0), (1000.0 + std::log(2.0)), 1e-12);
    }
    void logSubMatchesDirectDifference() {
        DPMIX_COMPARE_NEAR(logSub(std::log(5.0), std::log(3.0)), std::log(2.0), 1e-15);
        QCOMPARE(logSub(2.0, 2.0), kNegInf);
        QCOMPARE(logSub(2.0, kNegInf), 2.0);
        QVERIFY_THROWS_EXCEPTION(std::domain_error, logSub(1.0, 2.0));
    }
    void logErfcInBothRegimes() {
        DPMIX_COMPARE_NEAR(logErfc(0.5), std::log(std::erfc(0.5)), 1e-15);
        DPMIX_COMPARE_NEAR(logErfc(-3.0), std::log(std::erfc(-3.0)), 1e-15);
        // mpmath, 40 digits: log(erfc(20.5)) and log(erfc(30)) (the latter underflows a double).
        DPMIX_COMPARE_NEAR(logErfc(20.5), (-423.8439760787911581809932), 1e-10);
        DPMIX_COMPARE_NEAR(logErfc(30.0), (-903.9741171106438780796002), 1e-10);
        // The two branches meet continuously at 20.
        DPMIX_COMPARE_NEAR(logErfc(19.9999999), logErfc(20.0), 1e-5);
    }
    void logBinomialSmallCases() {
        DPMIX_COMPARE_NEAR(logBinomial(10, 3), std::log(120.0), 1e-12);
        QCOMPARE(logBinomial(7, 0), 0.0);
        DPMIX_COMPARE_NEAR(logBinomial(63, 31), std::log(916312070471295267.0), 1e-12);
    }
};

QTEST_APPLESS_MAIN(TestLogMath)
#include "tst_log_math.moc"
