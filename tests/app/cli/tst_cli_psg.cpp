// `dpmix psg` and `dpmix psg export` as a user runs them: a tiny generated study (no public data)
// runs end to end and its set exports as a source; bad input exits 2 with a message naming the
// flag and writes nothing next to the spec.
#include "cli_runner.h"
#include "idx_fixture.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

namespace {

using dpmix::test_support::writeIdx;

const char* kSpec = R"({
  "name": "cli-psg",
  "public_sources": [],
  "sensitive": {"name": "sens", "loader": "idx", "path": "images.idx",
                "options": {"labels": "labels.idx", "classes": "dark,light"}},
  "privacy": {"epsilon": 5, "delta": 1e-5, "rho": 0.2},
  "psg": {"images_per_class": 1, "iterations": 1, "batch_loop": 2, "batch": 8, "network_width": 4,
          "network_depth": 2, "evaluations": 1, "evaluation_epochs": 2, "dp_sgd_steps": 1},
  "seeds": [0]
})";

}  // namespace

class TestCliPsg : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString spec_;

    QStringList entries() const { return QDir(dir_.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries); }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        QByteArray pixels, labels;
        for (int i = 0; i < 100; ++i) {  // dark or light, each image distinct (the splits go by content)
            labels.append(char(i % 2));
            QByteArray image(64, char(i % 2 ? 200 : 20));
            image[i % 64] = char(100 + i);
            pixels.append(image);
        }
        writeIdx(dir_.filePath("images.idx"), {100, 8, 8}, pixels);
        writeIdx(dir_.filePath("labels.idx"), {100}, labels);
        spec_ = dir_.filePath("psg.json");
        QFile f(spec_);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(kSpec);
    }

    void badInputWritesNothing() {
        const QStringList before = entries();
        struct Case {
            QStringList args;
            const char* says;
        };
        const QList<Case> cases{
            {{"--spc", "7"}, "--spc = 7 is not supported: expected 1, 10, 20 or 50 images per class"},
            {{"--epsilon", "0"}, "--epsilon = 0 is out of range"},
            {{"--iterations", "0"}, "--iterations = 0 is out of range"},
            {{"--evaluations", "abc"}, "--evaluations"},
            {{"--seed", "-1"}, "--seed = -1"},
        };
        for (const auto& c : cases) {
            const CliResult r = runDpmix(QStringList{"psg", spec_} + c.args);
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.contains(c.says), qPrintable(r.err));
            QCOMPARE(entries(), before);  // no project file created
        }
        const CliResult none = runDpmix({"psg"});
        QCOMPARE(none.exitCode, 2);
        QVERIFY2(none.err.contains("a spec or project is required"), qPrintable(none.err));
    }

    void runsAndExportsTheSet() {
        const CliResult r = runDpmix({"psg", spec_, "--json", "--reproducible"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject j = r.json();
        QCOMPARE(j["dp_gradient_steps"].toInt(), 2);
        QCOMPARE(j["randomness"].toString(), QString("seeded"));
        QCOMPARE(j["accuracy"].toArray().size(), 5);
        const QString project = j["project"].toString();
        const QString run = QString::number(j["run_id"].toInt());

        const CliResult bad =
            runDpmix({"psg", "export", project, "--run", run, "--format", "jpeg", "-o", dir_.filePath("set")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains("--format = 'jpeg'"), qPrintable(bad.err));
        const CliResult notPsg = runDpmix({"psg", "export", project, "--run",
                                           QString::number(j["dp_sgd_run_id"].toInt()), "-o", dir_.filePath("set")});
        QCOMPARE(notPsg.exitCode, 2);
        QVERIFY2(notPsg.err.contains("not a PSG run"), qPrintable(notPsg.err));
        QVERIFY(!QFile::exists(dir_.filePath("set")));

        const CliResult ok = runDpmix({"psg", "export", project, "--run", run, "-o", dir_.filePath("set")});
        QCOMPARE(ok.exitCode, 0);
        QVERIFY(QFile::exists(dir_.filePath("set/images-idx3-ubyte")));
        QVERIFY(QFile::exists(dir_.filePath("set/source.json")));
        QVERIFY2(ok.out.contains("post-processing"), qPrintable(ok.out));
    }
};

QTEST_GUILESS_MAIN(TestCliPsg)
#include "tst_cli_psg.moc"
