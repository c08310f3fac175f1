// The data set's budget across processes, as users meet it: two `dpmix run` started together on
// one project with a cap that fits one of them (never both stored; one refused with the
// figures), a run killed with SIGKILL at a random moment (whatever it reserved stays counted by
// `dpmix budget`), a second project on the same data (it sees the spend, and its run over the
// cap is refused), and `export-release` of runs over the cap (refused). Trials: DPMIX_RACE_TRIALS
// (default 3) and DPMIX_KILL_TRIALS (default 3); the acceptance figures in docs/RELIABILITY.md
// were measured with 20 and 10.
#include "../cli/cli_runner.h"
#include "tiny_cli_study.h"

#include "tests/support/test_support.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>

namespace {

int trials(const char* variable, int fallback) {
    bool ok = false;
    const int n = qEnvironmentVariableIntValue(variable, &ok);
    return ok && n > 0 ? n : fallback;
}

// A `dpmix` process with its own budget store.
QProcess* startDpmix(const QStringList& args, const QString& store, QObject* parent) {
    auto* p = new QProcess(parent);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("DPMIX_BUDGET_STORE", store);
    p->setProcessEnvironment(env);
    p->start(dpmix::test_support::binaryPath("/bin/dpmix"), args);
    return p;
}

CliResult finish(QProcess* p) {
    CliResult r;
    if (!p->waitForFinished(120000)) return r;
    r.exitCode = p->exitStatus() == QProcess::NormalExit ? p->exitCode() : -1;
    r.out = QString::fromUtf8(p->readAllStandardOutput());
    r.err = QString::fromUtf8(p->readAllStandardError());
    return r;
}

CliResult dpmixWith(const QStringList& args, const QString& store) {
    QObject owner;
    return finish(startDpmix(args, store, &owner));
}

}  // namespace

class TestCliBudget : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString spec_;
    int n_ = 0;

    QString path(const QString& name) const { return dir_.filePath(name); }
    // A fresh project (and store) on the tiny study's data.
    QString freshProject(QString* store) {
        const QString name = QStringLiteral("p%1").arg(++n_);
        *store = path(name + "-store.sqlite");
        const auto r = dpmixWith({"new", spec_, "-o", path(name + ".dpmix")}, *store);
        if (r.exitCode != 0) qWarning("%s", qPrintable(r.err));
        return path(name + ".dpmix");
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        spec_ = dpmix::testing::writeTinyStudy(dir_.path());
        QVERIFY(!spec_.isEmpty());
    }

    void twoProcessesStartedTogetherNeverBothPassTheCap() {
        const int n = trials("DPMIX_RACE_TRIALS", 3);
        int refusals = 0;
        for (int trial = 0; trial < n; ++trial) {
            QString store;
            const QString project = freshProject(&store);
            const QStringList args{"run", project,  "--stages", "proxies,mixture", "--tasks", "ac",    "--epsilon",
                                   "1",   "--seed", "0",        "--proxy-epochs",  "1",       "--cap", "1.2"};
            QObject owner;
            QProcess* a = startDpmix(args, store, &owner);
            QProcess* b = startDpmix(args, store, &owner);
            const CliResult ra = finish(a), rb = finish(b);
            QVERIFY2(ra.exitCode >= 0 && rb.exitCode >= 0, "a process ended by a signal or hung");
            QCOMPARE((ra.exitCode == 0) + (rb.exitCode == 0), 1);
            const CliResult& refused = ra.exitCode == 0 ? rb : ra;
            QVERIFY2(refused.err.contains("over the cap; nothing was run"), qPrintable(refused.err));
            ++refusals;
            const auto budget = dpmixWith({"budget", project, "--json"}, store);
            QVERIFY2(budget.exitCode == 0, qPrintable(budget.err));
            const QJsonObject j = budget.json();
            QVERIFY2(j["epsilon"].toDouble() <= 1.2, qPrintable(budget.out));
            QCOMPARE(j["releases"].toInt(), 1);
            QCOMPARE(j["open_reservations"].toArray().size(), 0);
        }
        QCOMPARE(refusals, n);
        qInfo("%d trials: every one stored one run within the cap and refused the other", n);
    }

    void aRunKilledAtARandomMomentStaysCounted() {
        const int n = trials("DPMIX_KILL_TRIALS", 3);
        const QStringList run{"--stages", "proxies,mixture", "--tasks", "ac", "--epsilon", "1,2,4", "--seed",
                              "0",        "--proxy-epochs",  "1"};
        // How long the run takes when nobody kills it: the kills land uniformly within that.
        QString store;
        QElapsedTimer clock;
        clock.start();
        const auto whole = dpmixWith(QStringList{"run", freshProject(&store)} + run, store);
        const int duration = static_cast<int>(clock.elapsed());
        QVERIFY2(whole.exitCode == 0, qPrintable(whole.err));
        QRandomGenerator random(20261205);
        int killedWithReservation = 0;
        for (int trial = 0; trial < n; ++trial) {
            const QString project = freshProject(&store);
            QObject owner;
            QProcess* p = startDpmix(QStringList{"run", project} + run, store, &owner);
            QVERIFY(p->waitForStarted(10000));
            QTest::qWait(static_cast<int>(random.bounded(duration)));
            // Never kill(0, ...): a process that already ended has no pid, and 0 is our own group.
            if (p->state() != QProcess::NotRunning && p->processId() > 0)
                ::kill(static_cast<pid_t>(p->processId()), SIGKILL);
            p->waitForFinished(10000);
            const auto budget = dpmixWith({"budget", project, "--json"}, store);
            QVERIFY2(budget.exitCode == 0, qPrintable(budget.err));
            const QJsonObject j = budget.json();
            // Whatever the process reserved and did not settle is counted in full, and listed.
            long long planned = 0;
            for (const auto& r : j["open_reservations"].toArray()) {
                QVERIFY(r.toObject()["process_ended"].toBool());
                planned += r.toObject()["planned_releases"].toInt();
            }
            if (planned > 0) ++killedWithReservation;
            QVERIFY2(j["releases"].toInt() >= planned, qPrintable(budget.out));
            // Every DP-MixMin run the file holds (its ledger stored before its mechanism) is counted.
            const auto runs = dpmixWith({"inspect", project, "--json"}, store).json()["runs"].toArray();
            long long dpRuns = 0;
            for (const auto& r : runs) dpRuns += r.toObject()["method"].toString() == "dp-mixmin";
            QVERIFY2(j["releases"].toInt() >= dpRuns, qPrintable(budget.out));
        }
        qInfo("%d kills within a run of %d ms, %d of them after the reservation and before it settled", n, duration,
              killedWithReservation);
    }

    void aSecondProjectOnTheSameDataSeesTheSpendAndTheCap() {
        QString store;
        const QString first = freshProject(&store);
        const auto run = dpmixWith({"run", first, "--stages", "proxies,mixture", "--tasks", "ac", "--epsilon", "1",
                                    "--seed", "0", "--proxy-epochs", "1"},
                                   store);
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const double spent = dpmixWith({"budget", first, "--json"}, store).json()["epsilon"].toDouble();
        QVERIFY(spent > 0.9);
        // `dpmix new` from the exported spec, into another file, with the same store.
        const auto exported = dpmixWith({"export-spec", first, "-o", path("exported.json")}, store);
        QVERIFY2(exported.exitCode == 0, qPrintable(exported.err));
        const auto created = dpmixWith({"new", path("exported.json"), "-o", path("second.dpmix")}, store);
        QVERIFY2(created.exitCode == 0, qPrintable(created.err));
        const auto seen = dpmixWith({"budget", path("second.dpmix"), "--json"}, store);
        QVERIFY2(seen.exitCode == 0, qPrintable(seen.err));
        QCOMPARE(seen.json()["epsilon"].toDouble(), spent);
        QCOMPARE(seen.json()["releases_from_other_files"].toInt(), 1);
        // The data owner's cap in the store holds for both files.
        QVERIFY(dpmixWith({"budget", path("second.dpmix"), "--cap", "1.2"}, store).exitCode == 0);
        const auto refused = dpmixWith({"run", path("second.dpmix"), "--stages", "proxies,mixture", "--tasks", "ac",
                                        "--epsilon", "1", "--seed", "0", "--proxy-epochs", "1"},
                                       store);
        QVERIFY(refused.exitCode != 0);
        QVERIFY2(refused.err.contains("over the cap; nothing was run"), qPrintable(refused.err));
        const auto again = dpmixWith({"run", first, "--stages", "proxies,mixture", "--tasks", "ac", "--epsilon", "1",
                                      "--seed", "0", "--proxy-epochs", "1"},
                                     store);
        QVERIFY(again.exitCode != 0);
        QVERIFY2(again.err.contains("over the cap"), qPrintable(again.err));
    }

    void exportOfRunsOverTheCapIsRefused() {
        QString store;
        const QString project = freshProject(&store);
        const auto run = dpmixWith({"run", project, "--stages", "proxies,mixture", "--tasks", "ac", "--epsilon", "1,2",
                                    "--seed", "0", "--proxy-epochs", "1"},
                                   store);
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QStringList ids;
        for (const auto& r : dpmixWith({"inspect", project, "--json"}, store).json()["runs"].toArray())
            if (r.toObject()["method"].toString() == "dp-mixmin") ids << QString::number(r.toObject()["id"].toInt());
        QCOMPARE(ids.size(), 2);
        QVERIFY(dpmixWith({"budget", project, "--cap", "2.05"}, store).exitCode == 0);
        const auto refused =
            dpmixWith({"export-release", project, "--runs", ids.join(","), "-o", path("over.dpmix")}, store);
        QVERIFY(refused.exitCode != 0);
        QVERIFY2(refused.err.contains("over the data set's privacy budget cap 2.05"), qPrintable(refused.err));
        QVERIFY(!QFile::exists(path("over.dpmix")));
        // One of them alone fits.
        const auto one = dpmixWith({"export-release", project, "--runs", ids.first(), "-o", path("one.dpmix")}, store);
        QVERIFY2(one.exitCode == 0, qPrintable(one.err));
    }
};

QTEST_GUILESS_MAIN(TestCliBudget)
#include "tst_cli_budget.moc"
