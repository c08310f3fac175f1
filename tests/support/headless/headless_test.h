#pragma once
// A Qt-free harness for the engine's tests, for the headless build (-DDPMIX_WITH_GUI=OFF, where
// Qt is not installed): it provides exactly the part of Qt Test's vocabulary that
// tests/support/unit_test.h allows, with Qt Test's meaning — QVERIFY/QCOMPARE return from the
// test function on failure, QCOMPARE compares floating-point values as qFuzzyCompare does, data
// rows are typed, QSKIP in init() skips the function — so one test source means the same thing
// under both harnesses. The test functions are listed by headless_test_registry, which reads the
// test class's `Q_SLOTS` section and writes the file the source includes as "tst_x.moc"
// (the role moc plays for Qt Test). docs/DEVELOPING.md, "The headless test harness".
#include <algorithm>
#include <any>
#include <concepts>
#include <cstdint>
#include <exception>
#include <functional>
#include <limits>
#include <ostream>
#include <ranges>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

namespace dpmix::headless {

/// The base of a test class (Qt Test's tests derive from QObject).
class TestObject {
public:
    virtual ~TestObject() = default;
};

/// The functions of one test class, filled by the generated registry, and their runner.
class TestTable {
public:
    explicit TestTable(std::string className) : className_(std::move(className)) {}
    void add(std::string name, std::function<void()> function) {
        functions_.push_back({std::move(name), std::move(function)});
    }
    /// Runs the functions named on the command line (all when none is named; "-functions" lists
    /// them) and prints Qt Test's PASS/FAIL/SKIP lines; returns the number of failures.
    int run(int argc, char** argv);

private:
    struct Entry {
        std::string name;
        std::function<void()> function;
    };
    const Entry* find(const std::string& name) const;
    void runFunction(const Entry& entry, const std::string& onlyTag);
    bool runSpecial(const char* name, const std::string& function, const std::string& tag);

    std::string className_;
    std::vector<Entry> functions_;
};

// --- Results of the running function (what QVERIFY, QSKIP, ... report to) ---------------------
void reportFailure(const std::string& message, const char* file, int line);
void reportSkip(const char* message, const char* file, int line);
void info(const char* format, ...) __attribute__((format(printf, 1, 2)));

// --- Printing compared values ---------------------------------------------------------------
template <typename T>
concept Streamable = requires(std::ostream& os, const T& v) {
    os << v;
};

template <typename T>
std::string printable(const T& value) {
    std::ostringstream os;
    if constexpr (std::is_same_v<T, bool>) {
        os << (value ? "true" : "false");
    } else if constexpr (std::is_same_v<T, std::string>) {
        os << '"' << value << '"';
    } else if constexpr (std::is_enum_v<T>) {
        os << static_cast<long long>(static_cast<std::underlying_type_t<T>>(value));
    } else if constexpr (std::is_floating_point_v<T>) {
        os.precision(std::is_same_v<T, float> ? 9 : 17);
        os << value;
    } else if constexpr (std::is_pointer_v<T> && !std::is_same_v<T, const char*>) {
        os << static_cast<const void*>(value);
    } else if constexpr (Streamable<T>) {
        os << value;
    } else if constexpr (std::ranges::range<T>) {
        os << '[';
        bool first = true;
        for (const auto& element : value) {
            os << (first ? "" : ", ") << printable(element);
            first = false;
        }
        os << ']';
    } else {
        os << "(a value of type " << typeid(T).name() << ")";
    }
    return os.str();
}

// --- QCOMPARE ---------------------------------------------------------------------------------
/// Qt Test's floating-point comparison: infinities and NaN by class, values near zero against
/// zero, everything else by relative difference (qFuzzyCompare: 1e-12 for double, 1e-5 for float).
template <std::floating_point F>
bool fuzzyEqual(F actual, F expected) {
    constexpr F relative = std::is_same_v<F, float> ? F(1e-5) : F(1e-12);
    auto abs = [](F v) { return v < 0 ? -v : v; };
    if (expected != expected) return actual != actual;  // NaN
    if (abs(expected) == std::numeric_limits<F>::infinity()) return actual == expected;
    if (abs(expected) <= relative) return abs(actual) <= relative;
    return abs(actual - expected) <= relative * std::min(abs(actual), abs(expected));
}

template <typename A, typename E>
bool equalValues(const A& actual, const E& expected) {
    using DA = std::decay_t<A>;
    using DE = std::decay_t<E>;
    constexpr bool textA = std::is_same_v<DA, const char*> || std::is_same_v<DA, char*>;
    constexpr bool textE = std::is_same_v<DE, const char*> || std::is_same_v<DE, char*>;
    if constexpr (textA && textE) {  // C strings compare by content, as Qt Test's qstrcmp
        return std::string_view(actual) == std::string_view(expected);
    } else if constexpr (std::is_floating_point_v<A> || std::is_floating_point_v<E>) {
        using C = std::common_type_t<A, E>;
        return fuzzyEqual<C>(static_cast<C>(actual), static_cast<C>(expected));
    } else if constexpr (std::is_integral_v<A> && std::is_integral_v<E> && !std::is_same_v<A, bool> &&
                         !std::is_same_v<E, bool>) {
        return std::cmp_equal(actual, expected);
    } else {
        return actual == expected;
    }
}

template <typename A, typename E>
bool compare(const A& actual, const E& expected, const char* actualText, const char* expectedText, const char* file,
             int line) {
    if (equalValues(actual, expected)) return true;
    reportFailure("Compared values are not the same\n   Actual   (" + std::string(actualText) + "): " +
                      printable(actual) + "\n   Expected (" + std::string(expectedText) + "): " + printable(expected),
                  file, line);
    return false;
}

inline bool verify(bool ok, const char* statement, const char* description, const char* file, int line) {
    if (ok) return true;
    std::string message = "'" + std::string(statement) + "' returned FALSE.";
    if (description && *description) message += " (" + std::string(description) + ")";
    reportFailure(message, file, line);
    return false;
}

// --- Data-driven tests ------------------------------------------------------------------------
/// The row being filled by newRow(): operator<< appends a cell, typed like its column.
class DataRow {
public:
    explicit DataRow(std::size_t index) : index_(index) {}
    template <typename T>
    DataRow& operator<<(const T& value) {
        append(std::any(value), typeid(T));
        return *this;
    }

private:
    void append(std::any value, const std::type_info& type);
    std::size_t index_;
};

void addColumn(const char* name, const std::type_info& type);
DataRow& newRow(const char* tag);
const std::any& cell(const char* column, const std::type_info& type);

template <typename T>
T fetch(const char* column) {
    return std::any_cast<T>(cell(column, typeid(T)));
}

const char* currentTestFunction();

}  // namespace dpmix::headless

using QObject = dpmix::headless::TestObject;

namespace QTest {
inline const char* currentTestFunction() { return dpmix::headless::currentTestFunction(); }
template <typename T>
void addColumn(const char* name, T* = nullptr) {
    dpmix::headless::addColumn(name, typeid(T));
}
inline dpmix::headless::DataRow& newRow(const char* tag) { return dpmix::headless::newRow(tag); }
}  // namespace QTest

// The generated registry defines dpmixRegisterTests; Q_OBJECT declares it as a member so the
// registry may name the class's private test functions.
#define Q_OBJECT                                                                       \
public:                                                                                \
    static void dpmixRegisterTests(::dpmix::headless::TestTable& table, void* object); \
                                                                                       \
private:
#define Q_SLOTS

#define QTEST_APPLESS_MAIN(TestClass)                   \
    int main(int argc, char** argv) {                   \
        TestClass object;                               \
        ::dpmix::headless::TestTable table(#TestClass); \
        TestClass::dpmixRegisterTests(table, &object);  \
        return table.run(argc, argv);                   \
    }
#define QTEST_GUILESS_MAIN(TestClass) QTEST_APPLESS_MAIN(TestClass)
#define QTEST_MAIN(TestClass) QTEST_APPLESS_MAIN(TestClass)

#define QVERIFY(statement)                                                                                             \
    do {                                                                                                               \
        if (!::dpmix::headless::verify(static_cast<bool>(statement), #statement, nullptr, __FILE__, __LINE__)) return; \
    } while (false)

#define QVERIFY2(statement, description)                                                 \
    do {                                                                                 \
        if (statement) break;                                                            \
        ::dpmix::headless::verify(false, #statement, (description), __FILE__, __LINE__); \
        return;                                                                          \
    } while (false)

#define QCOMPARE(actual, expected)                                                                         \
    do {                                                                                                   \
        if (!::dpmix::headless::compare(actual, expected, #actual, #expected, __FILE__, __LINE__)) return; \
    } while (false)

#define QFETCH(Type, name) Type name = ::dpmix::headless::fetch<Type>(#name)

#define QSKIP(message)                                                \
    do {                                                              \
        ::dpmix::headless::reportSkip((message), __FILE__, __LINE__); \
        return;                                                       \
    } while (false)

#define QFAIL(message)                                                   \
    do {                                                                 \
        ::dpmix::headless::reportFailure((message), __FILE__, __LINE__); \
        return;                                                          \
    } while (false)

#define QVERIFY_THROWS_EXCEPTION(ExceptionType, ...)                                                           \
    do {                                                                                                       \
        std::string dpmixProblem_;                                                                             \
        try {                                                                                                  \
            try {                                                                                              \
                __VA_ARGS__;                                                                                   \
                dpmixProblem_ =                                                                                \
                    "Expected exception of type " #ExceptionType " to be thrown, but no exception was thrown"; \
            } catch (const ExceptionType&) {}                                                                  \
        } catch (const std::exception& dpmixOther_) {                                                          \
            dpmixProblem_ = std::string("Expected exception of type " #ExceptionType                           \
                                        " to be thrown, but std::exception caught with message: ") +           \
                            dpmixOther_.what();                                                                \
        } catch (...) {                                                                                        \
            dpmixProblem_ = "Expected exception of type " #ExceptionType " to be thrown, but another was";     \
        }                                                                                                      \
        if (!dpmixProblem_.empty()) {                                                                          \
            ::dpmix::headless::reportFailure(dpmixProblem_, __FILE__, __LINE__);                               \
            return;                                                                                            \
        }                                                                                                      \
    } while (false)

#define qInfo ::dpmix::headless::info
