// Help ▸ Manual (F1) and Glossary: the manual is bundled (every listed document loads from the
// program's resources), F1 opens it at the section of the current view, unknown topics fall back
// to the top, and the glossary explains the terms the workbench shows.
#include "app/workbench/help/help_topics.h"
#include "app/workbench/help/help_window.h"
#include "app/workbench/main_window.h"
#include "tests/app/workbench/fake_backends.h"
#include "tests/app/workbench/isolated_settings.h"
#include "tests/app/workbench/window_parts.h"

#include <QAction>
#include <QFile>
#include <QMenuBar>
#include <QRegularExpression>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTextBrowser>
#include <QtTest>

using namespace dpmix::workbench;
using namespace dpmix::workbench::test;

class TstHelp : public QObject {
    Q_OBJECT
    testing::MemoryProjectStore store_;
    testing::EndlessStageController runs_;
    WorkbenchServices services() {
        return {&runs_, &store_, [] { return QStringLiteral("test"); }};
    }

private Q_SLOTS:
    void initTestCase() { dpmix::workbench::test::isolateSettings("tst_help"); }

    void everyDocumentIsBundled() {
        MainWindow w(services());  // registers the program's resources
        for (const HelpDocument& d : manualDocuments())
            QVERIFY2(QFile::exists(":/dpmix/manual/" + d.file), qPrintable(d.file));
    }

    void everyTopicsHeadingIsInItsDocument() {
        MainWindow w(services());
        HelpWindow help;
        for (const char* view : {"summaryView", "lambdaView", "ledgerView", "trajectoryView", "tradeoffView", "aucView",
                                 "aucepsilonView", "perplexityView", "auditView", "kscalingView", "privatesetView",
                                 "adamixView", "exampleprivacyView", "calculatorView", "rundetailsView", "unknown"}) {
            const HelpTopic topic = helpTopicFor(view);
            QVERIFY2(help.showTopic(topic), view);
            QCOMPARE(help.currentDocument(), topic.document);
            QVERIFY2(help.currentHeading().startsWith(topic.heading), qPrintable(help.currentHeading()));
        }
        QVERIFY(!help.showTopic({"NOPE.md", "x"}));
        QCOMPARE(help.currentDocument(), QString("MANUAL.md"));
        QVERIFY(!help.showTopic({"PSG.md", "No such heading"}));
    }

    void f1OpensTheManualAtTheCurrentView() {
        MainWindow w(services());
        w.show();
        QAction* manual = nullptr;
        for (QAction* a : w.findChildren<QAction*>())
            if (a->shortcut() == QKeySequence(QKeySequence::HelpContents)) manual = a;
        QVERIFY(manual);
        bool whatsThis = false;  // Shift+F1: the fields' plain-language meanings
        for (QAction* a : w.findChildren<QAction*>()) whatsThis = whatsThis || a->text().contains("What's This");
        QVERIFY(whatsThis);
        QCOMPARE(analysisTabs(w)->currentWidget()->objectName(), QString("calculatorView"));
        manual->trigger();
        auto* help = w.findChild<HelpWindow*>();
        QVERIFY(help && help->isVisible());
        QCOMPARE(help->currentDocument(), QString("MANUAL.md"));
        QCOMPARE(help->currentHeading(), QString("Choosing the privacy settings"));
        QTest::qWait(50);  // the heading is scrolled to the top once the window is laid out
        if (const QString shots = qEnvironmentVariable("DPMIX_SCREENSHOT_DIR"); !shots.isEmpty())
            QVERIFY(help->grab().save(shots + "/help-manual.png"));
    }

    // F1 opens a manual for users (docs/MANUAL.md): first in the list, every view's section in it, no
    // source paths or class names, every image it shows bundled (no broken-image icons), and the
    // window closes with Esc or Ctrl+W.
    void theManualIsWrittenForUsers() {
        MainWindow w(services());
        QCOMPARE(manualDocuments().front().file, QString("MANUAL.md"));
        QFile file(":/dpmix/manual/MANUAL.md");
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(file.readAll());
        const QRegularExpression code(QStringLiteral(R"(\b\w+\.(h|cpp)\b|\w::\w|QThreadPool|MainWindow)"));
        QVERIFY2(!code.match(text).hasMatch(), qPrintable(code.match(text).captured(0)));
        const QRegularExpression image(QStringLiteral(R"(!\[[^\]]*\]\(([^)\s]+)\))"));
        int images = 0;
        for (auto it = image.globalMatch(text); it.hasNext(); ++images) {
            const QString path = it.next().captured(1);
            QVERIFY2(QFile::exists(":/dpmix/manual/" + path), qPrintable(path + " is not bundled"));
        }
        QVERIFY(images > 0);

        HelpWindow help;
        QVERIFY(help.showTopic({"MANUAL.md", "AUC vs ε"}));
        QVERIFY(help.isVisible());
        QVERIFY(QTest::qWaitForWindowActive(&help));
        QTest::keyClick(&help, Qt::Key_Escape);
        QVERIFY(!help.isVisible());
        QVERIFY(help.showTopic({"MANUAL.md", {}}));
        QVERIFY(QTest::qWaitForWindowActive(&help));
        QTest::keySequence(&help, QKeySequence::Close);
        QVERIFY(!help.isVisible());
    }

    void theGlossaryExplainsTheWorkbenchsWords() {
        MainWindow w(services());
        HelpWindow* help = w.showHelp(HelpTopic{"GLOSSARY.md", {}});
        const QString text = help->browser()->toPlainText();
        for (const char* term : {"λ* (lambda star)", "Cosine similarity", "EG step", "Split A / split B, ρ (rho)",
                                 "RDP order α", "Established / claimed", "(α, r)", "ε_LB", "Private set S"})
            QVERIFY2(text.contains(QString::fromUtf8(term)), term);
    }
};

QTEST_MAIN(TstHelp)
#include "tst_help.moc"
