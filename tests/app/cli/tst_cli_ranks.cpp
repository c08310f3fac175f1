// `dpmix run … --ranks N` as a user runs it (docs/CLUSTER.md, "Ranks"): in reproducible mode two
// local ranks store the model one rank stores (to within float32 reduction order, as
// tst_distributed_dp_sgd states), the ledger names the world size, a rank killed mid-run ends the
// run with an error naming it well within 60 s and its fine-tuning stays counted, and what has no
// data-parallel form is refused.
#include "cli_runner.h"
#include "idx_fixture.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include <csignal>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

using dpmix::test_support::writeIdx;

namespace {

QString specText(const QString& mechanism = "dp-sgd") {
    return QString(R"({
  "name": "ranks",
  "public_sources": [{"name": "pub", "loader": "idx", "path": "images.idx",
                      "options": {"labels": "labels.idx", "classes": "a,b"}}],
  "sensitive": {"name": "sens", "loader": "idx", "path": "images.idx",
                "options": {"labels": "labels.idx", "classes": "a,b"}},
  "tasks": {"public": [{"name": "a", "classes": ["a"]}, {"name": "b", "classes": ["b"]}],
            "sensitive": [{"name": "is-a", "classes": ["a"]}]},
  "privacy": {"epsilon": 1, "delta": 1e-5, "rho": 0.5},
  "stages": {"mixture": {"clip": 13, "batch": 20, "lr": 1.0, "steps": 20},
             "pretrain": {"batch": 16, "lr": 0.1, "steps": 2},
             "finetune": {"mechanism": "%1", "batch": 8, "lr": 0.05, "steps": 20, "clip": 1.0}},
  "seeds": [0]
})")
        .arg(mechanism);
}

// The fine-tuned model a project stored: the file of its .models folder that the proxy-only copy
// does not hold.
std::vector<float> finetunedWeights(const QString& modelsDir, const QStringList& proxyFiles) {
    for (const QString& name : QDir(modelsDir).entryList(QDir::Files)) {
        if (proxyFiles.contains(name)) continue;
        QFile f(QDir(modelsDir).filePath(name));
        if (!f.open(QIODevice::ReadOnly)) return {};
        const QByteArray bytes = f.readAll();
        std::vector<float> values(static_cast<std::size_t>(bytes.size()) / sizeof(float));
        std::memcpy(values.data(), bytes.data(), values.size() * sizeof(float));
        return values;
    }
    return {};
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
    QTemporaryDir dir_;
    QStringList proxyFiles_;

    // A copy of the project that holds the proxy only (trained once for every test).
    QString projectCopy(const QString& name) {
        const QString to = dir_.filePath(name + ".dpmix");
        QFile::copy(dir_.filePath("base.dpmix"), to);
        QDir().mkpath(dir_.filePath(name + ".models"));
        for (const QString& f : proxyFiles_)
            QFile::copy(dir_.filePath("base.models/" + f), dir_.filePath(name + ".models/" + f));
        return to;
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        QByteArray pixels, labels;
        QRandomGenerator rng(11);
        for (int i = 0; i < 200 * 64; ++i) pixels.append(char(rng.bounded(256)));
        for (int i = 0; i < 200; ++i) labels.append(char(i % 2));
        writeIdx(dir_.filePath("images.idx"), {200, 8, 8}, pixels);
        writeIdx(dir_.filePath("labels.idx"), {200}, labels);
        for (const auto& [name, mechanism] :
             {std::pair{"base.json", "dp-sgd"}, std::pair{"dirichlet.json", "dirichlet"}}) {
            QFile f(dir_.filePath(name));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(specText(mechanism).toUtf8());
        }
        const auto proxy =
            runDpmix({"run", dir_.filePath("base.json"), "--stages", "proxies", "--proxy-epochs", "1"}, dir_.path());
        QVERIFY2(proxy.exitCode == 0, qPrintable(proxy.err));
        proxyFiles_ = QDir(dir_.filePath("base.models")).entryList(QDir::Files);
        QCOMPARE(proxyFiles_.size(), 1);
    }

    void twoRanksStoreTheOneRankModel() {
        const QStringList downstream{"--stages",       "downstream", "--methods",      "random-init",
                                     "--proxy-epochs", "1",          "--reproducible", "--json"};
        const auto one = runDpmix(QStringList{"run", projectCopy("one")} + downstream, dir_.path());
        QVERIFY2(one.exitCode == 0, qPrintable(one.err));
        const auto two = runDpmix(QStringList{"run", projectCopy("two"), "--ranks", "2"} + downstream, dir_.path());
        QVERIFY2(two.exitCode == 0, qPrintable(two.err));
        const auto a = finetunedWeights(dir_.filePath("one.models"), proxyFiles_);
        const auto b = finetunedWeights(dir_.filePath("two.models"), proxyFiles_);
        QVERIFY(!a.empty() && a.size() == b.size());
        double worst = 0.0;
        for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(double(a[i]) - double(b[i])));
        QVERIFY2(worst <= 1e-5, qPrintable(QString("largest weight difference %1").arg(worst)));  // measured 2.4e-7
        QVERIFY(a != finetunedWeights(dir_.filePath("base.models"), {}));
        const auto ledger = runDpmix({"inspect", dir_.filePath("two.dpmix"), "--json"}, dir_.path());
        QVERIFY2(ledger.out.contains("data-parallel over 2 ranks"), qPrintable(ledger.out.left(2000)));
    }

    void aKilledRankEndsTheRunWithAClearError() {
        QProcess run;
        run.setWorkingDirectory(dir_.path());
        run.start(dpmix::test_support::binaryPath("/bin/dpmix"),
                  {"run", projectCopy("killed"), "--stages", "downstream", "--methods", "random-init", "--proxy-epochs",
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
        const auto budget = runDpmix({"budget", dir_.filePath("killed.dpmix"), "--json"}, dir_.path());
        QCOMPARE(budget.exitCode, 0);
        QCOMPARE(budget.json()["releases_from_this_file"].toInt(), 1);
    }

    void whatHasNoDataParallelFormIsRefused() {
        const auto dirichlet =
            runDpmix({"run", dir_.filePath("dirichlet.json"), "--stages", "downstream", "--ranks", "2"}, dir_.path());
        QCOMPARE(dirichlet.exitCode, 2);
        QVERIFY2(dirichlet.err.contains("only DP-SGD fine-tuning runs on ranks"), qPrintable(dirichlet.err));
        QVERIFY(!QFile::exists(dir_.filePath("dirichlet.models")));  // no stage ran
        const auto none = runDpmix({"run", dir_.filePath("base.json"), "--ranks", "0"}, dir_.path());
        QCOMPARE(none.exitCode, 2);
        QVERIFY2(none.err.contains("--ranks = 0 is out of range"), qPrintable(none.err));
    }
};

QTEST_MAIN(TestCliRanks)
#include "tst_cli_ranks.moc"
