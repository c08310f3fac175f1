// Which loader a dropped file or folder gets: one case per rule of guessSource, on files made
// here, plus the cases where no loader fits.
#include "app/workbench/study/drop_source_guess.h"
#include "tests/app/workbench/source_fixtures.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

using namespace dpmix::workbench;
using dpmix::workbench::testing::writeFile;

class TstDropSourceGuess : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;

    QString make(const QString& relative, const QByteArray& bytes = "x") {
        const QString path = dir_.path() + "/" + relative;
        QDir().mkpath(QFileInfo(path).absolutePath());
        writeFile(path, bytes);
        return path;
    }

private Q_SLOTS:
    void idxImagesFindTheirLabels() {
        const QString images = make("fashion-mnist/t10k-images-idx3-ubyte.gz");
        make("fashion-mnist/t10k-labels-idx1-ubyte.gz");
        const SourceGuess g = guessSource(images);
        QCOMPARE(g.source.loader, std::string("idx"));
        QCOMPARE(QString::fromStdString(g.source.path), QFileInfo(images).absoluteFilePath());
        QCOMPARE(g.source.options.at("labels"), std::string("t10k-labels-idx1-ubyte.gz"));
        QCOMPARE(g.source.options.at("classes"), std::string("fashion-mnist"));  // the path says fashion
        QCOMPARE(g.source.name, std::string("fashion-mnist-t10k"));
    }

    void idxWithoutLabelsOrFashion() {
        const QString images = make("digits/train-images-idx3-ubyte");
        const SourceGuess g = guessSource(images);
        QCOMPARE(g.source.loader, std::string("idx"));
        QVERIFY(g.source.options.empty());
        QCOMPARE(g.source.name, std::string("digits-train"));
    }

    void aDroppedLabelFileMeansItsImages() {
        const QString images = make("pets/a-images-idx3-ubyte");
        const QString labels = make("pets/a-labels-idx1-ubyte");
        const SourceGuess g = guessSource(labels);
        QCOMPARE(g.source.loader, std::string("idx"));
        QCOMPARE(QString::fromStdString(g.source.path), QFileInfo(images).absoluteFilePath());
        QCOMPARE(g.source.options.at("labels"), std::string("a-labels-idx1-ubyte"));
    }

    void fileSuffixes_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("loader");
        QTest::newRow("jsonl") << "text/devil.jsonl" << QByteArray("{}") << "jsonl";
        QTest::newRow("jsonl.gz") << "text/devil.jsonl.gz" << QByteArray("x") << "jsonl";
        QTest::newRow("csv") << "xray/manifest.csv" << QByteArray("Path,A\n") << "csv-images";
        QTest::newRow("mbox suffix") << "mail/inbox.mbox" << QByteArray("x") << "mbox";
        QTest::newRow("mbox content") << "mail/inbox" << QByteArray("From a@b Sat Jan  1\nhi\n") << "mbox";
        QTest::newRow("digit json") << "mnist/3.json" << QByteArray("[]") << "mnist-json";
        QTest::newRow("records json") << "spam/records.json" << QByteArray("[]") << "spam-assassin";
        QTest::newRow("unknown") << "misc/photo.bin" << QByteArray("\x01\x02") << "";
    }
    void fileSuffixes() {
        QFETCH(QString, file);
        QFETCH(QByteArray, content);
        QFETCH(QString, loader);
        const SourceGuess g = guessSource(make(file, content));
        QCOMPARE(QString::fromStdString(g.source.loader), loader);
        QVERIFY(!g.reason.isEmpty());
    }

    void folders() {
        make("maildir-user/cur/1");
        make("maildir-user/new/2");
        QCOMPARE(guessSource(dir_.path() + "/maildir-user").source.loader, std::string("maildir"));
        make("digits/0.json", "[]");
        make("digits/1.json", "[]");
        QCOMPARE(guessSource(dir_.path() + "/digits").source.loader, std::string("mnist-json"));
        make("spam-assassin/easy-ham-1/0001.json", "{}");
        QCOMPARE(guessSource(dir_.path() + "/spam-assassin").source.loader, std::string("spam-assassin"));
        make("essays/2020/one.txt", "text");
        const SourceGuess text = guessSource(dir_.path() + "/essays");
        QCOMPARE(text.source.loader, std::string("text-folder"));
        QCOMPARE(text.source.name, std::string("essays"));
        make("binaries/a.png", "x");
        QCOMPARE(guessSource(dir_.path() + "/binaries").source.loader, std::string(""));
    }

    void missingPathSaysSo() {
        const SourceGuess g = guessSource(dir_.path() + "/nothing-here");
        QVERIFY(g.source.loader.empty());
        QVERIFY(g.reason.contains("does not exist"));
    }
};

QTEST_MAIN(TstDropSourceGuess)
#include "tst_drop_source_guess.moc"
