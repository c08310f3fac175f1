// Tampering a reviewer can see, run as a user would (docs/PROJECT_FILE.md, "Tamper evidence"): a ledger's ε or σ
// edited and the hash chain recomputed, a run's status flipped, the last DP run deleted with its
// rows — each reported by `dpmix inspect`, `budget` and `results` (exit 1); the owner's key made
// by `dpmix keys init`, a release signed at export that `dpmix verify --key` accepts unchanged
// and refuses edited by one byte, and a project signed on demand by `dpmix sign`.
#include "../cli/cli_runner.h"
#include "engine/privacy/ledger.h"
#include "engine/privacy/ledger_json.h"
#include "engine/project/hash_chain.h"
#include "engine/project/project_file.h"
#include "engine/project/seal.h"
#include "engine/project/sqlite_db.h"
#include "tiny_cli_study.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include "tests/support/test_support.h"

#include <QtTest>

#include <functional>

using namespace dpmix;
using namespace dpmix::testing;

namespace {

// What a tamperer with dpmix's own code does after an edit: recompute the chain and the seal.
void resealChainAndSeal(const std::string& file) {
    project::Database db(file, project::Database::Mode::ReadWrite);
    db.exec("BEGIN IMMEDIATE");
    project::sealAllRows(db);
    project::writeSeal(db);
    db.exec("COMMIT");
}

// Replaces the last ledger of `runId` with `edit` applied to its first entry (ε recorded as it says).
void editLedger(const std::string& file, long long runId, const std::function<void(privacy::LedgerEntry&)>& edit) {
    project::Database db(file, project::Database::Mode::ReadWrite);
    project::Statement read(db.handle(),
                            "SELECT id, ledger_json FROM ledgers WHERE run_id = ? ORDER BY id DESC LIMIT 1");
    read.bind(1, static_cast<std::int64_t>(runId));
    QVERIFY(read.step());
    const auto id = read.integer(0);
    auto ledger = privacy::ledgerFromJson(read.text(1)).value();
    auto entry = ledger.entries().front();
    edit(entry);
    privacy::Ledger edited;
    edited.record(entry);
    project::Statement write(db.handle(), "UPDATE ledgers SET ledger_json = ?, recorded_epsilon = ? WHERE id = ?");
    write.bind(1, privacy::ledgerToJson(edited)).bind(2, entry.epsilon).bind(3, id).run();
}

}  // namespace

class TestCliTamper : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

    QString path(const QString& name) const { return dir_.filePath(name); }

    // A copy of the study with `edit` applied to it.
    QString tampered(const QString& name, const std::function<void(const std::string&)>& edit) {
        const QString f = path(name + ".dpmix");
        QFile::remove(f);
        if (!QFile::copy(path("study.dpmix"), f)) qFatal("copy failed");
        QFile(f).setPermissions(QFile::ReadOwner | QFile::WriteOwner);
        edit(f.toStdString());
        return f;
    }

    // inspect, budget and results each report `what` and exit 1; none says "hash chain ✓".
    void everyReaderReports(const QString& file, const QString& what) {
        for (const QStringList& args :
             {QStringList{"inspect", file}, QStringList{"budget", file}, QStringList{"results", file}}) {
            const auto r = runDpmix(args);
            const QString all = r.out + r.err;
            QVERIFY2(r.exitCode == 1,
                     qPrintable(args.join(' ') + ": exit " + QString::number(r.exitCode) + "\n" + all));
            QVERIFY2(all.contains(what), qPrintable(args.join(' ') + ":\n" + all));
            QVERIFY2(!all.contains("hash chain ✓"), qPrintable(args.join(' ') + ":\n" + all));
        }
        const auto json = runDpmix({"budget", file, "--json"});
        QCOMPARE(json.json()["integrity_ok"].toBool(true), false);
        const auto inspect = runDpmix({"inspect", file, "--json"});
        QVERIFY2(inspect.json()["trust"].toObject()["headline"].toString().startsWith("ALTERED"),
                 qPrintable(inspect.json()["trust"].toObject()["headline"].toString()));
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        qputenv("DPMIX_KEY_DIR", path("keys").toUtf8());  // the owner's key of this test, inherited by dpmix
        QVERIFY(!writeTinyStudy(dir_.path()).isEmpty());
        const auto created = runDpmix({"new", path("tiny.json"), "-o", path("study.dpmix")});
        QVERIFY2(created.exitCode == 0, qPrintable(created.err));
        auto p = project::ProjectFile::open(path("study.dpmix").toStdString()).value();
        // Runs 1 and 3: DP-MixMin releases; run 2 failed.
        auto dpRun = [&](int seed) {
            const long long id = p.addRun({"dp-mixmin", "ac", 1.0, seed, R"({"stage":"mixture","rho":0.1})"}).value();
            auto e = privacy::gaussianEntry("mixture", "A", privacy::PrivacyUnit::Example, 0.1, 2.0, 10, 1e-6, 13.0);
            privacy::setRandomness(e, privacy::RandomnessMode::Secret);
            privacy::Ledger ledger;
            ledger.record(e);
            (void)p.recordLedger(id, ledger).value();
            (void)p.setRunStatus(id, project::RunStatus::Running).value();
            (void)p.addLambda({id, "private", {"ab", "cd"}, {0.25, 0.75}}).value();
            (void)p
                .addMetrics({{id, "sigma", "", 2.0}, {id, "epsilon-spent", "", e.epsilon}, {id, "test-auc", "ac", 0.8}})
                .value();
            (void)p.setRunStatus(id, project::RunStatus::Done).value();
        };
        dpRun(0);
        const long long failed = p.addRun({"dp-mixmin", "ac", 1.0, 1, "{}"}).value();
        (void)p.setRunStatus(failed, project::RunStatus::Running).value();
        (void)p.setRunStatus(failed, project::RunStatus::Failed, "diverged").value();
        dpRun(2);
    }

    void intactStudyVerifies() {
        for (const QStringList& args :
             {QStringList{"inspect", path("study.dpmix")}, QStringList{"budget", path("study.dpmix")},
              QStringList{"results", path("study.dpmix")}}) {
            const auto r = runDpmix(args);
            QVERIFY2(r.exitCode == 0, qPrintable(args.join(' ') + "\n" + r.out + r.err));
            QVERIFY2(r.out.contains("hash chain ✓"), qPrintable(r.out));
        }
    }

    void resealedEpsilonEditIsReported() {
        const QString f = tampered("epsilon", [](const std::string& file) {
            editLedger(file, 3, [](privacy::LedgerEntry& e) { e.epsilon = 0.05; });
            resealChainAndSeal(file);
        });
        everyReaderReports(f, "run 3 ledger 1: entry 1");
    }

    void resealedSigmaEditIsReported() {
        const QString f = tampered("sigma", [](const std::string& file) {
            // σ and ε edited together (the ledger recomputes): not the σ the run reported.
            editLedger(file, 1, [](privacy::LedgerEntry& e) {
                e.sigma = 8.0;
                e.epsilon = privacy::recomputeEpsilon(e);
            });
            resealChainAndSeal(file);
        });
        everyReaderReports(f, "reported noise multiplier sigma 2");
    }

    void statusFlipIsReported() {
        const QString f = tampered("status", [](const std::string& file) {
            project::Database db(file, project::Database::Mode::ReadWrite);
            db.exec("UPDATE runs SET status = 'done', message = '' WHERE id = 2");  // failed → done
        });
        everyReaderReports(f, "run 2 is 'done', but its sealed history ends 'failed'");
        const QString g = tampered("hidden", [](const std::string& file) {
            project::Database db(file, project::Database::Mode::ReadWrite);
            db.exec("UPDATE runs SET status = 'cancelled' WHERE id = 3");  // done → cancelled: a result hidden
            db.exec("BEGIN IMMEDIATE");
            project::writeSeal(db);  // even resealed
            db.exec("COMMIT");
        });
        everyReaderReports(g, "run 3 is 'cancelled'");
    }

    void deletedLastRunIsReported() {
        const QString f = tampered("deleted", [](const std::string& file) {
            project::Database db(file, project::Database::Mode::ReadWrite);
            for (const char* table : {"ledgers", "lambdas", "metrics", "run_transitions"})
                db.exec(std::string("DELETE FROM ") + table + " WHERE run_id = 3");
            db.exec("DELETE FROM runs WHERE id = 3");
        });
        everyReaderReports(f, "table runs: sealed with 3 rows, has 2 rows now");
    }

    void ownerKeysAreMadeAndShown() {
        const auto init = runDpmix({"keys", "init"});
        QVERIFY2(init.exitCode == 0, qPrintable(init.err));
        QVERIFY(init.out.contains("fingerprint SHA256:"));
        QVERIFY(QFile::exists(path("keys/owner.pub")));
        QCOMPARE(QFile(path("keys/owner.key")).permissions() & (QFile::ReadGroup | QFile::ReadOther),
                 QFile::Permissions());
        const auto again = runDpmix({"keys", "init"});
        QCOMPARE(again.exitCode, 1);
        QVERIFY2(again.err.contains("already exists"), qPrintable(again.err));
        const auto show = runDpmix({"keys", "show"});
        QCOMPARE(show.exitCode, 0);
        QVERIFY(show.out.startsWith("dpmix-ed25519 "));
        QCOMPARE(show.out.section('\n', 0, 0) + "\n", QString::fromUtf8(fileBytes(path("keys/owner.pub"))));
        QCOMPARE(runDpmix({"keys", "init", "--dir", path("other-keys")}).exitCode, 0);
    }

    void signedReleaseVerifiesAndFailsWhenEdited() {
        const auto exported =
            runDpmix({"export-release", path("study.dpmix"), "--runs", "1", "-o", path("release.dpmix")});
        QVERIFY2(exported.exitCode == 0, qPrintable(exported.err));
        QVERIFY2(exported.out.contains("signed by SHA256:"), qPrintable(exported.out));
        const auto ok = runDpmix({"verify", path("release.dpmix"), "--key", path("keys/owner.pub")});
        QVERIFY2(ok.exitCode == 0, qPrintable(ok.out + ok.err));
        QVERIFY(ok.out.startsWith("verified: "));
        const auto inspect = runDpmix({"inspect", path("release.dpmix")});
        QVERIFY2(inspect.exitCode == 0 && inspect.out.contains("Signature  signed by SHA256:") &&
                     inspect.out.contains("✓ verifies"),
                 qPrintable(inspect.out));

        // Another key: not verified.
        const auto other = runDpmix({"verify", path("release.dpmix"), "--key", path("other-keys/owner.pub")});
        QCOMPARE(other.exitCode, 1);
        QVERIFY2(other.out.contains("carries no signature by"), qPrintable(other.out));

        // One byte of the release changed: a letter of the released run's method.
        QByteArray bytes = fileBytes(path("release.dpmix"));
        const auto at = bytes.lastIndexOf("dp-mixmin");
        QVERIFY(at > 0);
        bytes[at + 8] = 'x';
        QFile edited(path("edited.dpmix"));
        QVERIFY(edited.open(QIODevice::WriteOnly));
        edited.write(bytes);
        edited.close();
        const auto refused = runDpmix({"verify", path("edited.dpmix"), "--key", path("keys/owner.pub")});
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.out.startsWith("NOT VERIFIED"), qPrintable(refused.out));
        // ...and the unchanged one still verifies.
        QCOMPARE(runDpmix({"verify", path("release.dpmix"), "--key", path("keys/owner.pub")}).exitCode, 0);
    }

    void signedProjectVerifiesUntilAltered() {
        const QString f = tampered("signed", [](const std::string&) {});
        const auto signedNow = runDpmix({"sign", f});
        QVERIFY2(signedNow.exitCode == 0, qPrintable(signedNow.err));
        QCOMPARE(runDpmix({"verify", f, "--key", path("keys/owner.pub")}).exitCode, 0);
        {
            project::Database db(f.toStdString(), project::Database::Mode::ReadWrite);
            db.exec("UPDATE runs SET status = 'cancelled' WHERE id = 3");
        }
        const auto r = runDpmix({"verify", f, "--key", path("keys/owner.pub")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.out.contains("run 3 is 'cancelled'"), qPrintable(r.out));
        // An altered project is never signed.
        const auto refused = runDpmix({"sign", f});
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.err.contains("not signed"), qPrintable(refused.err));
    }
};

QTEST_GUILESS_MAIN(TestCliTamper)
#include "tst_cli_tamper.moc"
