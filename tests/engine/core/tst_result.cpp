// Result<T>: a value or an error, and what a temporary Result hands out.
#include "engine/core/result.h"

#include "tests/support/unit_test.h"

#include <string>
#include <type_traits>
#include <vector>

using dpmix::Error;
using dpmix::Result;

namespace {

Result<std::vector<std::string>> names(bool ok) {
    if (!ok) return Error{"no names"};
    return std::vector<std::string>{"alpha", "beta", "gamma"};
}

}  // namespace

// A temporary's value and dereference are values, so range-for over `*names(true)` and binding
// `const auto&` to `names(true).value()` keep the container alive (they dangled when these were
// references into the temporary).
static_assert(std::is_same_v<decltype(*names(true)), std::vector<std::string>>);
static_assert(std::is_same_v<decltype(names(true).value()), std::vector<std::string>>);
static_assert(std::is_same_v<decltype(*std::declval<const Result<int>&>()), const int&>);

class TestResult : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void holdsAValueOrAnError() {
        auto good = names(true);
        QVERIFY(good.ok() && static_cast<bool>(good));
        QCOMPARE(good->size(), std::size_t(3));
        QCOMPARE((*good)[1], std::string("beta"));
        auto bad = names(false);
        QVERIFY(!bad.ok() && !static_cast<bool>(bad));
        QCOMPARE(bad.error().message, std::string("no names"));
    }

    void theValueOfAnErrorThrowsWithItsMessage() {
        auto bad = names(false);
        try {
            (void)bad.value();
            QFAIL("value() of an error returned");
        } catch (const std::logic_error& e) {
            QVERIFY(std::string(e.what()).find("no names") != std::string::npos);
        }
        QVERIFY_THROWS_EXCEPTION(std::logic_error, (void)names(false).value());
    }

    void aTemporaryHandsOutItsValue() {
        std::string joined;
        for (const auto& n : *names(true)) joined += n + ";";
        QCOMPARE(joined, std::string("alpha;beta;gamma;"));
        const auto& held = names(true).value();  // lifetime-extended copy, not a dangling reference
        QCOMPARE(held.back(), std::string("gamma"));
    }

    void movingTheValueOutLeavesTheCallerTheOnlyCopy() {
        auto r = names(true);
        std::vector<std::string> taken = std::move(r).value();
        QCOMPARE(taken.size(), std::size_t(3));
    }
};

QTEST_APPLESS_MAIN(TestResult)
#include "tst_result.moc"
