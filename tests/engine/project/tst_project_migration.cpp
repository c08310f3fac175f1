// Opening a file written by an older schema migrates it to the current one (v4): from v1 (no
// hash chain) every row gets sealed; from v2 (no run owner, no 'interrupted') `runs` is rebuilt
// with its ids and row hashes, and runs left queued or running become interrupted. The data
// stays, and the result has the same columns as a fresh file.
#include "engine/project/hash_chain.h"
#include "engine/project/project_file.h"
#include "engine/project/schema.h"
#include "engine/project/spec_json.h"
#include "engine/project/sqlite_db.h"
#include "project_fixture.h"

#include "tests/support/unit_test.h"

#include <nlohmann/json.hpp>

#include <filesystem>

#include <unistd.h>

using namespace dpmix;
using namespace dpmix::project;
using namespace dpmix::project::testing;
using dpmix::test_support::TempDir;

namespace {

// The v1 schema as dpmix 0.1 (schema 1) wrote it: kept here verbatim as "an old file".
const char* kSchemaV1 = R"SQL(
PRAGMA application_id = 1146113368;
CREATE TABLE spec(id INTEGER PRIMARY KEY, spec_json TEXT NOT NULL, created_at TEXT NOT NULL, created_by TEXT NOT NULL);
CREATE TABLE sources(id INTEGER PRIMARY KEY, role TEXT NOT NULL CHECK(role IN ('public', 'sensitive')),
  name TEXT NOT NULL UNIQUE, loader TEXT NOT NULL, path TEXT NOT NULL, options_json TEXT NOT NULL,
  user_level INTEGER NOT NULL DEFAULT 0, kind TEXT NOT NULL, examples INTEGER NOT NULL, users INTEGER NOT NULL,
  label_names_json TEXT NOT NULL, domains_json TEXT NOT NULL, channels INTEGER NOT NULL, height INTEGER NOT NULL,
  width INTEGER NOT NULL, content_hash TEXT NOT NULL);
CREATE TABLE runs(id INTEGER PRIMARY KEY, method TEXT NOT NULL, task TEXT NOT NULL, epsilon REAL,
  seed INTEGER NOT NULL, config_json TEXT NOT NULL, build_version TEXT NOT NULL, created_at TEXT NOT NULL,
  status TEXT NOT NULL CHECK(status IN ('queued', 'running', 'done', 'failed', 'cancelled')),
  started_at TEXT, finished_at TEXT, message TEXT NOT NULL DEFAULT '');
CREATE TABLE ledgers(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id), recorded_at TEXT NOT NULL,
  ledger_json TEXT NOT NULL, recorded_epsilon REAL, recorded_delta REAL);
CREATE TABLE lambdas(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id), kind TEXT NOT NULL,
  names_json TEXT NOT NULL, values_json TEXT NOT NULL);
CREATE TABLE metrics(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id), name TEXT NOT NULL,
  class_name TEXT NOT NULL, value REAL);
CREATE TABLE curves(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id), name TEXT NOT NULL,
  step INTEGER NOT NULL, value REAL);
CREATE TABLE audits(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id), name TEXT NOT NULL,
  false_positives INTEGER NOT NULL, false_negatives INTEGER NOT NULL, negatives INTEGER NOT NULL,
  positives INTEGER NOT NULL, delta REAL NOT NULL, confidence REAL NOT NULL, epsilon_lower_bound REAL NOT NULL,
  details_json TEXT NOT NULL);
CREATE TABLE logs(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id), at TEXT NOT NULL,
  level TEXT NOT NULL, message TEXT NOT NULL);
CREATE TABLE models(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id), name TEXT NOT NULL,
  content_hash TEXT NOT NULL, file_name TEXT NOT NULL, bytes INTEGER NOT NULL);
CREATE INDEX ledgers_run ON ledgers(run_id);
CREATE INDEX lambdas_run ON lambdas(run_id);
CREATE INDEX metrics_run ON metrics(run_id);
CREATE INDEX curves_run ON curves(run_id, name, step);
CREATE INDEX audits_run ON audits(run_id);
CREATE INDEX logs_run ON logs(run_id);
CREATE INDEX models_run ON models(run_id);
PRAGMA user_version = 1;
)SQL";

std::string sqlQuote(const std::string& text) {
    std::string out = "'";
    for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
    return out + "'";
}

// PRAGMA table_info of every table as one string: names, types, NOT NULL, defaults.
std::string columnsOf(const std::string& file) {
    std::string out;
    sqlite3* db = nullptr;
    sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
    sqlite3_stmt* tables = nullptr;
    sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type='table' ORDER BY name", -1, &tables, nullptr);
    while (sqlite3_step(tables) == SQLITE_ROW) {
        const std::string table = reinterpret_cast<const char*>(sqlite3_column_text(tables, 0));
        sqlite3_stmt* info = nullptr;
        sqlite3_prepare_v2(db, ("PRAGMA table_info(" + table + ")").c_str(), -1, &info, nullptr);
        while (sqlite3_step(info) == SQLITE_ROW) {
            out += table + "." + reinterpret_cast<const char*>(sqlite3_column_text(info, 1)) + " " +
                   reinterpret_cast<const char*>(sqlite3_column_text(info, 2)) + " " +
                   std::to_string(sqlite3_column_int(info, 3)) + "\n";
        }
        sqlite3_finalize(info);
    }
    sqlite3_finalize(tables);
    sqlite3_close(db);
    return out;
}

}  // namespace

class TestProjectMigration : public QObject {
    Q_OBJECT
    TempDir dir_;

    std::string writeV1File(const char* name) {
        const std::string f = dir_.path() + "/" + name;
        rawExec(f, kSchemaV1);
        rawExec(f,
                "INSERT INTO spec(spec_json, created_at, created_by) VALUES(" + sqlQuote(legacySpecJson()) +
                    ", '2026-01-01T00:00:00.000Z', '0.0.9');"
                    "INSERT INTO sources VALUES(1, 'public', 'public-images', 'idx', '/data/p.idx', '{}', 0, 'images', "
                    "60, 0,"
                    " '[\"a\",\"b\",\"c\",\"d\"]', '[]', 1, 4, 4, 'aaaa');"
                    "INSERT INTO sources VALUES(2, 'sensitive', 'private-images', 'idx', '/data/s.idx', '{}', 0, "
                    "'images', 40,"
                    " 0, '[\"a\",\"b\",\"c\",\"d\"]', '[]', 1, 4, 4, 'bbbb');"
                    "INSERT INTO runs VALUES(1, 'dp-mixmin', 'ac', 1.0, 3, '{}', '0.0.9', '2026-01-01T00:00:01.000Z',"
                    " 'done', '2026-01-01T00:00:02.000Z', '2026-01-01T00:00:03.000Z', '');"
                    "INSERT INTO lambdas VALUES(1, 1, 'private', '[\"ab\",\"cd\"]', '[0.25,0.75]');"
                    "INSERT INTO metrics VALUES(1, 1, 'auc', 'a', 0.75);"
                    "INSERT INTO metrics VALUES(2, 1, 'auc', 'c', 0.5);"
                    "INSERT INTO curves VALUES(1, 1, 'loss', 0, 0.69);"
                    "INSERT INTO logs VALUES(1, 1, '2026-01-01T00:00:02.500Z', 'info', 'hello');");
        return f;
    }

    // The spec as dpmix before the PRV accountant stored it: no privacy.accountant.
    static std::string legacySpecJson() {
        auto j = nlohmann::json::parse(projectSpecToJson(tinySpec()));
        j["privacy"].erase("accountant");
        return j.dump(2);
    }

    // A v2 file as dpmix 0.2 (schema 2) left it: the v1 tables with row_hash, every row sealed,
    // and three runs: done, running (with its ledger: its process was killed) and queued.
    std::string writeV2File(const char* name) {
        const std::string f = writeV1File(name);
        for (const ChainedTable& table : chainedTables())
            if (!table.addedLater) rawExec(f, "ALTER TABLE " + std::string(table.name) + " ADD COLUMN row_hash TEXT");
        rawExec(f,
                "INSERT INTO runs VALUES(2, 'dp-mixmin', 'ac', 2.0, 3, '{}', '0.2.0', '2026-01-02T00:00:01.000Z',"
                " 'running', '2026-01-02T00:00:02.000Z', NULL, '', NULL);"
                "INSERT INTO runs VALUES(3, 'uniform', 'ac', 2.0, 3, '{}', '0.2.0', '2026-01-02T00:00:03.000Z',"
                " 'queued', NULL, NULL, '', NULL);"
                "INSERT INTO ledgers VALUES(1, 2, '2026-01-02T00:00:04.000Z', '{\"entries\":[]}', 2.0, 1e-5, NULL);"
                "PRAGMA user_version = 2;");
        Database db(f, Database::Mode::ReadWrite);
        Transaction t(db);
        sealAllRows(db);
        t.commit();
        return f;
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    void migratesV1ToV2() {
        const std::string f = writeV1File("old.dpmix");
        QCOMPARE(rawInteger(f, "PRAGMA user_version"), 1LL);
        auto opened = ProjectFile::open(f);
        QVERIFY2(opened.ok(), opened.ok() ? "" : opened.error().message.c_str());
        ProjectFile project = std::move(opened).value();
        ProjectFile* p = &project;
        QCOMPARE(rawInteger(f, "PRAGMA user_version"), kSchemaVersion);  // v1 → v2 → v3 → v4
        // The data survived.
        QCOMPARE(p->spec().name, std::string("tiny"));
        QCOMPARE(p->createdBy(), std::string("0.0.9"));
        auto runs = p->runs().value();
        QCOMPARE(runs.size(), std::size_t(1));
        QCOMPARE(toString(runs[0].status), toString(RunStatus::Done));
        QCOMPARE(runs[0].seed, 3LL);
        QCOMPARE(p->lambdas(1).value()[0].values, (std::vector<double>{0.25, 0.75}));
        QCOMPARE(p->metrics(1).value().size(), std::size_t(2));
        QCOMPARE(p->logs(1).value()[0].message, std::string("hello"));
        // Every old row was sealed, and the chain verifies.
        QCOMPARE(rawInteger(f, "SELECT count(*) FROM metrics WHERE row_hash IS NULL"), 0LL);
        auto v = p->verifyChain().value();
        QVERIFY(v.ok);
        // 1 spec, 2 sources, 1 run, 1 λ, 2 metrics, 1 curve point, 1 log, and (v6) the run's status as found
        QCOMPARE(v.rowsChecked, 10LL);
        // New writes extend the migrated chain.
        QVERIFY(p->addMetrics({{1, "macro-auc", "", 0.625}}).ok());
        QVERIFY(p->verifyChain()->ok);
        // Tampering with a migrated row is detected like any other.
        rawExec(f, "UPDATE metrics SET class_name = 'b' WHERE id = 1");
        QCOMPARE(p->verifyChain()->firstBreak->table, std::string("metrics"));
        QCOMPARE(p->verifyChain()->firstBreak->rowId, 1LL);
    }

    void migratesV2ToV3() {
        const std::string f = writeV2File("v2.dpmix");
        QCOMPARE(rawInteger(f, "PRAGMA user_version"), 2LL);
        const std::string hashesBefore =
            rawText(f, "SELECT group_concat(row_hash, ',') FROM (SELECT row_hash FROM runs ORDER BY id)");
        QVERIFY(!hashesBefore.empty());
        auto opened = ProjectFile::open(f);
        QVERIFY2(opened.ok(), opened.ok() ? "" : opened.error().message.c_str());
        ProjectFile project = std::move(opened).value();
        QCOMPARE(rawInteger(f, "PRAGMA user_version"), kSchemaVersion);
        auto runs = project.runs().value();
        QCOMPARE(runs.size(), std::size_t(3));
        QCOMPARE(toString(runs[0].status), std::string("done"));
        // Nobody can finish a run a v2 process left behind: it is interrupted, its ledger kept.
        QCOMPARE(toString(runs[1].status), std::string("interrupted"));
        QCOMPARE(toString(runs[2].status), std::string("interrupted"));
        QVERIFY2(runs[1].message.find("older than schema 3") != std::string::npos, runs[1].message.c_str());
        QVERIFY(!runs[1].finishedAt.empty());
        QCOMPARE(project.ledgers(2)->size(), std::size_t(1));
        QCOMPARE(project.lambdas(1)->size(), std::size_t(1));  // rows referencing runs survive the rebuild
        // Ids and row hashes were copied: the chain is the same chain.
        QCOMPARE(rawText(f, "SELECT group_concat(row_hash, ',') FROM (SELECT row_hash FROM runs ORDER BY id)"),
                 hashesBefore);
        QVERIFY(project.verifyChain()->ok);
        QCOMPARE(rawText(f, "PRAGMA foreign_key_check"), std::string());
        QCOMPARE(rawText(f, "PRAGMA integrity_check"), std::string("ok"));
        // The new schema: runs record their owner.
        const long long id = project.addRun({"dp-mixmin", "ac", 1.0, 4, "{}"}).value();
        QCOMPARE(rawInteger(f, "SELECT owner_pid FROM runs WHERE id = " + std::to_string(id)),
                 static_cast<long long>(::getpid()));
        QVERIFY(project.verifyChain()->ok);
    }

    void anOldProjectKeepsTheRdpAccountant() {
        // A v2 project's stored spec names no accountant: it was certified by RDP and stays so,
        // and running its own spec file again (which names none either) continues it.
        const std::string f = writeV2File("v2-accountant.dpmix");
        {
            auto opened = ProjectFile::open(f);
            QVERIFY2(opened.ok(), opened.ok() ? "" : opened.error().message.c_str());
            QVERIFY(opened->spec().privacy.accountant == privacy::Accountant::Rdp);
        }
        ProjectSpec fromFile = tinySpec();
        fromFile.privacy.accountantNamed = false;  // as parsed from a spec file without the field
        auto continued = ProjectFile::createOrOpen(f, fromFile, tinyFacts());
        QVERIFY2(continued.ok(), continued.ok() ? "" : continued.error().message.c_str());
        QVERIFY(continued->spec().privacy.accountant == privacy::Accountant::Rdp);
        // A spec that names another accountant is another spec.
        ProjectSpec named = tinySpec();
        named.privacy.accountant = privacy::Accountant::Prv;
        named.privacy.accountantNamed = true;
        QVERIFY(!ProjectFile::createOrOpen(f, named, tinyFacts()).ok());
        // A new project from the same spec gets PRV, stored explicitly.
        const std::string fresh = dir_.path() + "/fresh-accountant.dpmix";
        auto created = ProjectFile::create(fresh, fromFile, tinyFacts());
        QVERIFY(created.ok());
        QVERIFY(created->spec().privacy.accountant == privacy::Accountant::Prv);
        QVERIFY(created->specJson().find("\"accountant\": \"prv\"") != std::string::npos);
    }

    void migratedV2FileHasTheCurrentColumns() {
        const std::string old = writeV2File("v2b.dpmix");
        {
            auto p = ProjectFile::open(old);
            QVERIFY(p.ok());
        }
        const std::string fresh = dir_.path() + "/fresh-v3.dpmix";
        {
            auto p = ProjectFile::create(fresh, tinySpec(), tinyFacts());
            QVERIFY(p.ok());
        }
        QCOMPARE(columnsOf(old), columnsOf(fresh));
        // The rebuilt table has the current CHECK: 'interrupted' is a status.
        QVERIFY(rawText(old, "SELECT sql FROM sqlite_master WHERE name = 'runs'").find("'interrupted'") !=
                std::string::npos);
    }

    void migratesV3ToV4() {
        const std::string f = dir_.path() + "/v3.dpmix";
        {
            auto p = ProjectFile::create(f, tinySpec(), tinyFacts());
            QVERIFY(p.ok());
        }
        rawExec(f,
                "DROP TABLE release; DROP TABLE working_settings; DROP TABLE run_transitions; DROP TABLE seal; "
                "DROP TABLE signatures; PRAGMA user_version = 3;");
        auto p = ProjectFile::open(f);
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().message.c_str());
        QCOMPARE(rawInteger(f, "PRAGMA user_version"), kSchemaVersion);  // v3 → v4 → v5 → v6
        QCOMPARE(rawInteger(f, "SELECT count(*) FROM release"), 0LL);    // a project, not a release
        QCOMPARE(rawInteger(f, "SELECT count(*) FROM working_settings"), 0LL);
        QVERIFY(!p->isRelease());
        QVERIFY(!p->readOnly());
        QVERIFY(p->verifyChain()->ok);
    }

    void migratedFileHasTheCurrentColumns() {
        const std::string old = writeV1File("old2.dpmix");
        {
            auto p = ProjectFile::open(old);
            QVERIFY(p.ok());
        }
        const std::string fresh = dir_.path() + "/fresh.dpmix";
        {
            auto p = ProjectFile::create(fresh, tinySpec(), tinyFacts());
            QVERIFY(p.ok());
        }
        QCOMPARE(columnsOf(old), columnsOf(fresh));
    }

    void migrationIsAtomic() {
        // A v1 file whose logs table already has a row_hash column cannot be migrated: the
        // failed migration must leave it at v1, unchanged.
        const std::string f = writeV1File("broken.dpmix");
        rawExec(f, "ALTER TABLE logs ADD COLUMN row_hash TEXT");
        auto p = ProjectFile::open(f);
        QVERIFY(!p.ok());
        QVERIFY2(p.error().message.find("row_hash") != std::string::npos, p.error().message.c_str());
        QCOMPARE(rawInteger(f, "PRAGMA user_version"), 1LL);
        QCOMPARE(rawInteger(f, "SELECT count(*) FROM pragma_table_info('metrics') WHERE name = 'row_hash'"), 0LL);
    }
};

QTEST_APPLESS_MAIN(TestProjectMigration)
#include "tst_project_migration.moc"
