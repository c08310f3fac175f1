// The Qt-free harness's own semantics, where they must match Qt Test's: floating-point QCOMPARE
// is qFuzzyCompare, integers of mixed signedness compare by value, data rows are typed, values
// print readably in failure messages.
#include "tests/support/unit_test.h"

#include <limits>

using dpmix::headless::equalValues;
using dpmix::headless::printable;

class TestHeadlessHarness : public QObject {
    Q_OBJECT
    int initCalls_ = 0;

private Q_SLOTS:
    void init() { ++initCalls_; }

    void doublesCompareAsQtTestDoes() {
        QVERIFY(equalValues(1.0, 1.0 + 1e-13));   // within qFuzzyCompare's 1e-12 relative
        QVERIFY(!equalValues(1.0, 1.0 + 1e-11));  // outside it
        QVERIFY(equalValues(1e-13, 0.0));         // near zero: against zero
        QVERIFY(!equalValues(1e-11, 0.0));
        const double inf = std::numeric_limits<double>::infinity();
        QVERIFY(equalValues(inf, inf));
        QVERIFY(!equalValues(-inf, inf));
        const double nan = std::numeric_limits<double>::quiet_NaN();
        QVERIFY(equalValues(nan, nan));  // Qt Test treats NaN as equal to NaN
        QVERIFY(!equalValues(1.0, nan));
        QVERIFY(equalValues(1.0f, 1.0f + 1e-7f));  // float: 1e-5 relative
        QVERIFY(!equalValues(1.0f, 1.001f));
    }

    void integersCompareByValue() {
        QVERIFY(equalValues(std::size_t(3), 3));
        QVERIFY(!equalValues(std::size_t(-1), -1));  // no wrap-around equality
        QVERIFY(equalValues(std::int64_t(5), 5u));
    }

    void cStringsCompareByContent() {
        const std::string a = "same", b = "same";
        QVERIFY(a.c_str() != b.c_str());
        QVERIFY(equalValues(a.c_str(), b.c_str()));
        QVERIFY(!equalValues(a.c_str(), "other"));
    }

    void valuesPrintReadably() {
        QCOMPARE(printable(std::string("a")), std::string("\"a\""));
        QCOMPARE(printable(true), std::string("true"));
        QCOMPARE(printable(std::vector<int>{1, 2}), std::string("[1, 2]"));
        QCOMPARE(printable(0.1), std::string("0.10000000000000001"));
    }

    void rowsAreTyped_data() {
        QTest::addColumn<int>("n");
        QTest::addColumn<std::string>("name");
        QTest::newRow("one") << 1 << std::string("one");
        QTest::newRow("two") << 2 << std::string("two");
    }
    void rowsAreTyped() {
        QFETCH(int, n);
        QFETCH(std::string, name);
        QCOMPARE(name, std::string(n == 1 ? "one" : "two"));
        QVERIFY(std::string(QTest::currentTestFunction()) == "rowsAreTyped");
    }

    // init() ran before each function above (rowsAreTyped once per row) and before this one.
    void initRunsBeforeEveryFunction() { QCOMPARE(initCalls_, 7); }

    void exceptionsAreCheckedByType() { QVERIFY_THROWS_EXCEPTION(std::out_of_range, (void)std::vector<int>{}.at(1)); }
};

QTEST_APPLESS_MAIN(TestHeadlessHarness)
#include "tst_headless_harness.moc"
