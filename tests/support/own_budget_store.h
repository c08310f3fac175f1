#pragma once
// Each test function as its own data owner: the tests of one executable share a budget store
// (ctest gives every executable its own: cmake/DpmixTargets.cmake), and several of their
// functions create projects on the same fixture data, whose spending would then add up across
// functions. Called from a test class's init(), this points DPMIX_BUDGET_STORE at a fresh store
// in `dir` for the function (and data row) about to run. Works with the Qt-free harness too.
#include "tests/support/unit_test.h"

#include <cstdlib>
#include <string>

namespace dpmix::test_support {

inline std::string useOwnBudgetStore(const TempDir& dir) {
    static int calls = 0;  // one store per init(): a data-driven function gets one per row
    std::string name = std::string("budget-") + QTest::currentTestFunction() + "-" + std::to_string(++calls);
    const std::string path = dir.filePath(name + ".sqlite");
    ::setenv("DPMIX_BUDGET_STORE", path.c_str(), 1);
    return path;
}

}  // namespace dpmix::test_support
