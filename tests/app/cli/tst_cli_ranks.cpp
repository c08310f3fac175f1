// `dpmix run … --ranks N` as a user runs it (docs/CLUSTER.md, "Ranks"): in reproducible mode two
// local ranks store the model one rank stores (to within float32 reduction order, as
// tst_distributed_dp_sgd states), the ledger names the world size, a rank killed mid-run ends the
// run with an error naming it well within 60 s and its fine-tuning stays counted, and what has no
// data-parallel form is refused.
#include "cli_runner.h"
#include "ranks_fixture.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include <csignal>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

namespace {

// The one fine-tuned model a project stored (empty: none).
std::vector<float> finetunedWeights(const QString& modelsDir, const QStringList& proxyFiles) {
    auto models = dpmix::test_support::finetunedModels(modelsDir, proxyFiles);
    return models.empty() ? std::vector<float>{} : std::move(models.front());
}

// The pid of a child of `parent` whose command line contains `word` (0: none yet).
qint64 childWith(qint64 parent, const std::string& word) {
    for (const QString& entry : QDir("/proc").entryList(QDir::Dirs)) {
        bool number = false;
        const qint64 pid = entry.toLongLong(&number);
        if (!number) continue;
        std::ifstream stat("/proc/" + entry.toStdString() + "/stat");
        std::string line;
        std::getline(stat, line);
        const auto close = line.rfind(')');
        if (close == std::string::npos) continue;
        std::istringstream rest(line.substr(close + 2));
        char state = 0;
        qint64 ppid = 0;
        rest >> state >> ppid;
        if (ppid != parent) continue;
        std::ifstream cmd("/proc/" + entry.toStdString() + "/cmdline");
        std::string args((std::istreambuf_iterator<char>(cmd)), std::istreambuf_iterator<char>());
        if (args.find(word) != std::string::npos) return pid;
    }
    return 0;
}

}  // namespace

class TestCliRanks : public QObject {
    Q_OBJECT
    dpmix::test_support::RanksProject ranks_;

private Q_SLOTS:
    void initTestCase() { QCOMPARE(ranks_.prepare("ranks", {{"dirichlet.json", "dirichlet"}}), QString()); }

    void twoRanksStoreTheOneRankModel() {
        const QStringList downstream{"--stages",       "downstream", "--methods",      "random-init",
                                     "--proxy-epochs", "1",          "--reproducible", "--json"};
        const auto one = runDpmix(QStringList{"run", ranks_.copy("one")} + downstream, ranks_.dir().path());
        QVERIFY2(one.exitCode == 0, qPrintable(one.err));
        const auto two =
            runDpmix(QStringList{"run", ranks_.copy("two"), "--ranks", "2"} + downstream, ranks_.dir().path());
        QVERIFY2(two.exitCode == 0, qPrintable(two.err));
        const auto a = finetunedWeights(ranks_.dir().filePath("one.models"), ranks_.proxyFiles());
        const auto b = finetunedWeights(ranks_.dir().filePath("two.models"), ranks_.proxyFiles());
        QVERIFY(!a.empty() && a.size() == b.size());
        double worst = 0.0;
        for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(double(a[i]) - double(b[i])));
        QVERIFY2(worst <= 1e-5, qPrintable(QString("largest weight difference %1").arg(worst)));  // measured 2.4e-7
        QVERIFY(a != finetunedWeights(ranks_.dir().filePath("base.models"), {}));
        const auto ledger = runDpmix({"inspect", ranks_.dir().filePath("two.dpmix"), "--json"}, ranks_.dir().path());
        QVERIFY2(ledger.out.contains("data-parallel over 2 ranks"), qPrintable(ledger.out.left(2000)));
    }

    void aKilledRankEndsTheRunWithAClearError() {
        QProcess run;
        run.setWorkingDirectory(ranks_.dir().path());
        run.start(dpmix::test_support::binaryPath("/bin/dpmix"),
                  {"run", ranks_.copy("killed"), "--stages", "downstream", "--methods", "random-init", "--proxy-epochs",
                   "1", "--ranks", "2", "--finetune-steps", "1000000"});
        QVERIFY(run.waitForStarted());
        // Rank 1 is killed once the fine-tuning steps run (rank 0 reports step 1 after the ranks joined).
        QString err;
        QElapsedTimer wait;
        wait.start();
        while (!err.contains("[finetune] 1/") && wait.elapsed() < 60000 && run.state() == QProcess::Running) {
            run.waitForReadyRead(200);
            err += QString::fromUtf8(run.readAllStandardError());
        }
        const qint64 rank1 = childWith(run.processId(), "rank");
        QVERIFY2(rank1 > 0, qPrintable("rank 1 is not running: " + err.right(1500)));
        QElapsedTimer ending;
        ending.start();
        QCOMPARE(::kill(static_cast<pid_t>(rank1), SIGKILL), 0);
        QVERIFY2(run.waitForFinished(60000), "the run did not end within 60 s of a rank's death");
        QVERIFY2(ending.elapsed() < 60000, qPrintable(QString::number(ending.elapsed())));
        QCOMPARE(run.exitCode(), 1);
        err += QString::fromUtf8(run.readAllStandardError());
        QVERIFY2(err.contains("rank 1 was killed by signal 9"), qPrintable(err.right(1500)));
        // The fine-tuning's ledger entry was stored before its first step: the spend stays counted.
        const auto budget = runDpmix({"budget", ranks_.dir().filePath("killed.dpmix"), "--json"}, ranks_.dir().path());
        QCOMPARE(budget.exitCode, 0);
        QCOMPARE(budget.json()["releases_from_this_file"].toInt(), 1);
    }

    void whatHasNoDataParallelFormIsRefused() {
        const auto dirichlet =
            runDpmix({"run", ranks_.dir().filePath("dirichlet.json"), "--stages", "downstream", "--ranks", "2"},
                     ranks_.dir().path());
        QCOMPARE(dirichlet.exitCode, 2);
        QVERIFY2(dirichlet.err.contains("only DP-SGD fine-tuning runs on ranks"), qPrintable(dirichlet.err));
        QVERIFY(!QFile::exists(ranks_.dir().filePath("dirichlet.models")));  // no stage ran
        const auto none = runDpmix({"run", ranks_.dir().filePath("base.json"), "--ranks", "0"}, ranks_.dir().path());
        QCOMPARE(none.exitCode, 2);
        QVERIFY2(none.err.contains("--ranks = 0 is out of range"), qPrintable(none.err));
    }
};

QTEST_MAIN(TestCliRanks)
#include "tst_cli_ranks.moc"
