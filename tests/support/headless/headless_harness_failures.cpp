// A test class whose outcomes are known: 2 functions pass, 3 fail, 1 skips. CTest checks the
// harness's totals line and exit status (3), so a harness that passed a failing check, or lost
// a function, fails the build's tests. The comments and the raw string below hold text that
// looks like test functions; the registry must not list it:
//   void notATest();
#include "tests/support/unit_test.h"

#include <string>

namespace {
const std::string kDecoy = R"(private Q_SLOTS: void decoy() { } })";
}

class HeadlessHarnessFailures : public QObject {
    Q_OBJECT

    void helperThatFails() { QCOMPARE(1, 2); }

private Q_SLOTS:
    void passes() { QCOMPARE(kDecoy.empty(), false); }
    void comparisonFails() {
        QCOMPARE(0.1 + 0.2, 0.4);
        QFAIL("not reached: QCOMPARE returns on failure");
    }
    void verifyFails() { QVERIFY2(1 + 1 == 3, "arithmetic"); }
    void uncaughtExceptionFails() { throw std::runtime_error("thrown"); }
    void skips() { QSKIP("skipped on purpose"); }
    /* void commentedOut() {} */
    void passesAfterAHelperReturns() {
        int braces = '{';  // a brace in a character literal does not end the class
        (void)braces;
        QVERIFY(true);
    }
};

QTEST_APPLESS_MAIN(HeadlessHarnessFailures)
#include "headless_harness_failures.moc"
