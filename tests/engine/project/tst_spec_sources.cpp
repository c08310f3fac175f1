// What a spec accepts of its data sources: every sensitive source declares its label set (a label
// set read from the sensitive data would reveal which classes occur), the loaders of the
// heterogeneous pool ("glyphs", "icon-theme"), and the acquisition shift, public sources only.
#include "engine/project/spec_json.h"
#include "tests/engine/project/spec_json_fixture.h"

#include <nlohmann/json.hpp>

#include "tests/support/unit_test.h"

#include <filesystem>

using namespace dpmix;
using namespace dpmix::project;
using namespace dpmix::project::spec_testing;
using namespace std::string_literals;
using Json = nlohmann::json;
namespace fs = std::filesystem;

class TestSpecSources : public QObject, SpecJsonFixture {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QVERIFY(makeDataFiles()); }

    // Every sensitive source declares its label set (docs/DATA.md): an IDX source with a label file
    // and no class list, an mnist-json source without one, a CSV without its label columns are
    // refused with the field to set; a public source may leave it to the data; a spec read back
    // from a project an older dpmix made still opens (the stages refuse it then).
    void sensitiveLabelSetsMustBeDeclared() {
        Json idx = validSpec();
        idx["sensitive"]["options"].erase("classes");
        auto refused = parse(idx);
        QVERIFY(!refused.ok());
        QVERIFY2(refused.error().message.find("sensitive.options.classes: missing: the sensitive idx source 'priv' "
                                              "must declare its label set") != std::string::npos,
                 refused.error().message.c_str());
        QVERIFY2(refused.error().message.find("never reads the label set from the sensitive data") != std::string::npos,
                 refused.error().message.c_str());
        SpecLocation stored = where();
        stored.checkFiles = false;
        stored.checkRanges = false;
        QVERIFY2(parseProjectSpec(idx.dump(), stored, "stored").ok(), "a stored spec must still open");

        Json digits = validSpec();
        digits["sensitive"] = Json{{"name", "digits"}, {"loader", "mnist-json"}, {"path", "shared/priv-images.idx"}};
        auto noDigits = parse(digits);
        QVERIFY(!noDigits.ok());
        QVERIFY2(noDigits.error().message.find("sensitive.options.classes: missing") != std::string::npos,
                 noDigits.error().message.c_str());

        Json csv = validSpec();
        csv["sensitive"] = Json{{"name", "x"},
                                {"loader", "csv-images"},
                                {"path", "shared/priv-images.idx"},
                                {"options", {{"user_column", "Patient"}}}};
        auto noColumns = parse(csv);
        QVERIFY(!noColumns.ok());
        QVERIFY2(noColumns.error().message.find("sensitive.options.labels: missing") != std::string::npos,
                 noColumns.error().message.c_str());

        Json publicOnly = validSpec();
        publicOnly["public_sources"][0]["options"].erase("classes");
        auto accepted = parse(publicOnly);
        QVERIFY2(accepted.ok() || accepted.error().message.find("must declare its label set") == std::string::npos,
                 accepted.ok() ? "" : accepted.error().message.c_str());
    }

    // The public sources unrelated to the task (docs/DATA.md): a spec may name the "glyphs" and
    // "icon-theme" loaders; a sensitive icon theme declares its contexts (its folders would reveal
    // them), a glyphs source's classes are its characters, never the data's.
    void glyphAndIconThemeSources() {
        fs::create_directories(dataDir_ / "fonts");
        fs::create_directories(dataDir_ / "icons");
        Json j = validSpec();
        j["public_sources"].push_back(Json{{"name", "letters"}, {"loader", "glyphs"}, {"path", "fonts"}});
        j["public_sources"].push_back(
            Json{{"name", "icons"}, {"loader", "icon-theme"}, {"path", "icons"}, {"options", {{"sizes", "32,48"}}}});
        j["tasks"]["public"][0]["source"] = "pub";
        j["tasks"]["public"][1]["source"] = "pub";
        j["tasks"]["public"].push_back(Json{{"name", "A"}, {"classes", {"A"}}, {"source", "letters"}});
        j["tasks"]["public"].push_back(Json{{"name", "devices"}, {"classes", {"devices"}}, {"source", "icons"}});
        auto accepted = parse(j);
        QVERIFY2(accepted.ok(), accepted.ok() ? "" : accepted.error().message.c_str());
        QCOMPARE(accepted->publicSources.size(), std::size_t(3));
        QCOMPARE(accepted->publicSources[2].written.loader, "icon-theme"s);

        Json icons = validSpec();
        icons["sensitive"] = Json{{"name", "priv"}, {"loader", "icon-theme"}, {"path", "icons"}};
        auto refused = parse(icons);
        QVERIFY(!refused.ok());
        QVERIFY2(refused.error().message.find("sensitive.options.contexts: missing: the sensitive icon-theme source "
                                              "'priv' must declare its label set (the comma-separated icon "
                                              "contexts") != std::string::npos,
                 refused.error().message.c_str());
        icons["sensitive"]["options"] = Json{{"contexts", "devices,places"}};
        auto declared = parse(icons);
        QVERIFY2(declared.ok() || declared.error().message.find("must declare its label set") == std::string::npos,
                 declared.ok() ? "" : declared.error().message.c_str());
        Json letters = validSpec();
        letters["sensitive"] = Json{{"name", "priv"}, {"loader", "glyphs"}, {"path", "fonts"}};
        auto drawn = parse(letters);
        QVERIFY2(drawn.ok() || drawn.error().message.find("must declare its label set") == std::string::npos,
                 drawn.ok() ? "" : drawn.error().message.c_str());
    }

    void sensitiveFindingsMustBeDeclared() {
        // The label set of a sensitive finding column is not read from the data (it would reveal
        // which findings occur); a public one may be.
        Json j = validSpec();
        j["sensitive"] = Json{{"name", "priv"},
                              {"loader", "csv-images"},
                              {"path", "shared/priv-images.idx"},
                              {"options", {{"finding_column", "Finding Labels"}}}};
        auto refused = parse(j);
        QVERIFY(!refused.ok());
        QVERIFY2(refused.error().message.find("sensitive.options.labels: missing: the sensitive csv-images source "
                                              "'priv' must declare its label set") != std::string::npos,
                 refused.error().message.c_str());
        j["sensitive"]["options"]["labels"] = "Effusion,Mass,Hernia";
        auto declared = parse(j);
        QVERIFY2(declared.ok() || declared.error().message.find("finding_column") == std::string::npos,
                 declared.ok() ? "" : declared.error().message.c_str());
    }

    // Acquisition-shifted copies (the image loaders' "shift" option) are a public-data tool: the
    // sensitive source is refused one, in a new spec and in a stored one; a public source may have one.
    void sensitiveSourceRefusesShift() {
        Json j = validSpec();
        j["sensitive"]["options"]["shift"] = "invert";
        auto refused = parse(j);
        QVERIFY(!refused.ok());
        QVERIFY2(refused.error().message.find("sensitive.options.shift: not allowed: acquisition-shifted copies are a "
                                              "public-data tool; the sensitive data set is used as it is") !=
                     std::string::npos,
                 refused.error().message.c_str());
        SpecLocation stored = where();
        stored.checkFiles = false;
        stored.checkRanges = false;
        QVERIFY(!parseProjectSpec(j.dump(), stored, "stored").ok());

        Json publicShift = validSpec();
        publicShift["public_sources"][0]["options"]["shift"] = "invert+lowres:14";
        auto accepted = parse(publicShift);
        QVERIFY2(accepted.ok(), accepted.ok() ? "" : accepted.error().message.c_str());
        QCOMPARE(accepted->publicSources[0].written.options.at("shift"), "invert+lowres:14"s);
    }
};

QTEST_APPLESS_MAIN(TestSpecSources)
#include "tst_spec_sources.moc"
