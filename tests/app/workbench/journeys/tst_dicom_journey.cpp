// The clinician's journey with the clinic's own DICOM files (docs/WORKBENCH.md, "Journeys",
// "Clinician, with DICOM"), walked in a real window with the real engine: a public DICOM atlas
// labelled by a header tag, then the hospital's folder of chest images (200 patients × 3 images,
// one damaged file, labels in a CSV keyed by SOPInstanceUID) surveyed before labels are chosen,
// labelled, registered with the patient as the privacy unit; the study saved and DP-MixMin run;
// the Summary, λ by task and the ledger read. Then what left the DICOM files is checked: every
// ledger entry is user level, and none of the 2,000+ identifiers written into the files (patient
// ids, names, dates, UIDs, accession numbers) is in the project, its models or the budget store.
// Environment as tst_journeys: DPMIX_JOURNEY_SHOTS, DPMIX_JOURNEY_WORK. The pseudonym key and the
// budget store are kept under the work folder (DPMIX_KEY_DIR, DPMIX_BUDGET_STORE).
#include "app/workbench/main_window.h"
#include "engine/privacy/ledger_json.h"
#include "tests/app/workbench/journeys/journey_driver.h"
#include "tests/app/workbench/journeys/journey_window.h"
#include "tests/app/workbench/window_parts.h"
#include "tests/engine/data/dicom_fixtures.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialog>
#include <QDoubleSpinBox>
#include <QFile>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <filesystem>

using namespace dpmix::workbench;
using namespace dpmix::workbench::test;
using namespace dpmix::workbench::journeys;
namespace fx = dpmix::data::fixtures;

namespace {

constexpr int kJobTimeoutMs = 10 * 60 * 1000;
constexpr int kPatients = 200, kImagesPerPatient = 3, kPublicImages = 400;

// How many of `needles` occur in the bytes of any file under `path` (a file or a folder).
int occurrences(const std::vector<std::string>& needles, const QString& path) {
    QStringList files;
    if (QFileInfo(path).isDir()) {
        for (const auto& e : std::filesystem::recursive_directory_iterator(path.toStdString()))
            if (e.is_regular_file()) files << QString::fromStdString(e.path().string());
    } else if (QFile::exists(path)) {
        files << path;
    }
    std::vector<bool> found(needles.size(), false);
    for (const QString& name : files) {
        QFile f(name);
        if (!f.open(QIODevice::ReadOnly)) continue;
        const QByteArray bytes = f.readAll();
        for (std::size_t i = 0; i < needles.size(); ++i)
            found[i] = found[i] || bytes.contains(QByteArray::fromStdString(needles[i]));
    }
    return static_cast<int>(std::count(found.begin(), found.end(), true));
}

}  // namespace

class TstDicomJourney : public QObject {
    Q_OBJECT

    QTemporaryDir scratch_;
    QString work_, shots_, data_;
    std::vector<std::string> identifiers_;
    JourneyServices engine_;

    // One source dialog: the DICOM loader, the folder, the options typed field by field (the
    // preview refreshes as the user types), the preview, the tasks, OK.
    bool registerDicomSource(MainWindow& w, Journey& j, const QString& item, const QString& folder, const QString& name,
                             const QList<QPair<QString, QString>>& options,
                             const QList<QPair<QString, QStringList>>& tasks, int classCount, const QString& step,
                             const std::function<void(QDialog*)>& beforeOptions = {}) {
        auto why = [](const char* what) {
            qWarning("DICOM source dialog: %s", what);
            return false;
        };
        if (!j.pickMenu(&w, "Study", item)) return why("menu item");
        QDialog* dialog = nullptr;
        if (!QTest::qWaitFor([&] { return (dialog = w.findChild<QDialog*>("sourceDialog")) && dialog->isVisible(); },
                             5000))
            return why("no dialog");
        QTest::qWait(150);
        auto* loader = dialog->findChild<QComboBox*>("loaderBox");
        if (!loader || !j.pickCombo(loader, "DICOM folder")) return why("loader");
        auto* path = dialog->findChild<QLineEdit*>("sourcePath");
        j.click(path);
        j.type(path, folder);
        j.replaceText(dialog->findChild<QLineEdit*>("sourceName"), name);
        if (beforeOptions) beforeOptions(dialog);
        for (const auto& [key, value] : options) {
            auto* field = dialog->findChild<QLineEdit*>(QStringLiteral("option_") + key);
            if (!field) return why("option field");
            j.click(field);
            j.type(field, value);
        }
        auto* classes = dialog->findChild<QListWidget*>("taskClasses");
        QPushButton* ok = dialogButton(dialog, QDialogButtonBox::Ok);
        if (!waitFor(
                j, [&] { return classes->count() == classCount && ok->isEnabled(); }, 120000)) {
            j.shot(dialog, step + "-preview-failed");
            return why("preview");
        }
        j.shot(dialog, step + "-preview");
        auto* taskName = dialog->findChild<QLineEdit*>("taskName");
        auto* add = dialog->findChild<QPushButton*>("addTask");
        for (const auto& [task, members] : tasks) {
            j.click(taskName);
            j.type(taskName, task);
            for (const QString& c : members)
                if (!j.tick(classes, c)) return why("tick");
            j.click(add);
        }
        if (dialog->findChild<QListWidget*>("taskList")->count() != tasks.size()) return why("tasks");
        j.shot(dialog, step + "-tasks");
        j.click(ok);
        return QTest::qWaitFor([&] { return !w.findChild<QDialog*>("sourceDialog"); }, 5000);
    }

    // The survey a clinician reads before choosing labels: counts, tags and the damaged file, in
    // the preview's DICOM overview.
    static void surveyBeforeLabels(QDialog* dialog, Journey& j) {
        QString overview;
        const bool surveyed = waitFor(
            j,
            [&] {
                for (auto* label : dialog->findChildren<QLabel*>())
                    if (label->isVisible() && label->text().contains(QStringLiteral("%1 patients").arg(kPatients)))
                        overview = label->text();
                return !overview.isEmpty();
            },
            120000);
        QVERIFY2(surveyed, "no DICOM overview in the preview");
        QVERIFY2(overview.contains("case999/1.dcm") && overview.contains("1 other files skipped"),
                 qPrintable(overview));
        j.shot(dialog, "sensitive-survey");
    }

private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("dpmix-tests");
        QCoreApplication::setApplicationName("tst_dicom_journey");
        QSettings().clear();
        QCoreApplication::setAttribute(Qt::AA_DontUseNativeDialogs);
        QVERIFY(scratch_.isValid());
        work_ = qEnvironmentVariable("DPMIX_JOURNEY_WORK", scratch_.path()) + "/dicom";
        QDir(work_).removeRecursively();
        QVERIFY(QDir().mkpath(work_ + "/keys"));
        shots_ = qEnvironmentVariable("DPMIX_JOURNEY_SHOTS");
        if (!shots_.isEmpty()) QVERIFY(QDir().mkpath(shots_));
        // The pseudonym key is made on first use; the budget store starts empty.
        qputenv("DPMIX_KEY_DIR", QFile::encodeName(work_ + "/keys"));
        qputenv("DPMIX_BUDGET_STORE", QFile::encodeName(work_ + "/budget-store.sqlite"));
        data_ = work_ + "/clinic";
        identifiers_ = fx::writeChestStudy((data_ + "/scans").toStdString(), (data_ + "/labels.csv").toStdString(),
                                           kPatients, kImagesPerPatient);
        fx::writePublicDicomSet((data_ + "/atlas").toStdString(), kPublicImages);
        // What a clinic's export holds besides the images: a damaged file and a note.
        QFile whole(data_ + "/scans/case1/1.dcm");
        QVERIFY(whole.open(QIODevice::ReadOnly));
        QVERIFY(QDir().mkpath(data_ + "/scans/case999"));
        QFile cut(data_ + "/scans/case999/1.dcm");
        QVERIFY(cut.open(QIODevice::WriteOnly));
        cut.write(whole.readAll().left(300));
        cut.close();
        QFile readme(data_ + "/scans/README.txt");
        QVERIFY(readme.open(QIODevice::WriteOnly));
        readme.write("exported from the PACS\n");
        QCOMPARE(occurrences(identifiers_, data_ + "/scans"), static_cast<int>(identifiers_.size()));
    }

    void clinicianWithDicom() {
        const QString project = work_ + "/dicom-study.dpmix";
        MainWindow w(engine_.services());
        QVERIFY(showWindow(w));
        Journey j("dicom", shots_);
        ModalScript modals;

        j.note(
            "Study ▸ Add public source…: DICOM folder, the atlas, label tag BodyPartExamined with classes CHEST,HAND, "
            "patient tag none, resolution 28; tasks chest and hand; OK");
        QVERIFY(registerDicomSource(
            w, j, "Add public source", data_ + "/atlas", "atlas",
            {{"label_tag", "BodyPartExamined"}, {"classes", "CHEST,HAND"}, {"user_tag", "none"}, {"size", "28"}},
            {{"chest", {"CHEST"}}, {"hand", {"HAND"}}}, 2, "public"));

        j.note(
            "Study ▸ Set sensitive data…: DICOM folder, the hospital's scans; read the survey (patients, studies, "
            "images, tags, the damaged file); label CSV, label column Nodule, unreadable files skip, resolution 28; "
            "user-level privacy is proposed; task nodule; OK");
        QVERIFY(registerDicomSource(
            w, j, "Set sensitive data", data_ + "/scans", "clinic-scans",
            {{"labels_csv", data_ + "/labels.csv"}, {"labels", "Nodule"}, {"bad_files", "skip"}, {"size", "28"}},
            {{"nodule", {"Nodule"}}}, 1, "sensitive", [&](QDialog* d) {
                surveyBeforeLabels(d, j);
                auto* userLevel = d->findChild<QCheckBox*>("userLevel");
                QVERIFY(userLevel && userLevel->isChecked());
            }));
        dpmix::widgets::ParameterPanel* panel = parameterPanel(w);
        auto* n = panelEditor<QSpinBox>(panel, "n");
        QVERIFY(n);
        QCOMPARE(n->value(), kPatients * 8 / 10);  // the training split's patients
        j.shot(&w, "registered");

        j.note("Panel: ε 1, ρ 0.5, seed 0, batch 16, 20 steps");
        QVERIFY(fillMixturePanel(j, panel, {"1", "0.5", "0", "16", "20"}));
        QPushButton* run = buttonWithText(panel, "Run DP-MixMin");
        QVERIFY(run);
        QVERIFY(waitFor(
            j, [&] { return w.calculationsIdle() && run->isEnabled(); }, 30000));

        j.note("File ▸ Save, type the project's path, Enter");
        modals.then([&](QWidget* d) { j.answerFileDialog(d, project); });
        QVERIFY(j.pickMenu(&w, "File", "Save"));
        QVERIFY(waitFor(
            j, [&] { return w.project() != nullptr; }, 120000));
        bool patientsAreUsers = false;
        for (const auto& s : w.project()->sources)
            if (s.role == dpmix::project::SourceRole::Sensitive)
                patientsAreUsers =
                    s.userLevel && s.facts.users == kPatients && s.facts.examples == kPatients * kImagesPerPatient;
        QVERIFY(patientsAreUsers);
        j.shot(&w, "saved");

        j.note("Run DP-MixMin, OK in the spend preview");
        run = buttonWithText(panel, "Run DP-MixMin");
        QVERIFY(run);
        scrollTo(run);
        QVERIFY(waitFor(
            j, [&] { return w.calculationsIdle() && run->isEnabled(); }, 30000));
        modals.then([&](QWidget* box) {
            j.shot(box, "spend-preview");
            auto* mb = qobject_cast<QMessageBox*>(box);
            j.click(mb ? static_cast<QWidget*>(mb->button(QMessageBox::Ok)) : box);
        });
        QSignalSpy ended(stageQueue(w), &StageQueue::stageEnded);
        j.click(run);
        if (!modals.done()) j.shot(&w, "run-refused");
        QVERIFY2(modals.done(), qPrintable(logView(w)->toPlainText().right(1500)));
        QVERIFY(waitFor(
            j, [&] { return ended.count() > 0 && jobsIdle(w); }, kJobTimeoutMs));
        QVERIFY(waitFor(
            j, [&] { return w.project() && !w.project()->runs.empty(); }, 5000));

        // Every ledger entry of every run protects a patient, not an image.
        int entries = 0, userEntries = 0, finishedDpRuns = 0;
        for (const auto& r : w.project()->runs) {
            if (r.run.method == "dp-mixmin" && r.run.status == dpmix::project::RunStatus::Done) ++finishedDpRuns;
            for (const auto& stored : r.ledgers) {
                auto ledger = dpmix::privacy::ledgerFromJson(stored.ledgerJson);
                QVERIFY(static_cast<bool>(ledger));
                const auto list = ledger->entries();
                for (const auto& e : list) {
                    ++entries;
                    userEntries += e.unit == dpmix::privacy::PrivacyUnit::User;
                }
            }
        }
        QVERIFY(finishedDpRuns >= 1);
        QVERIFY(entries > 0);
        QCOMPARE(userEntries, entries);

        j.note("Summary");
        QVERIFY(j.clickTab(analysisTabs(w), "Summary"));
        j.shot(&w, "summary");
        j.note("λ by task: DP-MixMin's λ over the atlas's tasks");
        QVERIFY(j.clickTab(analysisTabs(w), "λ by task"));
        j.shot(&w, "lambda");
        j.note("Privacy ledger: unit user");
        QVERIFY(j.clickTab(analysisTabs(w), "Ledger"));
        j.shot(&w, "ledger");

        // Nothing identifying left the DICOM files: not the project, its models, nor the budget.
        QVERIFY(!w.isWindowModified());
        QVERIFY(QFileInfo(work_ + "/budget-store.sqlite").size() > 0);  // the run was charged there
        QVERIFY(QFileInfo(work_ + "/dicom-study.models").isDir());
        QCOMPARE(occurrences(identifiers_, project), 0);
        QCOMPARE(occurrences(identifiers_, work_ + "/dicom-study.models"), 0);
        QCOMPARE(occurrences(identifiers_, work_ + "/budget-store.sqlite"), 0);
        j.note(QStringLiteral("0 of %1 identifiers in the project, its models and the budget store")
                   .arg(identifiers_.size()));
        appendSummary(shots_, j);
    }
};

QTEST_MAIN(TstDicomJourney)
#include "tst_dicom_journey.moc"
