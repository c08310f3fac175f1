// The trust boundary in the window, over a real project file (generated, no training): the
// verdict banner and title of a project with non-private results, File ▸ Export release…'s
// choice of runs, and the release itself opened read-only with its own verdict.
#include "app/workbench/main_window.h"
#include "app/workbench/project/engine_project_store.h"
#include "app/workbench/project/release_dialog.h"
#include "app/workbench/runs/engine_run_controller.h"
#include "app/workbench/views/study_summary.h"
#include "engine/privacy/dirichlet_accountant.h"
#include "engine/privacy/ledger.h"
#include "engine/project/project_file.h"
#include "tests/app/workbench/generated_project.h"
#include "tests/app/workbench/isolated_settings.h"
#include "tests/app/workbench/window_parts.h"
#include "widgets/chart_widget.h"

#include <QAction>
#include <QCheckBox>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

using namespace dpmix::workbench;
using namespace dpmix::workbench::test;

namespace {
dpmix::Result<dpmix::project::SourceFacts> noData(const dpmix::data::SourceSpec& spec) {
    return dpmix::Error{"no data in this test: " + spec.name};
}

StudyFunction noStudy() {
    return [](dpmix::project::ProjectFile&, const StudyRequest&, const dpmix::ProgressCallback&,
              const dpmix::CancellationToken&,
              const StudyLog&) -> std::optional<dpmix::Error> { return dpmix::Error{"no study in this test"}; };
}
}  // namespace

namespace {

// The start of the first line of a CSV exported from the window's first chart (up to its verdict's
// first ':' after the label, so the test does not depend on the run list).
QString firstCsvLine(const dpmix::workbench::MainWindow& w) {
    const auto charts = w.findChildren<dpmix::widgets::ChartWidget*>();
    if (charts.isEmpty()) return QStringLiteral("(no chart in the window)");
    QTemporaryDir dir;
    const QString csv = dir.path() + "/chart.csv";
    if (const QString e = charts.front()->exportTo(csv, dpmix::widgets::ExportFormat::Csv); !e.isEmpty()) return e;
    QFile f(csv);
    if (!f.open(QIODevice::ReadOnly | QIODevice::Text)) return QStringLiteral("(unreadable)");
    const QString line = QString::fromUtf8(f.readLine()).trimmed();
    const int cut = line.indexOf(QLatin1Char(':'), line.indexOf(QLatin1Char(':')) + 1);
    return cut < 0 ? line : line.left(cut);
}

}  // namespace

class TstReleaseWindow : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    testing::GeneratedProject generated_;
    EngineProjectStore store_{noData};
    EngineRunController runs_{noStudy()};

    WorkbenchServices services() {
        return {&runs_, &store_, [] { return QStringLiteral("test"); }};
    }

private Q_SLOTS:
    void initTestCase() {
        dpmix::workbench::test::isolateSettings("tst_release_window");
        generated_ = testing::generateProject(dir_.path() + "/study.dpmix");
    }

    void aProjectWithNonPrivateResultsSaysKeepInside() {
        MainWindow w(services());
        QVERIFY(!exportReleaseAction(w)->isEnabled());  // nothing open
        QCOMPARE(w.openFile(generated_.path), QString());
        QVERIFY(!trustBanner(w)->isHidden());
        QVERIFY2(trustBanner(w)->text().contains("Keep inside the trust boundary"), qPrintable(trustBanner(w)->text()));
        QVERIFY(trustBanner(w)->text().contains("lambda* (non-private MixMin)"));
        QVERIFY(trustBanner(w)->toolTip().contains("lambda* (non-private MixMin) (runs "));  // the runs, on hover
        QVERIFY2(w.windowTitle().contains("non-private results: keep inside"), qPrintable(w.windowTitle()));
        QVERIFY(exportReleaseAction(w)->isEnabled());
        // A chart exported from this window says so in its first line (docs/PRIVACY.md, "Trust boundary").
        QCOMPARE(firstCsvLine(w), QStringLiteral("# trust boundary: Keep inside the data owner's trust boundary"));
    }

    void theDialogOffersOnlyReleasableRuns() {
        MainWindow w(services());
        QCOMPARE(w.openFile(generated_.path), QString());
        ReleaseDialog dialog(*w.project());
        QTreeWidget* list = dialog.runList();
        QVERIFY(list->topLevelItemCount() > 0);
        int offered = 0, refused = 0;
        for (int i = 0; i < list->topLevelItemCount(); ++i) {
            auto* item = list->topLevelItem(i);
            const bool checkable = item->flags() & Qt::ItemIsUserCheckable;
            if (checkable) {
                ++offered;
                QVERIFY2(item->text(0).contains("DP-MixMin") || item->text(0).contains("Uniform") ||
                             item->text(0).contains("Proxy"),
                         qPrintable(item->text(0)));
            } else {
                ++refused;
                QVERIFY(!item->text(1).isEmpty());  // says why
            }
        }
        QVERIFY(offered > 0);
        QVERIFY(refused > 0);
        QVERIFY(!dialog.canAccept());  // nothing ticked
        for (int i = 0; i < list->topLevelItemCount(); ++i)
            if (list->topLevelItem(i)->flags() & Qt::ItemIsUserCheckable) {
                list->topLevelItem(i)->setCheckState(0, Qt::Checked);
                break;
            }
        QVERIFY(dialog.canAccept());
        QCOMPARE(dialog.options().runIds.size(), std::size_t(1));
        dialog.targetEdit()->clear();
        QVERIFY(!dialog.canAccept());
    }

    void aRunWhoseClaimAnAuditRefutedIsNotOffered() {
        const QString copy = dir_.path() + "/dirichlet.dpmix";
        (void)testing::generateProject(copy);
        long long run = 0;
        {
            auto file = dpmix::project::ProjectFile::open(copy.toStdString()).value();
            const double r = dpmix::privacy::calibrateDirichletR(1.0, 1e-5, 3.0, 0.01, 100).value().r;
            run = file.addRun({"uniform", "ac", 1.0, 0, "{}"}).value();
            (void)file.setRunStatus(run, dpmix::project::RunStatus::Running).value();
            dpmix::privacy::Ledger ledger;
            ledger.record(dpmix::privacy::dirichletEntry("finetune", "train", 3.0, r, 0.01, 100, 1e-5));
            (void)file.recordLedger(run, ledger).value();
            (void)file.setRunStatus(run, dpmix::project::RunStatus::Done).value();
        }
        auto itemOf = [&](const ReleaseDialog& dialog) -> QTreeWidgetItem* {
            for (int i = 0; i < dialog.runList()->topLevelItemCount(); ++i)
                if (dialog.runList()->topLevelItem(i)->text(0).startsWith(QStringLiteral("Run %1:").arg(run)))
                    return dialog.runList()->topLevelItem(i);
            return nullptr;
        };
        {
            // Claimed, not audited: offered, with a reason to record.
            MainWindow w(services());
            QCOMPARE(w.openFile(copy), QString());
            ReleaseDialog dialog(*w.project());
            QTreeWidgetItem* item = itemOf(dialog);
            QVERIFY(item && (item->flags() & Qt::ItemIsUserCheckable));
        }
        {
            auto file = dpmix::project::ProjectFile::open(copy.toStdString()).value();
            const long long audit = file.addRun({"audit", "ac", 1.0, 0, "{}"}).value();
            (void)file
                .addAudit({audit,
                           "finetune-dirichlet-large-norm",
                           {0, 0, 500, 500},
                           1e-5,
                           0.95,
                           4.9,
                           R"({"mechanism":"dirichlet","claimed_epsilon":1})"})
                .value();
        }
        // Refuted: never offered, whatever reason one would give.
        MainWindow w(services());
        QCOMPARE(w.openFile(copy), QString());
        ReleaseDialog dialog(*w.project());
        QTreeWidgetItem* item = itemOf(dialog);
        QVERIFY(item);
        QVERIFY(!(item->flags() & Qt::ItemIsUserCheckable));
        QVERIFY2(item->text(1).contains("its finetune mechanism: claim refuted by audit (ε_LB = 4.91 > ε = 1"),
                 qPrintable(item->text(1)));
    }

    void theReleaseOpensReadOnlyWithItsVerdict() {
        const QString release = dir_.path() + "/release.dpmix";
        const long long dpRun = generated_.dpRunEpsilon1Seed0;
        {
            MainWindow w(services());
            QCOMPARE(w.openFile(generated_.path), QString());
            dpmix::project::ReleaseOptions refused{{dpRun}};
            for (const auto& r : w.project()->runs)
                if (r.run.method == "random-search") refused.runIds.push_back(r.run.id);
            QVERIFY(w.exportRelease(release, refused).contains("not private"));
            QVERIFY(!QFileInfo::exists(release));
            QCOMPARE(w.exportRelease(release, {{dpRun}}), QString());
            QVERIFY(QFileInfo::exists(release));
        }
        MainWindow w(services());
        QCOMPARE(w.openFile(release), QString());
        QVERIFY(w.isReadOnly());
        QVERIFY(!runAction(w)->isEnabled());
        QVERIFY(!exportReleaseAction(w)->isEnabled());
        QVERIFY2(trustBanner(w)->text().contains("DP release"), qPrintable(trustBanner(w)->text()));
        QVERIFY(!trustBanner(w)->text().contains("Keep inside"));
        QVERIFY2(trustBanner(w)->text().contains("Read-only; exported from study.dpmix"),
                 qPrintable(trustBanner(w)->text()));
        QCOMPARE(firstCsvLine(w), QStringLiteral("# trust boundary: DP release"));
        QVERIFY2(w.windowTitle().contains("read-only") && w.windowTitle().contains("DP release (epsilon"),
                 qPrintable(w.windowTitle()));
        QCOMPARE(w.project()->runs.size(), std::size_t(1));
        QCOMPARE(w.project()->runs[0].run.id, dpRun);
        QVERIFY(w.project()->runs[0].lambda("non-private") == nullptr);  // λ* stays home
        QVERIFY(w.exportRelease(dir_.path() + "/again.dpmix", {{dpRun}}).contains("release already"));
    }

    // A reviewer opening the release reads what it holds: the Summary (and the report's first page)
    // names DP-MixMin's λ and says why λ* and the baselines are not in it, instead of "No mixture
    // has been learned yet: Run ▸ …" (Run is disabled in a release); pages that could only say
    // "nothing here" (the trade-off against λ*, AUC, Audit, k-scaling) are left out.
    void theReleaseReadsAsARelease() {
        MainWindow w(services());
        QCOMPARE(w.openFile(dir_.path() + "/release.dpmix"), QString());
        const QString verdict = studyVerdict(*w.project());
        QVERIFY2(!verdict.contains("No mixture has been learned yet"), qPrintable(verdict));
        QVERIFY2(verdict.contains("This DP release holds DP-MixMin's mixture"), qPrintable(verdict));
        QVERIFY2(verdict.contains("A release leaves out λ* and the baselines"), qPrintable(verdict));
        const auto mixtures = chosenMixtures(*w.project());
        QCOMPARE(mixtures.size(), std::size_t(1));
        QVERIFY2(
            verdict.contains(QStringLiteral("(run %1): ").arg(mixtures[0].run->run.id) + mixtures[0].parts.first()),
            qPrintable(verdict));
        QStringList tabs;
        for (int i = 0; i < analysisTabs(w)->count(); ++i) tabs << analysisTabs(w)->tabText(i);
        for (const char* shown : {"Summary", "λ by task", "Ledger"})
            QVERIFY2(tabs.contains(shown), qPrintable(tabs.join(", ")));
        for (const char* left : {"Trade-off", "AUC", "Audit", "k-scaling"})
            QVERIFY2(!tabs.contains(left), qPrintable(tabs.join(", ")));
        QVERIFY(!w.showView("tradeoff"));
        // The study it came from keeps every page.
        MainWindow study(services());
        QCOMPARE(study.openFile(generated_.path), QString());
        QVERIFY(study.showView("tradeoff"));
        QVERIFY(study.showView("audit"));
    }
};

QTEST_MAIN(TstReleaseWindow)
#include "tst_release_window.moc"
