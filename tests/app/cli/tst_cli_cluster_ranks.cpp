// `dpmix run … --executor slurm --ranks 2` on a real (single-node) Slurm — label `cluster`
// (scripts/slurm-local.sh starts one; docs/CLUSTER.md, "Ranks"):
//  - in reproducible mode the unit's 2 Slurm tasks store the models a 1-rank local run stores (to
//    within float32 reduction order: 1e-5 per parameter, as tst_cli_ranks) — four fine-tunings in
//    one unit, served one after the other by the same tasks — and the merged ledger names 2 ranks;
//  - with secret randomness, rank 1 killed mid-fine-tuning ends the unit within 60 s with an error
//    naming the failed all-reduce, and the attempt stays counted in the budget store.
// Without Slurm the test skips, unless DPMIX_REQUIRE_SLURM=1 (scripts/run-tests.sh), where it fails.
#include "cli_runner.h"
#include "ranks_fixture.h"
#include "tests/support/local_slurm.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include <csignal>
#include <cstring>
#include <vector>

using dpmix::test_support::finetunedModels;

namespace {

// The largest weight difference between `a` and the model of `others` nearest to it.
double nearestDifference(const std::vector<float>& a, const std::vector<std::vector<float>>& others) {
    double best = 1e30;
    for (const auto& b : others) {
        if (b.size() != a.size()) continue;
        double worst = 0.0;
        for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(double(a[i]) - double(b[i])));
        best = std::min(best, worst);
    }
    return best;
}

// The pid of the Slurm task with SLURM_PROCID `rank` whose command line names `jobsDir` (0: none yet).
qint64 slurmTask(const QString& jobsDir, int rank) {
    const QByteArray procid = "SLURM_PROCID=" + QByteArray::number(rank);
    for (const QString& entry : QDir("/proc").entryList(QDir::Dirs)) {
        bool number = false;
        const qint64 pid = entry.toLongLong(&number);
        if (!number) continue;
        QFile cmd("/proc/" + entry + "/cmdline"), env("/proc/" + entry + "/environ");
        if (!cmd.open(QIODevice::ReadOnly) || !env.open(QIODevice::ReadOnly)) continue;
        const QByteArray args = cmd.readAll();
        if (!args.startsWith(QFile::encodeName(dpmix::test_support::binaryPath("/bin/dpmix"))) ||
            !args.contains("worker") || !args.contains(QFile::encodeName(jobsDir)))
            continue;
        if (env.readAll().split('\0').contains(procid)) return pid;
    }
    return 0;
}

QJsonObject firstJob(const CliResult& r) { return QJsonDocument::fromJson(r.out.toUtf8()).array().at(0).toObject(); }

}  // namespace

class TestCliClusterRanks : public QObject {
    Q_OBJECT
    dpmix::test_support::RanksProject ranks_;

    // Polls `dpmix jobs status` until no unit is pending or running.
    QJsonObject waitForJob(const QString& project, int seconds) {
        QElapsedTimer t;
        t.start();
        QJsonObject s;
        while (t.elapsed() < seconds * 1000) {
            const auto r = runDpmix({"jobs", "status", project, "--json"}, ranks_.dir().path());
            s = firstJob(r);
            if (r.exitCode == 0 && s["pending"].toInt() == 0 && s["running"].toInt() == 0) return s;
            QThread::msleep(300);
        }
        return s;
    }

private Q_SLOTS:
    void initTestCase() {
        DPMIX_SKIP_WITHOUT_SLURM();
        QCOMPARE(ranks_.prepare("cluster-ranks"), QString());
    }

    void twoSlurmRanksStoreTheOneRankModel() {
        const QStringList downstream{"--stages", "downstream",     "--methods", "random-init,uniform", "--epsilons",
                                     "1,2",      "--proxy-epochs", "1",         "--reproducible",      "--json"};
        const QString two = ranks_.copy("two");
        const auto submit =
            runDpmix(QStringList{"run", two, "--executor", "slurm", "--ranks", "2"} + downstream, ranks_.dir().path());
        QVERIFY2(submit.exitCode == 0, qPrintable(submit.err + submit.out));
        const auto one = runDpmix(QStringList{"run", ranks_.copy("one")} + downstream, ranks_.dir().path());
        QVERIFY2(one.exitCode == 0, qPrintable(one.err));
        QCOMPARE(waitForJob(two, 90)["done"].toInt(), 1);
        const auto merge = runDpmix({"jobs", "merge", two, "--json"}, ranks_.dir().path());
        QVERIFY2(merge.exitCode == 0, qPrintable(merge.err + merge.out));
        QCOMPARE(firstJob(merge)["run_ids"].toArray().size(), 4);

        // 2 ε × 2 methods: four fine-tunings in the unit, one after the other on the same ranks.
        const auto ones = finetunedModels(ranks_.dir().filePath("one.models"), ranks_.proxyFiles());
        const auto twos = finetunedModels(ranks_.dir().filePath("two.models"), ranks_.proxyFiles());
        QCOMPARE(ones.size(), std::size_t(4));
        QCOMPARE(twos.size(), ones.size());
        double worst = 0.0;
        for (const auto& a : ones) worst = std::max(worst, nearestDifference(a, twos));
        QVERIFY2(worst <= 1e-5, qPrintable(QString("largest weight difference %1").arg(worst)));  // measured 2.4e-7
        qInfo("2 Slurm ranks vs 1 local rank, 4 fine-tunings: largest weight difference %g over %zu parameters each",
              worst, ones.front().size());
        const auto ledger = runDpmix({"inspect", two, "--json"}, ranks_.dir().path());
        QVERIFY2(ledger.out.contains("data-parallel over 2 ranks"), qPrintable(ledger.out.left(2000)));
    }

    void aKilledSlurmRankEndsTheUnitWithAClearError() {
        const QString killed = ranks_.copy("killed");
        const auto submit =
            runDpmix({"run", killed, "--executor", "slurm", "--ranks", "2", "--stages", "downstream", "--methods",
                      "random-init", "--proxy-epochs", "1", "--finetune-steps", "1000000", "--json"},
                     ranks_.dir().path());
        QVERIFY2(submit.exitCode == 0, qPrintable(submit.err + submit.out));
        QElapsedTimer wait;
        wait.start();
        qint64 rank1 = 0;
        while (rank1 == 0 && wait.elapsed() < 60000) {
            QThread::msleep(200);
            rank1 = slurmTask(killed + ".jobs", 1);
        }
        QVERIFY2(rank1 > 0, "rank 1's Slurm task did not start");
        QThread::sleep(8);  // the fine-tuning's steps run (rank 0 loads the data and pretrains first)
        QElapsedTimer ending;
        ending.start();
        QCOMPARE(::kill(static_cast<pid_t>(rank1), SIGKILL), 0);
        const QJsonObject status = waitForJob(killed, 60);
        QVERIFY2(ending.elapsed() < 60000, qPrintable(QString::number(ending.elapsed())));
        qInfo("the unit ended %lld ms after rank 1 was killed", static_cast<long long>(ending.elapsed()));
        QCOMPARE(status["failed"].toInt(), 1);
        const QString logPath = status["units"].toArray().at(0).toObject()["log"].toString();
        QFile log(QDir::isAbsolutePath(logPath) ? logPath : ranks_.dir().filePath(logPath));
        QVERIFY2(log.open(QIODevice::ReadOnly), qPrintable(logPath));
        const QString text = QString::fromUtf8(log.readAll());
        qInfo("%s", qPrintable(text));
        // Rank 0's error (the all-reduce's, or the join's when, under load, it had not reached the
        // steps yet) and srun's.
        const bool rankZeroSaid = text.contains("data-parallel DP-SGD: rank 0: ") ||
                                  text.contains("rank 0: joining the group of 2 ranks failed");
        QVERIFY2(rankZeroSaid && text.contains("failed (another rank ended, or did not answer within 30.00 s)") &&
                     text.contains("task 1: Killed"),
                 qPrintable(text));
        // The attempt reserved before its mechanism ran: the spend stays counted.
        const auto budget = runDpmix({"budget", killed, "--json"}, ranks_.dir().path());
        QCOMPARE(budget.exitCode, 0);
        const QJsonObject open = budget.json()["open_reservations"].toArray().at(0).toObject();
        QCOMPARE(open["attempts_started"].toInt(), 1);
        QCOMPARE(open["planned_releases"].toInt(), 1);
    }
};

QTEST_MAIN(TestCliClusterRanks)
#include "tst_cli_cluster_ranks.moc"
