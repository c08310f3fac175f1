// The source kinds' table (engine/data/source_kind.h): every kind's stored spelling round-trips,
// the spellings are those project files were written with, an unknown one is refused with the
// accepted ones.
#include "engine/data/source_kind.h"

#include "tests/support/kind_table_checks.h"
#include "tests/support/unit_test.h"

#include <set>

using namespace dpmix;
using data::SourceKind;

class TestSourceKind : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyKindRoundTrips() {
        std::set<std::string> names;
        testing::checkSpellingsRoundTrip(
            data::allSourceKinds(), &data::SourceKindTraits::kind, [](auto k) { return data::nameOf(k); },
            [](const std::string& n) { return data::parseSourceKind(n); }, names);
        QVERIFY(names == (std::set<std::string>{"images", "text"}));
        QCOMPARE(data::nameOf(SourceKind::Images), std::string("images"));
        QCOMPARE(data::nameOf(SourceKind::Text), std::string("text"));
    }

    void anUnknownKindIsRefused() {
        for (const std::string name : {"image", "", "Text", "audio"}) {
            const auto parsed = data::parseSourceKind(name);
            QVERIFY2(!parsed, name.c_str());
            QCOMPARE(parsed.error().message,
                     "\"" + name + "\" is not a kind of source: expected \"images\" or \"text\"");
        }
    }
};

QTEST_APPLESS_MAIN(TestSourceKind)
#include "tst_source_kind.moc"
