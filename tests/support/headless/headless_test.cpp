// The runner of the headless harness: the order and the output of Qt Test (initTestCase, then
// each function — once per data row when it has a `_data` function — between init() and
// cleanup(), then cleanupTestCase), and its exit status, the number of failures.
#include "tests/support/headless/headless_test.h"

#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <deque>
#include <stdexcept>

namespace dpmix::headless {
namespace {

enum class Outcome { Pass, Fail, Skip };

struct Column {
    std::string name;
    const std::type_info* type;
};

struct Row {
    std::string tag;
    std::vector<std::any> cells;
};

/// What the function being run has reported, and the data table of its `_data` function.
struct RunState {
    std::string className;
    std::string function;
    std::string tag;
    Outcome outcome = Outcome::Pass;
    std::vector<Column> columns;
    std::vector<Row> rows;
    std::deque<DataRow> rowHandles;  // what newRow() returns, one per row, as long as the table
    std::size_t currentRow = 0;
    int passed = 0;
    int failed = 0;
    int skipped = 0;
};

RunState& state() {
    static RunState s;
    return s;
}

std::string qualifiedName() {
    const RunState& s = state();
    std::string name = s.className + "::" + s.function + "(";
    if (!s.tag.empty()) name += s.tag;
    return name + ")";
}

void printLocation(const char* file, int line) {
    if (file) std::printf("   Loc: [%s(%d)]\n", file, line);
}

}  // namespace

void reportFailure(const std::string& message, const char* file, int line) {
    RunState& s = state();
    if (s.outcome == Outcome::Fail) return;  // Qt Test reports the first failure of a function
    s.outcome = Outcome::Fail;
    std::printf("FAIL!  : %s %s\n", qualifiedName().c_str(), message.c_str());
    printLocation(file, line);
    std::fflush(stdout);
}

void reportSkip(const char* message, const char* file, int line) {
    RunState& s = state();
    if (s.outcome == Outcome::Fail) return;
    s.outcome = Outcome::Skip;
    std::printf("SKIP   : %s %s\n", qualifiedName().c_str(), message ? message : "");
    printLocation(file, line);
    std::fflush(stdout);
}

void info(const char* format, ...) {
    std::printf("QINFO  : %s ", qualifiedName().c_str());
    va_list args;
    va_start(args, format);
    std::vprintf(format, args);
    va_end(args);
    std::printf("\n");
    std::fflush(stdout);
}

const char* currentTestFunction() { return state().function.c_str(); }

void addColumn(const char* name, const std::type_info& type) { state().columns.push_back({name, &type}); }

DataRow& newRow(const char* tag) {
    RunState& s = state();
    s.rows.push_back({tag ? tag : "", {}});
    return s.rowHandles.emplace_back(s.rows.size() - 1);
}

void DataRow::append(std::any value, const std::type_info& type) {
    RunState& s = state();
    Row& row = s.rows.at(index_);
    const std::size_t column = row.cells.size();
    if (column >= s.columns.size())
        throw std::logic_error("data row '" + row.tag + "' has more cells than the " +
                               std::to_string(s.columns.size()) + " columns added");
    if (*s.columns[column].type != type)
        throw std::logic_error("data row '" + row.tag + "', column '" + s.columns[column].name +
                               "': a value of another type than the column's (as Qt Test, types must match)");
    row.cells.push_back(std::move(value));
}

const std::any& cell(const char* column, const std::type_info& type) {
    RunState& s = state();
    for (std::size_t c = 0; c < s.columns.size(); ++c) {
        if (s.columns[c].name != column) continue;
        if (*s.columns[c].type != type)
            throw std::logic_error(std::string("QFETCH of column '") + column +
                                   "' with another type than the column's");
        const Row& row = s.rows.at(s.currentRow);
        if (c >= row.cells.size())
            throw std::logic_error("data row '" + row.tag + "' has no value for column '" + column + "'");
        return row.cells[c];
    }
    throw std::logic_error(std::string("QFETCH of an unknown column '") + column + "'");
}

const TestTable::Entry* TestTable::find(const std::string& name) const {
    for (const Entry& e : functions_)
        if (e.name == name) return &e;
    return nullptr;
}

namespace {

/// Calls `f` as the body of the current function: an exception that escapes is a failure.
void guarded(const std::function<void()>& f) {
    try {
        f();
    } catch (const std::exception& e) {
        reportFailure(std::string("Caught unhandled exception: ") + e.what(), nullptr, 0);
    } catch (...) {
        reportFailure("Caught unhandled exception of an unknown type", nullptr, 0);
    }
}

void count() {
    RunState& s = state();
    if (s.outcome == Outcome::Pass) {
        std::printf("PASS   : %s\n", qualifiedName().c_str());
        ++s.passed;
    } else if (s.outcome == Outcome::Fail) {
        ++s.failed;
    } else {
        ++s.skipped;
    }
    std::fflush(stdout);
}

}  // namespace

bool TestTable::runSpecial(const char* name, const std::string& function, const std::string& tag) {
    const Entry* special = find(name);
    if (!special) return true;
    RunState& s = state();
    s.function = function;
    s.tag = tag;
    guarded(special->function);
    return s.outcome == Outcome::Pass;
}

void TestTable::runFunction(const Entry& entry, const std::string& onlyTag) {
    RunState& s = state();
    s.columns.clear();
    s.rows.clear();
    s.rowHandles.clear();
    s.currentRow = 0;
    s.function = entry.name;
    s.tag.clear();
    s.outcome = Outcome::Pass;

    bool dataDriven = false;
    if (const Entry* data = find(entry.name + "_data")) {
        guarded(data->function);
        if (s.outcome != Outcome::Pass) {
            count();
            return;
        }
        dataDriven = true;
    }
    const std::size_t runs = dataDriven ? s.rows.size() : 1;
    bool ranAny = false;
    for (std::size_t r = 0; r < runs; ++r) {
        const std::string tag = dataDriven ? s.rows[r].tag : "";
        if (!onlyTag.empty() && tag != onlyTag) continue;
        ranAny = true;
        s.currentRow = r;
        s.outcome = Outcome::Pass;
        if (runSpecial("init", entry.name, tag)) guarded(entry.function);
        // cleanup() runs after a failed or skipped function too, as in Qt Test; its own failure counts.
        const Outcome functionOutcome = s.outcome;
        s.outcome = Outcome::Pass;
        runSpecial("cleanup", entry.name, tag);
        if (functionOutcome != Outcome::Pass) s.outcome = functionOutcome;
        count();
    }
    if (!ranAny && !onlyTag.empty()) {
        std::printf("FAIL!  : %s::%s() no data row '%s'\n", className_.c_str(), entry.name.c_str(), onlyTag.c_str());
        ++s.failed;
    }
}

int TestTable::run(int argc, char** argv) {
    RunState& s = state();
    s.className = className_;
    auto isSpecial = [](const std::string& n) {
        return n == "initTestCase" || n == "cleanupTestCase" || n == "init" || n == "cleanup" ||
               (n.size() > 5 && n.compare(n.size() - 5, 5, "_data") == 0);
    };

    std::vector<std::pair<const Entry*, std::string>> selected;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "-functions") {
            for (const Entry& e : functions_)
                if (!isSpecial(e.name)) std::printf("%s()\n", e.name.c_str());
            return 0;
        }
        if (arg.empty() || arg[0] == '-') continue;  // Qt Test's output options mean nothing here
        const std::size_t colon = arg.find(':');
        const std::string name = arg.substr(0, colon);
        const Entry* e = find(name);
        if (!e) {
            std::fprintf(stderr, "Unknown test function: '%s'. Possible matches: run with -functions.\n", name.c_str());
            return 1;
        }
        selected.emplace_back(e, colon == std::string::npos ? "" : arg.substr(colon + 1));
    }
    if (selected.empty())
        for (const Entry& e : functions_)
            if (!isSpecial(e.name)) selected.emplace_back(&e, "");

    const auto start = std::chrono::steady_clock::now();
    std::printf("********* Start testing of %s (headless harness) *********\n", className_.c_str());
    s.outcome = Outcome::Pass;
    const bool initialised = runSpecial("initTestCase", "initTestCase", "");
    if (find("initTestCase")) count();
    if (initialised) {
        for (const auto& [entry, tag] : selected) runFunction(*entry, tag);
    }
    s.outcome = Outcome::Pass;
    runSpecial("cleanupTestCase", "cleanupTestCase", "");
    if (find("cleanupTestCase")) count();
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
    std::printf("Totals: %d passed, %d failed, %d skipped, 0 blacklisted, %lldms\n", s.passed, s.failed, s.skipped,
                static_cast<long long>(ms));
    std::printf("********* Finished testing of %s *********\n", className_.c_str());
    return std::min(s.failed, 127);
}

}  // namespace dpmix::headless
