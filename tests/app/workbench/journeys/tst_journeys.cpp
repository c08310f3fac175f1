// The workbench's three user journeys, walked in a real window with the real engine (docs/WORKBENCH.md,
// "Journeys"): every step is a mouse click or key sequence on a widget found by its object name or
// text, counted and timed, with screenshots at each meaningful step.
//  - reviewer: opens the demo project read-only, reads the Study summary, Verify all, λ vs λ*, the
//    ledger and the AUC, and exports the report (HTML + PDF);
//  - clinician: builds a study from CSV manifests with patient ids (user-level privacy) through the
//    Study menu's dialogs, sets the panel, saves it and runs DP-MixMin;
//  - teacher: opens a copy of the demo project, runs an ε sweep and reads the privacy–utility plot.
// The reviewer and teacher need the demo project (scripts/run-journeys.sh makes it); they are
// skipped without it. Environment: DPMIX_JOURNEY_SHOTS (screenshot folder, default none),
// DPMIX_JOURNEY_WORK (where the report and the studies are written, default a temporary folder),
// DPMIX_JOURNEY_DEMO (the reviewer's project, default build/screenshots-demo or the demo).
#include "app/workbench/main_window.h"
#include "app/workbench/runs/job_runner.h"
#include "app/workbench/runs/stage_queue.h"
#include "app/workbench/views/auc_epsilon_view.h"
#include "engine/privacy/ledger_json.h"
#include "tests/app/workbench/demo_project_copy.h"
#include "tests/app/workbench/journeys/journey_driver.h"
#include "tests/app/workbench/journeys/journey_window.h"
#include "tests/app/workbench/window_parts.h"
#include "tests/support/test_support.h"
#include "widgets/chart_widget.h"
#include "widgets/parameter_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <random>
#include <set>

using namespace dpmix::workbench;
using namespace dpmix::workbench::test;
using namespace dpmix::workbench::journeys;

namespace {

constexpr int kJobTimeoutMs = 10 * 60 * 1000;
const QStringList kFindings = {"Effusion", "Nodule", "Cardiomegaly", "Edema"};

// A grey 28×28 image of finding c: quadrant c bright, the rest dark, with seeded noise.
QImage findingImage(int finding, std::mt19937_64& rng) {
    QImage image(28, 28, QImage::Format_Grayscale8);
    for (int y = 0; y < 28; ++y)
        for (int x = 0; x < 28; ++x) {
            const int quadrant = (y >= 14) * 2 + (x >= 14);
            image.scanLine(y)[x] = static_cast<uchar>((quadrant == finding ? 170 : 40) + rng() % 60);
        }
    return image;
}

// <dir>/manifest.csv and its PNGs: Path,[Patient,]Effusion,Nodule,Cardiomegaly,Edema; image i has
// finding i mod 4; with `perPatient` > 0, image i belongs to patient P<i / perPatient>.
bool writeManifest(const QString& dir, int images, int perPatient, std::uint64_t seed) {
    if (!QDir().mkpath(dir)) return false;
    std::mt19937_64 rng(seed);
    QString csv = perPatient > 0 ? QStringLiteral("Path,Patient,") : QStringLiteral("Path,");
    csv += kFindings.join(',') + '\n';
    for (int i = 0; i < images; ++i) {
        const int finding = i % 4;
        const QString file = QStringLiteral("img%1.png").arg(i, 4, 10, QLatin1Char('0'));
        if (!findingImage(finding, rng).save(dir + '/' + file, "PNG")) return false;
        csv += file + ',';
        if (perPatient > 0) csv += QStringLiteral("P%1,").arg(i / perPatient, 4, 10, QLatin1Char('0'));
        QStringList flags;
        for (int c = 0; c < 4; ++c) flags << (c == finding ? "1" : "0");
        csv += flags.join(',') + '\n';
    }
    QFile f(dir + QStringLiteral("/manifest.csv"));
    return f.open(QIODevice::WriteOnly) && f.write(csv.toUtf8()) == csv.toUtf8().size();
}

}  // namespace

class TstJourneys : public QObject {
    Q_OBJECT

    QTemporaryDir scratch_;
    QString work_, shots_;

    JourneyServices engine_;
    WorkbenchServices services() { return engine_.services(); }

    QString reviewerProject() const {
        if (const QString given = qEnvironmentVariable("DPMIX_JOURNEY_DEMO"); !given.isEmpty()) return given;
        const QString richer = dpmix::test_support::binaryPath("/screenshots-demo/fashion-mnist.dpmix");
        return QFile::exists(richer) ? richer : testing::demoProject();
    }

private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("dpmix-tests");
        QCoreApplication::setApplicationName("tst_journeys");
        QSettings().clear();                                          // a fresh window layout and no recent files
        QCoreApplication::setAttribute(Qt::AA_DontUseNativeDialogs);  // the file dialogs are widgets to drive
        QVERIFY(scratch_.isValid());
        work_ = qEnvironmentVariable("DPMIX_JOURNEY_WORK", scratch_.path());
        QVERIFY(QDir().mkpath(work_));
        shots_ = qEnvironmentVariable("DPMIX_JOURNEY_SHOTS");
        if (!shots_.isEmpty()) QVERIFY(QDir().mkpath(shots_));
    }

    void reviewer() {
        const QString demo = reviewerProject();
        if (demo.isEmpty() || !QFile::exists(demo)) QSKIP("no demo project (scripts/run-journeys.sh makes it)");
        MainWindow w(services());
        QVERIFY(showWindow(w));
        Journey j("reviewer", shots_);
        ModalScript modals;

        j.note("File ▸ Open read-only…, type the demo project's path, Enter");
        modals.then([&](QWidget* d) { j.answerFileDialog(d, demo); });
        QVERIFY(j.pickMenu(&w, "File", "Open read-only"));
        QVERIFY(waitFor(
            j, [&] { return w.project() != nullptr; }, 30000));
        QVERIFY(w.isReadOnly());
        QVERIFY(w.windowTitle().contains("read-only"));
        // The window opens on the Study summary.
        QCOMPARE(analysisTabs(w)->currentWidget()->objectName(), QString("summaryView"));
        j.shot(&w, "summary");

        j.note("Verify all");
        QWidget* summary = analysisTabs(w)->currentWidget();
        QPushButton* verifyAll = buttonWithText(summary, "Verify all");
        QVERIFY(verifyAll);
        j.click(verifyAll);
        // The line beside the button says what was checked: ✔ or ✘.
        QLabel* result = nullptr;
        QVERIFY(waitFor(
            j,
            [&] {
                for (auto* label : summary->findChildren<QLabel*>())
                    if (label->text().startsWith(QString::fromUtf8("✔")) ||
                        label->text().startsWith(QString::fromUtf8("✘")))
                        result = label;
                return result != nullptr;
            },
            30000));
        QVERIFY2(result->text().startsWith(QString::fromUtf8("✔")), qPrintable(result->text()));
        j.shot(&w, "verified");

        j.note("λ by task: the private λ against λ* and uniform");
        QVERIFY(j.clickTab(analysisTabs(w), "λ by task"));
        j.shot(&w, "lambda");

        j.note("Privacy ledger, Verify");
        QVERIFY(j.clickTab(analysisTabs(w), "Ledger"));
        if (QPushButton* verify = buttonWithText(analysisTabs(w)->currentWidget(), "Verify")) j.click(verify);
        j.shot(&w, "ledger");

        j.note("Per-class AUC: the downstream models against the baselines");
        QVERIFY(j.clickTab(analysisTabs(w), "AUC"));
        j.shot(&w, "auc");

        j.note("File ▸ Export report…, type the report's path, Enter, OK");
        const QString report = work_ + "/reviewer-report.html";
        QFile::remove(report);
        QFile::remove(report.chopped(5) + ".pdf");
        modals.then([&](QWidget* d) { j.answerFileDialog(d, report); });
        modals.then([&](QWidget* box) {
            j.shot(box, "report-written");
            auto* mb = qobject_cast<QMessageBox*>(box);
            j.click(mb ? static_cast<QWidget*>(mb->button(QMessageBox::Ok)) : box);
        });
        QVERIFY(j.pickMenu(&w, "File", "Export report"));
        QVERIFY(waitFor(
            j, [&] { return modals.done() && QApplication::activeModalWidget() == nullptr; }, 60000));
        QVERIFY(QFile::exists(report));
        QFile pdf(report.chopped(5) + ".pdf");
        QVERIFY(pdf.open(QIODevice::ReadOnly));
        QCOMPARE(pdf.read(5), QByteArray("%PDF-"));
        // Read-only: nothing to save, no prompt on quitting.
        QVERIFY(!w.isWindowModified());
        appendSummary(shots_, j);
    }

    void clinician() {
        const QString data = work_ + "/clinic-data";
        QDir(data).removeRecursively();
        QVERIFY(writeManifest(data + "/public-xrays", 400, 0, 1));
        QVERIFY(writeManifest(data + "/hospital", 600, 3, 2));  // 200 patients, 3 images each
        const QString project = work_ + "/clinic-study.dpmix";
        QFile::remove(project);
        QDir(work_ + "/clinic-study.models").removeRecursively();

        MainWindow w(services());
        QVERIFY(showWindow(w));
        Journey j("clinician", shots_);
        ModalScript modals;

        // One source dialog: loader, path, options, preview, tasks, OK.
        auto registerSource = [&](const QString& item, const QString& manifest, const QString& sourceName,
                                  bool sensitive, const QList<QPair<QString, QStringList>>& tasks,
                                  const QString& stepName) -> bool {
            auto why = [](const char* what) {
                qWarning("source dialog: %s", what);
                return false;
            };
            if (!j.pickMenu(&w, "Study", item)) return why("menu item");
            QDialog* dialog = nullptr;
            if (!QTest::qWaitFor(
                    [&] { return (dialog = w.findChild<QDialog*>("sourceDialog")) && dialog->isVisible(); }, 5000))
                return why("no dialog");
            QTest::qWait(150);
            auto* loader = dialog->findChild<QComboBox*>("loaderBox");
            if (!loader || !j.pickCombo(loader, "CSV manifest")) return why("loader");
            auto* path = dialog->findChild<QLineEdit*>("sourcePath");
            j.click(path);
            j.type(path, manifest);
            // The name proposed for a manifest is its file's stem ("manifest"), the same for both
            // sources: the user names each one.
            j.replaceText(dialog->findChild<QLineEdit*>("sourceName"), sourceName);
            auto* size = dialog->findChild<QLineEdit*>("option_size");
            j.click(size);
            j.type(size, "28");
            if (sensitive) {
                auto* users = dialog->findChild<QLineEdit*>("option_user_column");
                j.click(users);
                j.type(users, "Patient");
                // A sensitive source declares its label set: it is never read from the data.
                auto* labels = dialog->findChild<QLineEdit*>("option_labels");
                if (!labels) return why("label columns field");
                j.click(labels);
                j.type(labels, "Effusion,Nodule,Cardiomegaly,Edema");
                auto* userLevel = dialog->findChild<QCheckBox*>("userLevel");
                j.click(userLevel);
                if (!userLevel->isChecked()) return why("user-level box");
            }
            auto* classes = dialog->findChild<QListWidget*>("taskClasses");
            QPushButton* ok = dialogButton(dialog, QDialogButtonBox::Ok);
            if (!waitFor(
                    j, [&] { return classes->count() == 4 && ok->isEnabled(); }, 60000)) {
                j.shot(dialog, stepName + "-preview-failed");
                return why("preview");
            }
            j.shot(dialog, stepName + "-preview");
            auto* name = dialog->findChild<QLineEdit*>("taskName");
            auto* add = dialog->findChild<QPushButton*>("addTask");
            for (const auto& [task, members] : tasks) {
                j.click(name);
                j.type(name, task);
                for (const QString& c : members)
                    if (!j.tick(classes, c)) return why("tick");
                j.click(add);
            }
            if (dialog->findChild<QListWidget*>("taskList")->count() != tasks.size()) return why("tasks");
            j.shot(dialog, stepName + "-tasks");
            j.click(ok);
            return QTest::qWaitFor([&] { return !w.findChild<QDialog*>("sourceDialog"); }, 5000);
        };

        j.note("Study ▸ Add public source…: CSV manifest, path, name, resolution 28, three public tasks, OK");
        QVERIFY(registerSource(
            "Add public source", data + "/public-xrays/manifest.csv", "public-xrays", false,
            {{"Effusion", {"Effusion"}}, {"Nodule", {"Nodule"}}, {"heart or oedema", {"Cardiomegaly", "Edema"}}},
            "public"));
        j.note(
            "Study ▸ Set sensitive data…: CSV manifest, path, name, resolution 28, user column Patient, label columns, "
            "user-level, "
            "two tasks, OK");
        QVERIFY(registerSource("Set sensitive data", data + "/hospital/manifest.csv", "hospital", true,
                               {{"fluid", {"Effusion", "Edema"}}, {"mass", {"Nodule", "Cardiomegaly"}}}, "sensitive"));
        // The panel plans with the registered data at once: 80% of the 200 patients.
        dpmix::widgets::ParameterPanel* panel = parameterPanel(w);
        auto* n = panelEditor<QSpinBox>(panel, "n");
        QVERIFY(n);
        QCOMPARE(n->value(), 160);
        j.shot(&w, "registered");

        j.note("Panel: ε 1, ρ 0.3, seed 0, batch 32, 40 steps");
        QVERIFY(fillMixturePanel(j, panel, {"1", "0.3", "0", "32", "40"}));
        QPushButton* run = buttonWithText(panel, "Run DP-MixMin");
        QVERIFY(run);
        scrollTo(run);
        QVERIFY(waitFor(
            j, [&] { return w.calculationsIdle() && run->isEnabled(); }, 30000));
        j.shot(&w, "parameters");

        j.note("File ▸ Save, type the project's path, Enter");
        modals.then([&](QWidget* d) { j.answerFileDialog(d, project); });
        QVERIFY(j.pickMenu(&w, "File", "Save"));
        QVERIFY(waitFor(
            j, [&] { return w.project() != nullptr; }, 120000));
        QCOMPARE(w.currentFile(), QFileInfo(project).absoluteFilePath());
        bool userLevel = false;
        for (const auto& s : w.project()->sources)
            if (s.role == dpmix::project::SourceRole::Sensitive) userLevel = s.userLevel && s.facts.users == 200;
        QVERIFY(userLevel);
        j.shot(&w, "saved");

        j.note("Run DP-MixMin, OK in the spend preview");
        run = buttonWithText(panel, "Run DP-MixMin");
        QVERIFY(run);
        QVERIFY(waitFor(
            j, [&] { return w.calculationsIdle() && run->isEnabled(); }, 30000));
        modals.then([&](QWidget* box) {
            j.shot(box, "spend-preview");
            auto* mb = qobject_cast<QMessageBox*>(box);
            j.click(mb ? static_cast<QWidget*>(mb->button(QMessageBox::Ok)) : box);
        });
        QSignalSpy ended(stageQueue(w), &StageQueue::stageEnded);
        j.click(run);
        QVERIFY(modals.done());
        QVERIFY(waitFor(
            j, [&] { return ended.count() > 0 && jobsIdle(w); }, kJobTimeoutMs));
        QVERIFY(waitFor(
            j, [&] { return w.project() && !w.project()->runs.empty(); }, 5000));
        bool userLevelRelease = false;
        for (const auto& r : w.project()->runs)
            if (r.run.method == "dp-mixmin" && r.run.status == dpmix::project::RunStatus::Done && !r.ledgers.empty())
                if (auto ledger = dpmix::privacy::ledgerFromJson(r.ledgers.back().ledgerJson))
                    for (const auto& e : ledger->entries())
                        userLevelRelease |= e.unit == dpmix::privacy::PrivacyUnit::User;
        QVERIFY2(userLevelRelease, "no finished DP-MixMin run with a user-level ledger entry");
        QVERIFY(j.clickTab(analysisTabs(w), "Summary"));
        j.shot(&w, "summary");
        j.note("λ by task");
        QVERIFY(j.clickTab(analysisTabs(w), "λ by task"));
        j.shot(&w, "lambda");
        QVERIFY(compareAfterTheMixture(w, j, modals));
        appendSummary(shots_, j);
    }

    // The clinician goes on to the downstream comparison: short pretraining and fine-tuning with a
    // batch split B holds, Run ▸ Compare with baselines, and the confirm dialog's time estimate and
    // releases — the fine-tunings only, as DP-MixMin's mixture is the one just released (docs/PRIVACY.md, "Reusing a
    // released mixture").
    bool compareAfterTheMixture(MainWindow& w, Journey& j, ModalScript& modals) {
        auto fail = [](const QString& why) {
            qWarning("compare: %s", qPrintable(why));
            return false;
        };
        j.note("Panel: pretraining steps 40, fine-tuning batch 32 and steps 40");
        dpmix::widgets::ParameterPanel* panel = parameterPanel(w);
        auto* pretrainSteps = panelEditor<QSpinBox>(panel, "pretrain-steps");
        auto* finetuneBatch = panelEditor<QSpinBox>(panel, "finetune-batch");
        auto* finetuneSteps = panelEditor<QSpinBox>(panel, "finetune-steps");
        if (!pretrainSteps || !finetuneBatch || !finetuneSteps) return fail("stage fields");
        scrollTo(pretrainSteps);
        j.replaceText(pretrainSteps, "40");
        scrollTo(finetuneBatch);
        j.replaceText(finetuneBatch, "32");
        j.replaceText(finetuneSteps, "40");
        if (!waitFor(
                j, [&] { return w.calculationsIdle() && runAction(w)->isEnabled(); }, 30000))
            return fail("panel not idle");
        j.note("Run ▸ Compare with baselines; the confirm dialog: releases, ε and the time estimate; OK");
        QString preview;
        modals.then([&](QWidget* box) {
            auto* mb = qobject_cast<QMessageBox*>(box);
            preview = mb ? mb->text() : QString();
            j.shot(box, "compare-spend-preview");
            j.click(mb ? static_cast<QWidget*>(mb->button(QMessageBox::Ok)) : box);
        });
        QSignalSpy ended(stageQueue(w), &StageQueue::stageEnded);
        QElapsedTimer clock;
        clock.start();
        if (!j.pickMenu(&w, "Run", "Compare with baselines") || !modals.done()) return fail("menu or dialog");
        if (!preview.contains("Estimated time on this machine: about")) return fail("no estimate: " + preview);
        // 3 private fine-tunings (DP-MixMin, Uniform, Random Init) × 2 tasks; the 2 mixtures are reused.
        if (!preview.contains("<b>6 DP release(s)</b>")) return fail("releases: " + preview);
        if (!waitFor(
                j, [&] { return jobList(w)->rowCount() > 0 && jobsIdle(w) == false; }, 10000))
            return fail("no job");
        // One bar for the whole job (a stage's own count beside it).
        waitFor(
            j,
            [&] {
                for (int id = 0; id < 256; ++id)
                    if (auto* bar = jobList(w)->progressBar(id);
                        bar && jobList(w)->state(id) == dpmix::widgets::JobState::Running &&
                        bar->text().contains("of the job"))
                        return true;
                return false;
            },
            120000);
        j.shot(&w, "compare-running");
        if (!waitFor(
                j, [&] { return ended.count() > 0 && jobsIdle(w); }, kJobTimeoutMs))
            return fail("the comparison did not end");
        j.note(QStringLiteral("the comparison took %1 s in the window").arg(clock.elapsed() / 1000));
        bool reused = false;
        for (const auto& r : w.project()->runs)
            if (r.run.method == "dp-mixmin" && r.run.epsilon && !r.ledgers.empty())
                if (auto ledger = dpmix::privacy::ledgerFromJson(r.ledgers.back().ledgerJson))
                    for (const auto& e : ledger->entries()) reused |= e.spentInRun > 0;
        if (!reused) return fail("no downstream DP-MixMin run carries the released mixture");
        if (!j.clickTab(analysisTabs(w), "AUC")) return fail("AUC tab");
        j.shot(&w, "compare-auc");
        return true;
    }

    void teacher() {
        if (testing::demoProject().isEmpty()) QSKIP("no demo project (scripts/run-journeys.sh makes it)");
        const QString dir = work_ + "/teacher";
        QDir(dir).removeRecursively();
        QVERIFY(QDir().mkpath(dir));
        const QString project = testing::copyDemoProject(dir);
        QVERIFY(!project.isEmpty());

        MainWindow w(services());
        QVERIFY(showWindow(w));
        Journey j("teacher", shots_);
        ModalScript modals;

        j.note("File ▸ Open…, type the project's path, Enter");
        modals.then([&](QWidget* d) { j.answerFileDialog(d, project); });
        QVERIFY(j.pickMenu(&w, "File", "Open"));
        QVERIFY(waitFor(
            j, [&] { return w.project() != nullptr; }, 30000));
        j.shot(&w, "opened");
        std::set<double> before;
        for (const auto& r : w.project()->runs)
            if (r.run.method == "dp-mixmin" && r.run.epsilon) before.insert(*r.run.epsilon);

        j.note("Run ▸ ε sweep…: the proposed ε values 0.25 … 8, OK; OK in the spend preview");
        QVERIFY(waitFor(
            j, [&] { return w.calculationsIdle() && runAction(w)->isEnabled(); }, 30000));
        modals.then([&](QWidget* d) {
            auto* values = d->findChild<QLineEdit*>("sweepEpsilons");
            QVERIFY(values);
            j.shot(d, "sweep-dialog");
            j.click(dialogButton(d, QDialogButtonBox::Ok));
        });
        // A sweep spends at every ε: it is previewed and confirmed like a run.
        modals.then([&](QWidget* box) {
            j.shot(box, "sweep-spend-preview");
            auto* mb = qobject_cast<QMessageBox*>(box);
            QVERIFY(mb && mb->text().contains("DP release"));
            j.click(static_cast<QWidget*>(mb->button(QMessageBox::Ok)));
        });
        QSignalSpy ended(stageQueue(w), &StageQueue::stageEnded);
        QVERIFY(j.pickMenu(&w, "Run", "ε sweep"));
        QVERIFY(modals.done());
        QTest::qWait(1500);
        j.shot(&w, "running");
        QVERIFY(waitFor(
            j, [&] { return ended.count() > 0 && jobsIdle(w); }, kJobTimeoutMs));

        j.note("Privacy–utility tab");
        QVERIFY(j.clickTab(analysisTabs(w), "Trade-off"));
        QWidget* tradeoff = analysisTabs(w)->currentWidget();
        QCOMPARE(tradeoff->objectName(), QString("tradeoffView"));
        std::set<double> after;
        for (const auto& r : w.project()->runs)
            if (r.run.method == "dp-mixmin" && r.run.epsilon && r.run.status == dpmix::project::RunStatus::Done)
                after.insert(*r.run.epsilon);
        for (double e : {0.25, 0.5, 1.0, 2.0, 4.0, 8.0}) QVERIFY2(after.count(e) == 1, qPrintable(QString::number(e)));
        QVERIFY(after.size() > before.size());
        auto* chart = tradeoff->findChild<dpmix::widgets::ChartWidget*>();
        QVERIFY(chart && chart->plottedTable().rows.size() >= 6);
        j.shot(&w, "tradeoff");

        // The question a class asks next: does the model get better with ε too? (docs/WORKBENCH.md, "Teacher: an ε
        // sweep…") One seed keeps it to minutes (the demo copy's panel has seeds 0, 1, 2).
        j.note("Panel: seeds 0");
        auto* seeds = panelEditor<QLineEdit>(parameterPanel(w), "seeds");
        QVERIFY(seeds);
        scrollTo(seeds);
        j.replaceText(seeds, "0");
        QVERIFY(waitFor(
            j, [&] { return w.calculationsIdle() && runAction(w)->isEnabled(); }, 30000));
        j.note(
            "Run ▸ ε sweep… again: ε 0.5, 1, 4; only warm clothing; full pipeline with DP-MixMin, Uniform and "
            "Random Init; Short training kept; OK; OK in the spend preview");
        modals.then([&](QWidget* d) {
            j.replaceText(d->findChild<QLineEdit*>("sweepEpsilons"), "0.5, 1, 4");
            auto* tasks = d->findChild<QListWidget*>("sweepTasks");
            QVERIFY(tasks);
            for (const char* other : {"summer wear", "office wear", "casual wear"}) QVERIFY(j.tick(tasks, other));
            j.click(d->findChild<QCheckBox*>("sweepFullPipeline"));
            auto* methodList = d->findChild<QListWidget*>("sweepMethods");
            QVERIFY(methodList && methodList->isEnabled());
            for (const char* other : {"Random search", "Non-private MixMin (λ*)"}) QVERIFY(j.tick(methodList, other));
            QVERIFY(d->findChild<QCheckBox*>("sweepShortTraining")->isChecked());
            j.shot(d, "sweep-full-pipeline");
            j.click(dialogButton(d, QDialogButtonBox::Ok));
        });
        modals.then([&](QWidget* box) {
            auto* mb = qobject_cast<QMessageBox*>(box);
            QVERIFY(mb && mb->text().contains("DP release"));
            j.click(static_cast<QWidget*>(mb->button(QMessageBox::Ok)));
        });
        QSignalSpy fullEnded(stageQueue(w), &StageQueue::stageEnded);
        QVERIFY(j.pickMenu(&w, "Run", "ε sweep"));
        QVERIFY(modals.done());
        QVERIFY(waitFor(
            j, [&] { return fullEnded.count() > 0 && jobsIdle(w); }, kJobTimeoutMs));

        j.note("AUC vs ε tab");
        QVERIFY(j.clickTab(analysisTabs(w), "AUC vs ε"));
        auto* aucEpsilon = qobject_cast<AucEpsilonView*>(analysisTabs(w)->currentWidget());
        QVERIFY(aucEpsilon && !aucEpsilon->showsEmptyState());
        for (const char* method : {"DP-MixMin", "Uniform", "Random Init"}) {
            bool found = false;
            for (const auto& s : aucEpsilon->chart()->series())
                if (s.name.startsWith(method)) {
                    found = true;
                    for (double e : {0.5, 1.0, 4.0}) QVERIFY2(s.x.contains(e), qPrintable(s.name));
                }
            QVERIFY2(found, method);
        }
        j.shot(&w, "auc-vs-epsilon");
        appendSummary(shots_, j);
    }
};

QTEST_MAIN(TstJourneys)
#include "tst_journeys.moc"
