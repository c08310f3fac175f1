// The working settings a user saves for the next run (schema v5): stored and read back, replaced
// by a later save, refused when they are not a JSON object or the file is read-only (the file is
// then unchanged), kept out of the hash chain, and absent (not an error) in a v4 file read
// without migrating it.
#include "engine/project/project_file.h"
#include "engine/project/schema.h"
#include "project_fixture.h"

#include "tests/support/unit_test.h"

#include <nlohmann/json.hpp>

#include <filesystem>

using namespace dpmix;
using namespace dpmix::project;
using namespace dpmix::project::testing;
using dpmix::test_support::contains;
using dpmix::test_support::str;
using dpmix::test_support::TempDir;

class TestWorkingSettings : public QObject {
    Q_OBJECT
    TempDir dir_;

    std::string path(const std::string& name) const { return dir_.path() + "/" + name; }
    ProjectFile fresh(const std::string& name) {
        return ProjectFile::create(path(name), tinySpec(), tinyFacts()).value();
    }

private Q_SLOTS:
    void aNewProjectHasNone() {
        auto p = fresh("none.dpmix");
        auto settings = p.workingSettings();
        QVERIFY(static_cast<bool>(settings));
        QVERIFY(!settings->has_value());
    }

    void savedSettingsReadBackAndALaterSaveReplacesThem() {
        const std::string file = path("saved.dpmix");
        {
            auto p = fresh("saved.dpmix");
            QVERIFY(!p.saveWorkingSettings(R"({"epsilon": 3, "seeds": "0, 1"})"));
        }
        {
            auto p = ProjectFile::open(file).value();
            auto settings = p.workingSettings().value();
            QVERIFY(static_cast<bool>(settings));
            const auto j = nlohmann::json::parse(*settings);
            QCOMPARE(j.at("epsilon").get<double>(), 3.0);
            QCOMPARE(str(j.at("seeds").get<std::string>()), str("0, 1"));
            QVERIFY(!p.saveWorkingSettings(R"({"epsilon": 0.5})"));
        }
        auto p = ProjectFile::open(file).value();
        const auto j = nlohmann::json::parse(*p.workingSettings().value());
        QCOMPARE(j.at("epsilon").get<double>(), 0.5);
        QVERIFY(!j.contains("seeds"));  // replaced, not merged
        QCOMPARE(rawInteger(file, "SELECT count(*) FROM working_settings"), 1LL);
    }

    void anythingButAJsonObjectIsRefusedAndChangesNothing() {
        const std::string file = path("bad.dpmix");
        auto p = fresh("bad.dpmix");
        QVERIFY(!p.saveWorkingSettings(R"({"epsilon": 1})"));
        for (const char* bad : {"[1, 2]", "not json", "3", ""}) {
            auto error = p.saveWorkingSettings(bad);
            QVERIFY2(error.has_value(), bad);
            QVERIFY2(contains(error->message, "expected one JSON object"), error->message.c_str());
            QVERIFY(contains(error->message, file));
        }
        QCOMPARE(str(nlohmann::json::parse(*p.workingSettings().value()).dump()), str(R"({"epsilon":1})"));
    }

    void aReadOnlyOpenRefusesToSave() {
        const std::string file = path("ro.dpmix");
        { fresh("ro.dpmix"); }
        auto p = ProjectFile::open(file, OpenMode::ReadOnly).value();
        auto error = p.saveWorkingSettings(R"({"epsilon": 1})");
        QVERIFY(error.has_value());
        QVERIFY2(contains(error->message, "read-only"), error->message.c_str());
        QVERIFY(!p.workingSettings().value().has_value());
    }

    void theyAreOutsideTheHashChain() {
        auto p = fresh("chain.dpmix");
        QVERIFY(!p.saveWorkingSettings(R"({"epsilon": 2})"));
        auto before = p.verifyChain().value();
        QVERIFY(before.ok);
        QVERIFY(!p.saveWorkingSettings(R"({"epsilon": 4})"));
        QVERIFY(p.verifyChain().value().ok);  // a draft changed; no result row did
    }

    void aVersion4FileReadWithoutMigrationHasNone() {
        const std::string file = path("v4.dpmix");
        { fresh("v4.dpmix"); }
        // A version-4 file has neither the v5 table nor the v6 ones (schema.h, "History").
        rawExec(file,
                "PRAGMA journal_mode = DELETE; DROP TABLE working_settings; DROP TABLE run_transitions; "
                "DROP TABLE seal; DROP TABLE signatures; PRAGMA user_version = 4;");
        {
            auto p = ProjectFile::open(file, OpenMode::ReadOnly).value();
            auto settings = p.workingSettings();
            QVERIFY2(static_cast<bool>(settings), settings ? "" : settings.error().message.c_str());
            QVERIFY(!settings->has_value());
        }
        auto p = ProjectFile::open(file).value();  // read-write: migrated to v5
        QCOMPARE(rawInteger(file, "PRAGMA user_version"), kSchemaVersion);
        QVERIFY(!p.saveWorkingSettings(R"({"epsilon": 2})"));
        QVERIFY(p.workingSettings().value().has_value());
    }
};

QTEST_APPLESS_MAIN(TestWorkingSettings)
#include "tst_working_settings.moc"
