#pragma once
// The check every kind table's test starts with (fine-tuning mechanisms, source roles and kinds,
// cluster job kinds): each row's stored spelling is unique and round-trips. The tests then compare
// the spellings with those stored files were written with, and the refusal's words.
#include "tests/support/unit_test.h"

#include <set>
#include <string>
#include <vector>

namespace dpmix::testing {

/// For every row of `table`: nameOf(value) is a spelling no other row has, parse(spelling) gives
/// the row's value back, and nameOf of that is the same spelling. The spellings go to `names`.
template <class Row, class Kind, class NameOf, class Parse>
void checkSpellingsRoundTrip(const std::vector<Row>& table, Kind Row::*key, NameOf nameOf, Parse parse,
                             std::set<std::string>& names) {
    for (const auto& row : table) {
        const std::string name = nameOf(row.*key);
        QVERIFY2(names.insert(name).second, name.c_str());
        const auto parsed = parse(name);
        QVERIFY2(parsed, name.c_str());
        QVERIFY(*parsed == row.*key);
        QCOMPARE(nameOf(*parsed), name);
    }
}

}  // namespace dpmix::testing
