// The lookups kind tables share (engine/core/kind_table.h), on a table of this test's own: a
// value's row, a spelling's value, the refusal naming the value and the accepted spellings in
// the house's list form ("a", "b" or "c"), and a value without a row as a programming error.
#include "engine/core/kind_table.h"

#include "tests/support/unit_test.h"

#include <stdexcept>

using namespace dpmix;

namespace {

enum class Colour { Red, Green, Blue, Unlisted };

struct ColourRow {
    Colour colour = Colour::Red;
    std::string_view name;
    int wavelength = 0;
};

const std::vector<ColourRow> kColours = {
    {.colour = Colour::Red, .name = "red", .wavelength = 700},
    {.colour = Colour::Green, .name = "green", .wavelength = 530},
    {.colour = Colour::Blue, .name = "blue", .wavelength = 470},
};

}  // namespace

class TestKindTable : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void aValueFindsItsRow() {
        QCOMPARE(core::rowOf(kColours, &ColourRow::colour, Colour::Green, "Colour").wavelength, 530);
        QCOMPARE(std::string(core::rowOf(kColours, &ColourRow::colour, Colour::Blue, "Colour").name),
                 std::string("blue"));
    }

    void aValueWithoutARowIsAProgrammingError() {
        try {
            core::rowOf(kColours, &ColourRow::colour, Colour::Unlisted, "test::Colour");
            QFAIL("no logic_error");
        } catch (const std::logic_error& e) {
            QCOMPARE(std::string(e.what()), std::string("a test::Colour without a row in its table"));
        }
    }

    void theListReadsAsASentence() {
        QCOMPARE(core::spellingList(kColours), std::string("\"red\", \"green\" or \"blue\""));
        QCOMPARE(core::spellingList(kColours, false), std::string("red, green or blue"));
        const std::vector<ColourRow> two(kColours.begin(), kColours.begin() + 2);
        QCOMPARE(core::spellingList(two), std::string("\"red\" or \"green\""));
        const std::vector<ColourRow> one(kColours.begin(), kColours.begin() + 1);
        QCOMPARE(core::spellingList(one), std::string("\"red\""));
    }

    void aSpellingParsesToItsValueOrIsRefusedWithTheAcceptedOnes() {
        const auto green = core::parseSpelling(kColours, &ColourRow::colour, "green", "a colour");
        QVERIFY(green);
        QVERIFY(*green == Colour::Green);
        for (const std::string name : {"Green", "", "green ", "violet"}) {
            const auto parsed = core::parseSpelling(kColours, &ColourRow::colour, name, "a colour");
            QVERIFY2(!parsed, name.c_str());
            QCOMPARE(parsed.error().message,
                     "\"" + name + "\" is not a colour: expected \"red\", \"green\" or \"blue\"");
        }
    }
};

QTEST_APPLESS_MAIN(TestKindTable)
#include "tst_kind_table.moc"
