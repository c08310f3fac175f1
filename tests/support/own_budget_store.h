#pragma once
// Each test function as its own data owner: the tests of one executable share a budget store
// (ctest gives every executable its own: cmake/DpmixTargets.cmake), and several of their
// functions create projects on the same fixture data, whose spending would then add up across
// functions. Called from a test class's init(), this points DPMIX_BUDGET_STORE at a store of the
// current function (and data row) in `dir`.
#include "tests/support/unit_test.h"

#include <QtTest>

#include <cstdlib>
#include <string>

namespace dpmix::test_support {

inline std::string useOwnBudgetStore(const TempDir& dir) {
    std::string name = std::string("budget-") + QTest::currentTestFunction();
    if (const char* tag = QTest::currentDataTag()) name += std::string("-") + tag;
    for (char& c : name)
        if (c == '/' || c == ' ') c = '_';
    const std::string path = dir.filePath(name + ".sqlite");
    ::setenv("DPMIX_BUDGET_STORE", path.c_str(), 1);
    return path;
}

}  // namespace dpmix::test_support
