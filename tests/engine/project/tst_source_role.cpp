// The source roles' table (engine/project/source_role.h): every role's stored spelling
// round-trips, the spellings are the sources table's (its CHECK constraint), an unknown one is
// refused with the accepted ones.
#include "engine/project/source_role.h"

#include "tests/support/kind_table_checks.h"
#include "tests/support/unit_test.h"

#include <set>

using namespace dpmix;
using project::SourceRole;

class TestSourceRole : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyRoleRoundTrips() {
        std::set<std::string> names;
        testing::checkSpellingsRoundTrip(
            project::allSourceRoles(), &project::SourceRoleTraits::role, [](auto k) { return project::nameOf(k); },
            [](const std::string& n) { return project::parseSourceRole(n); }, names);
        QVERIFY(names == (std::set<std::string>{"public", "sensitive"}));
        QCOMPARE(project::nameOf(SourceRole::Public), std::string("public"));
        QCOMPARE(project::nameOf(SourceRole::Sensitive), std::string("sensitive"));
    }

    void anUnknownRoleIsRefused() {
        for (const std::string name : {"private", "", "Public", "sensitive "}) {
            const auto parsed = project::parseSourceRole(name);
            QVERIFY2(!parsed, name.c_str());
            QCOMPARE(parsed.error().message,
                     "\"" + name + "\" is not a source role: expected \"public\" or \"sensitive\"");
        }
    }
};

QTEST_APPLESS_MAIN(TestSourceRole)
#include "tst_source_role.moc"
