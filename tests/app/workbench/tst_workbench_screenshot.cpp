// `dpmix-workbench --screenshot OUT.png [--view NAME]` renders and exits; a bad view is refused.
#include "tests/app/workbench/generated_project.h"
#include "tests/support/test_support.h"

#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

namespace {
const QString kProgram = dpmix::test_support::binaryPath("/bin/dpmix-workbench");

int runWorkbench(const QStringList& args, QString* stderrText) {
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("QT_QPA_PLATFORM", "offscreen");
    env.insert("XDG_CONFIG_HOME", QDir::tempPath() + "/dpmix-screenshot-test-config");
    p.setProcessEnvironment(env);
    p.start(kProgram, args);
    if (!p.waitForFinished(60000)) return -1;
    if (stderrText) *stderrText = QString::fromUtf8(p.readAllStandardError());
    return p.exitCode();
}
}  // namespace

class TstWorkbenchScreenshot : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void rendersEachView_data() {
        QTest::addColumn<QString>("view");
        for (const char* v : {"main", "calculator", "parameters", "panel", "jobs", "bar-chart", "line-chart"})
            QTest::newRow(v) << v;
    }
    void rendersEachView() {
        QFETCH(QString, view);
        QTemporaryDir dir;
        const QString out = dir.path() + "/shot.png";
        QString err;
        QCOMPARE(runWorkbench({"--screenshot", out, "--view", view}, &err), 0);
        const QImage image(out);
        QVERIFY2(!image.isNull(), qPrintable(err));
        if (view == "panel")  // the parameter panel alone, unscrolled: narrow and tall
            QVERIFY2(image.height() > 1000 && image.width() < 800,
                     qPrintable(QString("%1x%2").arg(image.width()).arg(image.height())));
        else
            QVERIFY(image.width() >= 800 && image.height() >= 600);
    }
    void rendersResultViewsOfAProject_data() {
        QTest::addColumn<QString>("view");
        for (const char* v : {"lambda", "ledger", "trajectory", "tradeoff"}) QTest::newRow(v) << v;
    }
    void rendersResultViewsOfAProject() {
        QFETCH(QString, view);
        QTemporaryDir dir;
        const QString project = dir.path() + "/study.dpmix";
        dpmix::workbench::testing::generateProject(project);
        const QString out = dir.path() + "/shot.png";
        QString err;
        QCOMPARE(runWorkbench({"--read-only", project, "--screenshot", out, "--view", view}, &err), 0);
        QVERIFY2(!QImage(out).isNull(), qPrintable(err));
    }
    void resultViewNeedsAProject() {
        QTemporaryDir dir;
        const QString out = dir.path() + "/shot.png";
        QString err;
        QCOMPARE(runWorkbench({"--screenshot", out, "--view", "lambda"}, &err), 2);
        QVERIFY2(err.contains("--view lambda needs an open project"), qPrintable(err));
        QVERIFY(!QFile::exists(out));
    }
    void unknownViewIsRefused() {
        QTemporaryDir dir;
        const QString out = dir.path() + "/shot.png";
        QString err;
        QCOMPARE(runWorkbench({"--screenshot", out, "--view", "nonsense"}, &err), 2);
        QVERIFY2(err.contains("--view nonsense is unknown: expected one of main, calculator"), qPrintable(err));
        QVERIFY(!QFile::exists(out));
    }
};

QTEST_GUILESS_MAIN(TstWorkbenchScreenshot)
#include "tst_workbench_screenshot.moc"
