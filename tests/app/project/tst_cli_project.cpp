// `dpmix new`, `dpmix export-spec` and `dpmix inspect` run as a user would, on a tiny study
// whose IDX files the test writes itself (no real data needed).
#include "../cli/cli_runner.h"
#include "engine/privacy/ledger.h"
#include "engine/project/project_file.h"
#include "tiny_cli_study.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QProcess>
#include <QTemporaryDir>
#include "tests/support/test_support.h"

#include <QtTest>

#include <sqlite3.h>

#include <cmath>

#include <sys/stat.h>

using namespace dpmix;
using namespace dpmix::testing;

class TestCliProject : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString spec_;

    QString path(const QString& name) const { return dir_.filePath(name); }

    void writeSpec(const QString& name, const QByteArray& text) {
        QFile f(path(name));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(text);
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        spec_ = writeTinyStudy(dir_.path());
        QVERIFY(!spec_.isEmpty());
    }

    void newCreatesAProject() {
        const auto r = runDpmix({"new", spec_, "-o", path("study.dpmix")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(r.out.contains("created"));
        QVERIFY(r.out.contains("60 examples"));
        QVERIFY(QFile::exists(path("study.dpmix")));
        const auto again = runDpmix({"new", spec_, "-o", path("study.dpmix")});
        QCOMPARE(again.exitCode, 2);
        QVERIFY(again.err.contains("already exists"));
    }

    void inspectJsonShowsSpecAndSources() {
        const auto r = runDpmix({"inspect", path("study.dpmix"), "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject j = r.json();
        QCOMPARE(j["spec"].toObject()["name"].toString(), QString("tiny"));
        const QJsonArray sources = j["sources"].toArray();
        QCOMPARE(sources.size(), 2);
        QCOMPARE(sources[0].toObject()["examples"].toInt(), 60);
        QCOMPARE(sources[1].toObject()["examples"].toInt(), 40);
        QCOMPARE(sources[1].toObject()["role"].toString(), QString("sensitive"));
        QCOMPARE(sources[0].toObject()["label_names"].toArray().size(), 4);
        QCOMPARE(sources[0].toObject()["content_hash"].toString().size(), 64);
        QVERIFY(sources[0].toObject()["content_hash"] != sources[1].toObject()["content_hash"]);
        QCOMPARE(j["runs"].toArray().size(), 0);
        QCOMPARE(j["integrity"].toObject()["hash_chain_ok"].toBool(), true);
    }

    // An image study without downstream runs is read by AUC: `results` names test-auc (it once fell
    // through to a text study's test-perplexity), and an asked-for other metric says which one the
    // study's runs store.
    void resultsOfAnImageStudyWithoutRunsNamesItsOwnMetric() {
        const auto r = runDpmix({"results", path("study.dpmix")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("has no finished run with the metric 'test-auc'"), qPrintable(r.err));
        QVERIFY2(!r.err.contains("perplexity"), qPrintable(r.err));
        const auto other = runDpmix({"results", path("study.dpmix"), "--metric", "test-perplexity"});
        QCOMPARE(other.exitCode, 1);
        QVERIFY2(other.err.contains("an image study's downstream runs store test-auc"), qPrintable(other.err));
    }

    // A run whose pretraining collapsed (the runner's metric pretraining-collapsed) is named under
    // the table, and listed in --json; the others are not.
    void resultsNameACollapsedPretraining() {
        QCOMPARE(runDpmix({"new", spec_, "-o", path("collapse.dpmix")}).exitCode, 0);
        {
            project::ProjectFile p = project::ProjectFile::open(path("collapse.dpmix").toStdString()).value();
            for (long long seed : {1LL, 2LL}) {
                const long long run = *p.addRun({"dp-mixmin", "ac", 4.0, seed, "{}"});
                QVERIFY(p.setRunStatus(run, project::RunStatus::Running).ok());
                std::vector<project::MetricRecord> metrics{{run, "test-auc", "ac", seed == 1 ? 0.93 : 0.53}};
                if (seed == 2) metrics.push_back({run, "pretraining-collapsed", "ac", 1.0});
                QVERIFY(p.addMetrics(metrics).ok());
                QVERIFY(p.setRunStatus(run, project::RunStatus::Done).ok());
            }
        }
        const auto r = runDpmix({"results", path("collapse.dpmix")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("0.7300 ± 0.2828  (2 seeds, 1 task)"), qPrintable(r.out));  // (0.93 + 0.53) / 2
        QVERIFY2(r.out.contains("warning: run 2 (dp-mixmin, task 'ac', eps 4, seed 2): its pretraining collapsed"),
                 qPrintable(r.out));
        QVERIFY2(!r.out.contains("warning: run 1 "), qPrintable(r.out));
        const auto j = runDpmix({"results", path("collapse.dpmix"), "--json"});
        QVERIFY2(j.exitCode == 0, qPrintable(j.err));
        QCOMPARE(j.json()["collapsed_pretraining_runs"].toArray(), QJsonArray({2}));
    }

    void inspectRecomputesTheLedger() {
        // A run with the published example ε(q = 0.01, σ = 1, T = 1000, δ = 1e-6) = 2.43669380
        // (Opacus RDP accountant; also used by tst_cli_privacy).
        auto opened = project::ProjectFile::open(path("study.dpmix").toStdString());
        QVERIFY(opened.ok());
        project::ProjectFile p = std::move(opened).value();
        const long long run = *p.addRun({"dp-mixmin", "ac", 2.5, 0, "{}"});
        privacy::LedgerEntry e;
        e.stage = "mixture";
        e.split = "A";
        e.q = 0.01;
        e.sigma = 1.0;
        e.steps = 1000;
        e.delta = 1e-6;
        e.epsilon = 2.43669380;
        e.accountant = "rdp-gaussian";
        privacy::Ledger ledger;
        ledger.record(e);
        QVERIFY(p.recordLedger(run, ledger, 2.43669380).ok());
        QVERIFY(p.addLambda({run, "private", {"ab", "cd"}, {0.25, 0.75}}).ok());
        QVERIFY(p.addMetrics({{run, "auc", "a", 0.8125}}).ok());

        auto r = runDpmix({"inspect", path("study.dpmix"), "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        const QJsonObject runJson = r.json()["runs"].toArray()[0].toObject();
        const QJsonObject ledgerJson = runJson["ledgers"].toArray()[0].toObject();
        QCOMPARE(ledgerJson["verified"].toBool(), true);
        DPMIX_COMPARE_NEAR(ledgerJson["recomputed"].toObject()["epsilon"].toDouble(), 2.43669380, 5e-8);
        QCOMPARE(runJson["lambdas"].toArray()[0].toObject()["values"].toArray()[1].toDouble(), 0.75);

        r = runDpmix({"inspect", path("study.dpmix")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("recorded ε = 2.4366938, recomputed ε = 2.43669"), qPrintable(r.out));
        QVERIFY(r.out.contains("✓"));
        QVERIFY(r.out.contains("λ private: ab=0.25 cd=0.75"));

        // The budget composes the stored DP entries: here the one published example.
        auto budget = runDpmix({"budget", path("study.dpmix"), "--json"});
        QVERIFY2(budget.exitCode == 0, qPrintable(budget.err + budget.out));
        DPMIX_COMPARE_NEAR(budget.json()["epsilon"].toDouble(), 2.43669380, 5e-8);
        QCOMPARE(budget.json()["releases"].toInt(), 1);
        QCOMPARE(budget.json()["hash_chain_ok"].toBool(), true);
        budget = runDpmix({"budget", path("study.dpmix")});
        QVERIFY2(budget.out.contains("epsilon 2.437 at delta 1e-06 over 1 DP release(s)"), qPrintable(budget.out));
        QVERIFY(budget.out.contains("hash chain ✓"));

        // A second ledger whose reported total disagrees with its entries: shown, exit 1.
        QVERIFY(p.recordLedger(run, ledger, 1.0).ok());
        r = runDpmix({"inspect", path("study.dpmix")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.out.contains("✗ recorded total epsilon 1.000000 but the entries compose to 2.43669"),
                 qPrintable(r.out));
    }

    void exportSpecRoundTrips() {
        const auto first = runDpmix({"export-spec", path("study.dpmix")});
        QCOMPARE(first.exitCode, 0);
        QVERIFY(first.out.contains("\"tiny/pub-images.idx\""));  // paths as written
        // Written next to the original spec, so its relative paths resolve the same way.
        const auto toFile = runDpmix({"export-spec", path("study.dpmix"), "-o", path("exported.json")});
        QCOMPARE(toFile.exitCode, 0);
        QCOMPARE(QString::fromUtf8(fileBytes(path("exported.json"))), first.out);
        QCOMPARE(runDpmix({"new", path("exported.json"), "-o", path("again.dpmix")}).exitCode, 0);
        QCOMPARE(runDpmix({"export-spec", path("again.dpmix")}).out, first.out);
    }

    void aSpecIsAcceptedWhereAProjectIsExpected() {
        QVERIFY(!QFile::exists(path("tiny.dpmix")));
        auto r = runDpmix({"inspect", spec_});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(QFile::exists(path("tiny.dpmix")));  // created next to the spec
        r = runDpmix({"inspect", spec_});            // and reused
        QCOMPARE(r.exitCode, 0);
        // An edited spec no longer matches its project: refused, nothing changed.
        writeSpec("tiny.json", QByteArray(kSpec).replace("\"seeds\": [0, 1]", "\"seeds\": [0, 1, 2]"));
        const QByteArray before = fileBytes(path("tiny.dpmix"));
        r = runDpmix({"inspect", spec_});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("different version"), qPrintable(r.err));
        QCOMPARE(fileBytes(path("tiny.dpmix")), before);
        writeSpec("tiny.json", kSpec);
    }

    void aFileSizeLimitIsAnErrorNotASignal() {
        // `ulimit -f 16`: 16 KiB, less than an empty project needs. Before, SIGXFSZ killed the
        // process (exit 153, no message) and left its temporary file behind.
        QProcess p;
        p.setWorkingDirectory(dir_.path());
        p.start("bash", {"-c", "ulimit -f 16; exec \"$0\" new \"$1\" -o \"$2\"",
                         dpmix::test_support::binaryPath("/bin/dpmix"), spec_, path("limited.dpmix")});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 2);
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(err.contains("the file-size limit of this process (ulimit -f) was reached"), qPrintable(err));
        QVERIFY(!QFile::exists(path("limited.dpmix")));
        QCOMPARE(QDir(dir_.path()).entryList({"limited.dpmix*"}, QDir::Files | QDir::Hidden).size(), 0);
    }

    void outputPathsThatWouldLoseDataAreRefused() {
        const QByteArray spec = fileBytes(path("tiny.json"));
        auto empty = runDpmix({"new", path("tiny.json"), "-o", ""});
        QCOMPARE(empty.exitCode, 2);
        QVERIFY2(empty.err.contains("-o '': expected the path"), qPrintable(empty.err));
        auto self = runDpmix({"new", path("tiny.json"), "-o", path("tiny.json"), "--force"});
        QCOMPARE(self.exitCode, 2);
        QVERIFY2(self.err.contains("is the spec itself"), qPrintable(self.err));
        QCOMPARE(fileBytes(path("tiny.json")), spec);  // the spec is untouched
    }

    void badSpecIsRefusedWithoutWriting_data() {
        QTest::addColumn<QByteArray>("from");
        QTest::addColumn<QByteArray>("to");
        QTest::addColumn<QString>("expected");
        QTest::newRow("delta") << QByteArray("\"delta\": 1e-6") << QByteArray("\"delta\": 2")
                               << "privacy.delta: 2 is out of range";
        QTest::newRow("epsilon") << QByteArray("\"epsilon\": [1, 2]") << QByteArray("\"epsilon\": 0")
                                 << "privacy.epsilon: 0 is out of range";
        QTest::newRow("rho") << QByteArray("\"rho\": 0.1") << QByteArray("\"rho\": 1")
                             << "privacy.rho: 1 is out of range";
        QTest::newRow("unknown key") << QByteArray("\"seeds\"") << QByteArray("\"seed\"") << "seed: unknown key";
        QTest::newRow("wrong type") << QByteArray("\"steps\": 10") << QByteArray("\"steps\": \"10\"")
                                    << "stages.mixture.steps: \"10\" is a string: expected an integer";
        QTest::newRow("missing file") << QByteArray("tiny/priv-images.idx") << QByteArray("tiny/gone.idx")
                                      << "sensitive.path: \"tiny/gone.idx\" not found";
        QTest::newRow("unknown class") << QByteArray("[\"a\", \"c\"]") << QByteArray("[\"a\", \"e\"]")
                                       << "tasks.sensitive[0].classes[1]: \"e\" is not a label";
    }

    void badSpecIsRefusedWithoutWriting() {
        QFETCH(QByteArray, from);
        QFETCH(QByteArray, to);
        QFETCH(QString, expected);
        QVERIFY(QByteArray(kSpec).contains(from));
        writeSpec("bad.json", QByteArray(kSpec).replace(from, to));
        const auto r = runDpmix({"new", path("bad.json"), "-o", path("bad.dpmix")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(expected), qPrintable(r.err));
        QCOMPARE(r.err.count('\n'), 1);
        QVERIFY(!QFile::exists(path("bad.dpmix")));
        const QStringList leftovers = QDir(dir_.path()).entryList({"bad.dpmix*"});
        QVERIFY2(leftovers.isEmpty(), qPrintable(leftovers.join(", ")));
    }

    void notAProjectIsRefused() {
        writeSpec("notes.dpmix", "hello, I am not a database\n");
        for (const char* command : {"inspect", "export-spec"}) {
            const auto r = runDpmix({command, path("notes.dpmix")});
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.contains("not a dpmix project file"), qPrintable(r.err));
        }
        QCOMPARE(fileBytes(path("notes.dpmix")), QByteArray("hello, I am not a database\n"));
    }

    void newerSchemaIsRefused() {
        QVERIFY(QFile::copy(path("again.dpmix"), path("future.dpmix")));
        rawExec(path("future.dpmix"), "PRAGMA journal_mode = DELETE; PRAGMA user_version = 7;");
        const QByteArray before = fileBytes(path("future.dpmix"));
        const auto r = runDpmix({"inspect", path("future.dpmix")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("newer dpmix (schema version 7"), qPrintable(r.err));
        QCOMPARE(fileBytes(path("future.dpmix")), before);
    }

    void controlCharactersArePrintedVisibly() {
        // A received project's task name with ESC[8m (conceal) would hide every later line.
        auto opened = project::ProjectFile::open(path("study.dpmix").toStdString());
        QVERIFY(opened.ok());
        project::ProjectFile p = std::move(opened).value();
        QVERIFY(p.addRun({"uniform", "ac\x1b[8mhidden", std::nullopt, 3, "{}"}).ok());
        const auto r = runDpmix({"inspect", path("study.dpmix")});
        QVERIFY(!r.out.contains(QChar(0x1b)));
        QVERIFY2(r.out.contains("ac\\x1b[8mhidden"), qPrintable(r.out));
        const auto j = runDpmix({"inspect", path("study.dpmix"), "--json"});
        QVERIFY(!j.out.contains(QChar(0x1b)));  // JSON escapes it as \u001b
    }

    // A -wal of another database beside a project (a copied or restored
    // folder) was replayed into it by the first read-write open. Every command that reads opens
    // read-only and refuses a -wal that is not the file's: the file stays byte-identical and the
    // message says what to do (docs/PROJECT_FILE.md, "Read-only open").
    void aForeignWalIsRefusedByEveryReadingCommand() {
        QVERIFY(QFile::copy(path("again.dpmix"), path("walled.dpmix")));
        {
            sqlite3* other = nullptr;
            QCOMPARE(sqlite3_open(path("other.db").toUtf8().constData(), &other), SQLITE_OK);
            QCOMPARE(sqlite3_exec(other,
                                  "PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; CREATE TABLE t(x);"
                                  "INSERT INTO t VALUES(zeroblob(5000));",
                                  nullptr, nullptr, nullptr),
                     SQLITE_OK);
            QVERIFY(QFile::copy(path("other.db-wal"), path("walled.dpmix-wal")));  // while it holds commits
            sqlite3_close(other);
        }
        const QByteArray before = fileBytes(path("walled.dpmix"));
        const QList<QStringList> commands = {
            {"inspect", path("walled.dpmix")},
            {"inspect", path("walled.dpmix"), "--json"},
            {"budget", path("walled.dpmix")},
            {"results", path("walled.dpmix")},
            {"export-spec", path("walled.dpmix")},
            {"export-release", path("walled.dpmix"), "--runs", "1", "-o", path("walled-release.dpmix")},
            {"run", path("walled.dpmix")}};
        for (const QStringList& command : commands) {
            const auto r = runDpmix(command);
            QVERIFY2(r.exitCode == 2, qPrintable(command.join(' ') + ": " + r.err));
            QVERIFY2(r.err.contains("walled.dpmix-wal does not belong to walled.dpmix"), qPrintable(r.err));
            QVERIFY2(r.err.contains("Move walled.dpmix-wal"), qPrintable(r.err));
            QCOMPARE(r.err.count('\n'), 1);
            QCOMPARE(fileBytes(path("walled.dpmix")), before);
            QVERIFY(!QFile::exists(path("walled.dpmix-shm")));
        }
        QVERIFY(!QFile::exists(path("walled-release.dpmix")));
        QVERIFY(QFile::remove(path("walled.dpmix-wal")));
        QCOMPARE(runDpmix({"inspect", path("walled.dpmix")}).exitCode, 0);
    }

    // A newline or a bidirectional override in a stored name cannot print a line of its own or reorder one
    // (docs/RELIABILITY.md, "read-only means read-only, one door to the file system", 4b).
    void storedNamesCannotForgeLines() {
        QVERIFY(QFile::copy(path("again.dpmix"), path("names.dpmix")));
        {
            auto opened = project::ProjectFile::open(path("names.dpmix").toStdString());
            QVERIFY(opened.ok());
            project::ProjectFile p = std::move(opened).value();
            QVERIFY(p.addRun({"uniform", "ac\nIntegrity  hash chain \xe2\x9c\x93 forged\xe2\x80\xae\xc2\x9b",
                              std::nullopt, 5, "{}"})
                        .ok());
        }
        const auto r = runDpmix({"inspect", path("names.dpmix")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(!r.out.contains("\nIntegrity  hash chain ✓ forged"), qPrintable(r.out));
        QVERIFY2(r.out.contains("task ac\\nIntegrity  hash chain ✓ forged\\u202e\\u009b"), qPrintable(r.out));
        QVERIFY(!r.out.contains(QChar(0x202e)));
    }

    // Paths that are not files, and arguments out of range, are one clear line and exit 2 — never a hang, a signal
    // or a silent default (docs/RELIABILITY.md, "read-only means read-only, one door to the file system").
    void hostilePathsAndArgumentsAreRefused_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("expected");
        const QString longName = path(QString(300, 'x') + ".dpmix");
        QTest::newRow("inspect a 300-byte name") << QStringList{"inspect", longName} << "the name is too long";
        QTest::newRow("results a 300-byte name") << QStringList{"results", longName} << "the name is too long";
        QTest::newRow("new -o a 300-byte name")
            << QStringList{"new", path("tiny.json"), "-o", longName} << "the name is too long";
        QTest::newRow("export-spec -o a 300-byte name")
            << QStringList{"export-spec", path("again.dpmix"), "-o", longName} << "the name is too long";
        QTest::newRow("inspect a FIFO") << QStringList{"inspect", path("pipe.dpmix")} << "FIFO";
        QTest::newRow("new from a FIFO") << QStringList{"new", path("pipe.json"), "-o", path("x.dpmix")} << "FIFO";
        QTest::newRow("run a FIFO spec") << QStringList{"run", path("pipe.json")} << "FIFO";
        QTest::newRow("inspect a loop") << QStringList{"inspect", path("loop-a.dpmix")} << "a loop of symbolic links";
        QTest::newRow("empty --epsilon") << QStringList{"run", path("again.dpmix"), "--epsilon", ""} << "an empty list";
        QTest::newRow("--epsilon 1e308") << QStringList{"run", path("again.dpmix"), "--epsilon", "1e308"}
                                         << "is out of range: expected ε in [1e-9, 1e6]";
        QTest::newRow("--finetune-steps -1") << QStringList{"run", path("again.dpmix"), "--finetune-steps", "-1"}
                                             << "--finetune-steps = -1 is out of range";
        QTest::newRow("--threads 100000")
            << QStringList{"--threads", "100000", "inspect", path("again.dpmix")} << "100000";
    }

    void hostilePathsAndArgumentsAreRefused() {
        QFETCH(QStringList, args);
        QFETCH(QString, expected);
        if (!QFile::exists(path("pipe.dpmix"))) {
            QCOMPARE(::mkfifo(path("pipe.dpmix").toUtf8().constData(), 0600), 0);
            QCOMPARE(::mkfifo(path("pipe.json").toUtf8().constData(), 0600), 0);
            QVERIFY(QFile::link(path("loop-b.dpmix"), path("loop-a.dpmix")));
            QVERIFY(QFile::link(path("loop-a.dpmix"), path("loop-b.dpmix")));
        }
        const QByteArray before = fileBytes(path("again.dpmix"));
        const auto r = runDpmix(args);
        QVERIFY2(r.exitCode == 2, qPrintable(QString::number(r.exitCode) + ": " + r.err));
        QVERIFY2(r.err.contains(expected), qPrintable(r.err));
        QCOMPARE(fileBytes(path("again.dpmix")), before);
        QVERIFY(!QFile::exists(path("x.dpmix")));
    }

    // An escaped NUL in a name, and ε = 1e-320, in a spec (docs/PROJECT_FILE.md, "The spec").
    void specValuesThatCutOrUnderflowAreRefused() {
        writeSpec("nul.json", QByteArray(kSpec).replace("\"name\": \"tiny\"", "\"name\": \"ti\\u0000ny\""));
        auto r = runDpmix({"new", path("nul.json"), "-o", path("nul.dpmix")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("holds a NUL character"), qPrintable(r.err));
        writeSpec("tiny-eps.json", QByteArray(kSpec).replace("\"epsilon\": [1, 2]", "\"epsilon\": 1e-320"));
        r = runDpmix({"new", path("tiny-eps.json"), "-o", path("eps.dpmix")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("privacy.epsilon: 1e-320 is out of range: expected ε in [1e-9, 1e6]"),
                 qPrintable(r.err));
        QVERIFY(!QFile::exists(path("nul.dpmix")) && !QFile::exists(path("eps.dpmix")));
    }

    void tamperingIsReported() {
        rawExec(path("study.dpmix"), "UPDATE metrics SET value = 0.99");
        const auto budget = runDpmix({"budget", path("study.dpmix")});
        QCOMPARE(budget.exitCode, 1);
        QVERIFY2(budget.out.contains("hash chain ✗ at table metrics"), qPrintable(budget.out));
        const auto r = runDpmix({"inspect", path("study.dpmix")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.out.contains("hash chain ✗ first mismatch: table metrics, row id 1"), qPrintable(r.out));
        const auto j = runDpmix({"inspect", path("study.dpmix"), "--json"}).json();
        QCOMPARE(j["integrity"].toObject()["first_break"].toObject()["table"].toString(), QString("metrics"));
    }
};

QTEST_APPLESS_MAIN(TestCliProject)
#include "tst_cli_project.moc"
