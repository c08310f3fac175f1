// Building a study in the main window without typing a path: a fixture IDX file dropped on the
// project tree opens the IDX dialog prefilled; OK registers it (one undo step in Edit ▸ Undo);
// saving creates a .dpmix through the engine whose sources match the registrations; bad input
// leaves nothing on disk.
#include "app/workbench/main_window.h"
#include "app/workbench/parameters/parameter_document.h"
#include "app/workbench/project/engine_project_store.h"
#include "app/workbench/run_actions.h"
#include "app/workbench/study/engine_source_preview.h"
#include "app/workbench/study/engine_study_creator.h"
#include "app/workbench/study/source_dialog.h"
#include "app/workbench/study/study_controller.h"
#include "app/workbench/study/task_editor.h"
#include "engine/project/project_file.h"
#include "tests/app/workbench/fake_backends.h"
#include "tests/app/workbench/isolated_settings.h"
#include "tests/app/workbench/source_fixtures.h"
#include "tests/app/workbench/window_parts.h"
#include "widgets/parameter_panel.h"

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMimeData>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QUndoStack>
#include <QUrl>
#include <QtTest>

using namespace dpmix::workbench;
using namespace dpmix::workbench::test;
using dpmix::workbench::testing::IdxFixture;

namespace {
constexpr int kLoadTimeoutMs = 10000;

// Sends a drag-enter and a drop of `paths` onto the tree row `row`, as a file manager would.
bool dropOnTree(QTreeWidget* tree, int row, const QStringList& paths) {
    QMimeData mime;
    QList<QUrl> urls;
    for (const QString& p : paths) urls << QUrl::fromLocalFile(p);
    mime.setUrls(urls);
    const QPoint at = tree->visualItemRect(tree->topLevelItem(row)).center();
    QDragEnterEvent enter(at, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(tree->viewport(), &enter);
    if (!enter.isAccepted()) return false;
    QDropEvent drop(QPointF(at), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(tree->viewport(), &drop);
    return drop.isAccepted();
}
}  // namespace

class TstStudyWindow : public QObject {
    Q_OBJECT

    EngineSourcePreviewer previewer_;
    dpmix::project::SourceSummarizer summarize_ =
        [this](const dpmix::data::SourceSpec& spec) -> dpmix::Result<dpmix::project::SourceFacts> {
        auto p = previewer_.preview(spec, {});
        if (!p) return p.error();
        return p->facts;
    };
    EngineProjectStore store_{summarize_};
    EngineStudyCreator creator_{summarize_};
    testing::EndlessStageController runs_;

    WorkbenchServices services() {
        WorkbenchServices s{&runs_, &store_, [] { return QStringLiteral("test"); }};
        s.sources = &previewer_;
        s.studies = &creator_;
        return s;
    }

    // Drops the file on row `row`, waits for the preview and presses OK.
    static SourceDialog* dropAndWait(MainWindow& w, int row, const QString& file) {
        if (!dropOnTree(projectTree(w), row, {file})) return nullptr;
        SourceDialog* d = w.study()->activeDialog();
        if (!d) return nullptr;
        if (!QTest::qWaitFor([d] { return !d->previewPending(); }, kLoadTimeoutMs)) return nullptr;
        return d;
    }

    static QByteArray fileBytes(const QString& path) {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    }

    // Registers a public IDX source with one task and a sensitive one, and saves the study.
    static bool buildAndSave(MainWindow& w, const QString& dir, IdxFixture& pub, IdxFixture& sens,
                             const QString& path) {
        if (!pub.write(dir, "pub")) return false;
        sens.labels = {0, 1, 1, 0, 2};
        if (!sens.write(dir, "sens")) return false;
        for (int row : {0, 1}) {
            SourceDialog* d = dropAndWait(w, row, row == 0 ? pub.images : sens.images);
            if (!d) return false;
            d->optionField("classes")->setText("cat,dog,bird");
            d->refreshPreview();
            if (!QTest::qWaitFor([d] { return !d->previewPending(); }, kLoadTimeoutMs)) return false;
            if (row == 0 && !d->taskEditor()->addTask("mammal", {"cat", "dog"}).isEmpty()) return false;
            QTest::mouseClick(d->okButton(), Qt::LeftButton);
        }
        const QString error = w.saveTo(path);
        if (!error.isEmpty()) qWarning("%s", qPrintable(error));
        return error.isEmpty();
    }

private Q_SLOTS:
    void initTestCase() { dpmix::workbench::test::isolateSettings("tst_study_window"); }

    void dropOpensTheIdxDialogPrefilled() {
        QTemporaryDir dir;
        IdxFixture f;
        QVERIFY(f.write(dir.path()));
        MainWindow w(services());
        QVERIFY(w.study()->addPublicAction()->isEnabled());
        QVERIFY(dropOnTree(projectTree(w), 0, {f.images}));
        SourceDialog* d = w.study()->activeDialog();
        QVERIFY(d);
        QVERIFY(d->isVisible());
        QCOMPARE(d->role(), SourceRole::Public);
        QCOMPARE(d->loaderBox()->currentData().toString(), QString("idx"));
        QCOMPARE(d->pathField()->text(), QFileInfo(f.images).absoluteFilePath());
        QCOMPARE(d->optionField("labels")->text(), QString("pets-labels-idx1-ubyte"));
        QCOMPARE(d->nameField()->text(), QFileInfo(dir.path()).fileName() + "-pets");
        QTRY_VERIFY_WITH_TIMEOUT(!d->previewPending(), kLoadTimeoutMs);
        QVERIFY(d->okButton()->isEnabled());
        QCOMPARE(d->previewWidget() != nullptr, true);

        // On "Sensitive data" the drop opens the sensitive dialog instead.
        QVERIFY(dropOnTree(projectTree(w), 1, {f.labelFile}));  // the label file means its images
        QTRY_VERIFY(w.study()->activeDialog() && w.study()->activeDialog() != d);
        QCOMPARE(w.study()->activeDialog()->role(), SourceRole::Sensitive);
        QCOMPARE(w.study()->activeDialog()->pathField()->text(), QFileInfo(f.images).absoluteFilePath());
    }

    void registrationUndoAndRedoInTheWindow() {
        QTemporaryDir dir;
        IdxFixture f;
        QVERIFY(f.write(dir.path()));
        MainWindow w(services());
        SourceDialog* d = dropAndWait(w, 0, f.images);
        QVERIFY(d);
        QTest::mouseClick(d->okButton(), Qt::LeftButton);
        QTreeWidgetItem* publicGroup = projectTree(w)->topLevelItem(0);
        QCOMPARE(publicGroup->childCount(), 1);
        QVERIFY2(publicGroup->child(0)->text(0).startsWith("(not saved) "), qPrintable(publicGroup->child(0)->text(0)));
        QVERIFY2(publicGroup->child(0)->text(0).endsWith("5 examples, 3 classes"),
                 qPrintable(publicGroup->child(0)->text(0)));
        QVERIFY(w.isWindowModified());
        QUndoStack* stack = w.document()->undoStack();
        QVERIFY(stack->undoText().startsWith("Add public source"));
        stack->undo();
        publicGroup = projectTree(w)->topLevelItem(0);
        QCOMPARE(publicGroup->child(0)->text(0), QString("(none yet)"));
        QVERIFY(w.study()->builder()->draft().empty());
        stack->redo();
        publicGroup = projectTree(w)->topLevelItem(0);
        QVERIFY(publicGroup->child(0)->text(0).contains("5 examples"));
        QCOMPARE(w.study()->builder()->draft().publicSources.size(), std::size_t(1));
    }

    void registeringSensitiveDataFillsN() {
        // The panel plans with the user's data as soon as it is registered, not with a placeholder.
        MainWindow w(services());
        const long long placeholder = w.document()->values().sensitiveCount;
        SourceRegistration reg;
        reg.source = {"clinic", "idx", "/nowhere/images.idx", {}};
        reg.facts.kind = dpmix::data::SourceKind::Images;
        reg.facts.examples = 1000;
        w.study()->builder()->registerSource(SourceRole::Sensitive, reg, {});
        QCOMPARE(w.document()->values().sensitiveCount, 800LL);  // the 80% training part
        QVERIFY(placeholder != 800);
        QCOMPARE(parameterPanel(w)->unitName(), QString("examples"));
        reg.userLevel = true;
        reg.facts.users = 50;
        w.study()->builder()->registerSource(SourceRole::Sensitive, reg, {});
        QCOMPARE(w.document()->values().sensitiveCount, 40LL);
        QCOMPARE(parameterPanel(w)->unitName(), QString("users"));
    }

    // Run on a study that is not saved yet says to save it, instead of "No project is open … create
    // one from a spec" (docs/WORKBENCH.md, "The window"); nothing is planned.
    void runOnAnUnsavedDraftSaysToSaveFirst() {
        MainWindow w(services());
        SourceRegistration reg;
        reg.source = {"clinic", "idx", "/nowhere/images.idx", {}};
        reg.facts.kind = dpmix::data::SourceKind::Images;
        reg.facts.examples = 1000;
        w.study()->builder()->registerSource(SourceRole::Sensitive, reg, {});
        QVERIFY(w.hasUnsavedDraft());
        const int planned = runs_.runs;
        w.requestRun();
        const QString shown = w.statusBar()->currentMessage();
        QVERIFY2(shown.contains("the study is not saved yet") && shown.contains("File ▸ Save"), qPrintable(shown));
        QVERIFY2(!shown.contains("No project is open"), qPrintable(shown));
        const QString refused = w.runActions()->startCompareWithBaselines();
        QCOMPARE(refused, w.unsavedDraftRefusal());
        QCOMPARE(runs_.runs, planned);  // nothing planned
    }

    void draftRowsKeepTheirMarkerAndCountsInANarrowDock() {
        // At the dock's width the tree elides a row's middle: "(not saved)" leads, the counts end
        // the row, and the tooltip holds the whole row.
        MainWindow w(services());
        QCOMPARE(projectTree(w)->textElideMode(), Qt::ElideMiddle);
        SourceRegistration reg;
        reg.source = {"clinic-chest-xray-2024-ward-seven", "idx", "/nowhere/images.idx", {}};
        reg.facts.kind = dpmix::data::SourceKind::Images;
        reg.facts.examples = 1200;
        reg.facts.labelNames = {"normal", "pneumonia"};
        reg.facts.users = 400;
        reg.userLevel = true;
        w.study()->builder()->registerSource(SourceRole::Sensitive, reg, {});
        QCOMPARE(projectTree(w)->textElideMode(), Qt::ElideMiddle);  // kept when the tree is rebuilt
        QTreeWidgetItem* row = projectTree(w)->topLevelItem(1)->child(0);
        const QString text = row->text(0);
        QVERIFY2(text.startsWith("(not saved) clinic-chest-xray-2024-ward-seven"), qPrintable(text));
        QVERIFY2(text.contains("400 users"), qPrintable(text));
        QVERIFY2(row->toolTip(0).startsWith(text + "\n"), qPrintable(row->toolTip(0)));
        QVERIFY(row->toolTip(0).contains("/nowhere/images.idx"));
    }

    void aDraftSourceIsEditedAndRemovedFromTheTree() {
        QTemporaryDir dir;
        IdxFixture f;
        QVERIFY(f.write(dir.path()));
        MainWindow w(services());
        SourceDialog* d = dropAndWait(w, 0, f.images);
        QVERIFY(d);
        const std::string first = d->registration().source.name;
        QTest::mouseClick(d->okButton(), Qt::LeftButton);
        QTreeWidgetItem* row = projectTree(w)->topLevelItem(0)->child(0);

        // Double-click: the dialog reopens on the registered source; a new name replaces it in place.
        Q_EMIT projectTree(w)->itemDoubleClicked(row, 0);
        d = w.study()->activeDialog();
        QVERIFY(d && d->isVisible());
        QCOMPARE(d->pathField()->text(), QFileInfo(f.images).absoluteFilePath());
        QTRY_VERIFY_WITH_TIMEOUT(!d->previewPending(), kLoadTimeoutMs);
        QVERIFY(d->okButton()->isEnabled());  // its own name is not "taken"
        d->nameField()->clear();
        QTest::keyClicks(d->nameField(), "renamed");
        QTest::mouseClick(d->okButton(), Qt::LeftButton);
        const auto& sources = w.study()->builder()->draft().publicSources;
        QCOMPARE(sources.size(), std::size_t(1));
        QCOMPARE(sources[0].source.name, std::string("renamed"));
        w.document()->undoStack()->undo();
        QCOMPARE(w.study()->builder()->draft().publicSources.at(0).source.name, first);

        // Study ▸ Remove selected source, undoable.
        projectTree(w)->setCurrentItem(projectTree(w)->topLevelItem(0)->child(0));
        w.study()->removeSelectedAction()->trigger();
        QVERIFY(w.study()->builder()->draft().publicSources.empty());
        QCOMPARE(projectTree(w)->topLevelItem(0)->child(0)->text(0), QString("(none yet)"));
        w.document()->undoStack()->undo();
        QCOMPARE(w.study()->builder()->draft().publicSources.size(), std::size_t(1));
        // A group row is not a source: nothing is removed.
        projectTree(w)->setCurrentItem(projectTree(w)->topLevelItem(0));
        w.study()->removeSelectedAction()->trigger();
        QCOMPARE(w.study()->builder()->draft().publicSources.size(), std::size_t(1));
    }

    void savingCreatesAProjectWhoseSourcesMatch() {
        QTemporaryDir dir;
        IdxFixture pub, sens;
        QVERIFY(pub.write(dir.path(), "pub"));
        sens.labels = {0, 1, 1, 0, 2};
        QVERIFY(sens.write(dir.path(), "sens"));
        MainWindow w(services());

        SourceDialog* d = dropAndWait(w, 0, pub.images);
        QVERIFY(d);
        d->optionField("classes")->setText("cat,dog,bird");
        d->refreshPreview();
        QTRY_VERIFY_WITH_TIMEOUT(!d->previewPending(), kLoadTimeoutMs);
        QVERIFY(d->taskEditor()->addTask("mammal", {"cat", "dog"}).isEmpty());
        QTest::mouseClick(d->okButton(), Qt::LeftButton);
        d = dropAndWait(w, 1, sens.images);
        QVERIFY(d);
        d->optionField("classes")->setText("cat,dog,bird");
        d->refreshPreview();
        QTRY_VERIFY_WITH_TIMEOUT(!d->previewPending(), kLoadTimeoutMs);
        QTest::mouseClick(d->okButton(), Qt::LeftButton);
        const StudyDraft draft = w.study()->builder()->draft();
        QVERIFY(draft.sensitive);

        const QString path = dir.path() + "/study.dpmix";
        const QString error = w.saveTo(path);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(w.currentFile(), QFileInfo(path).absoluteFilePath());
        QVERIFY(!w.study()->isEditable());  // a project's sources are fixed

        auto project = dpmix::project::ProjectFile::open(path.toStdString());
        QVERIFY(project.ok());
        auto sources = project->sources();
        QVERIFY(sources.ok());
        QCOMPARE(sources->size(), std::size_t(2));
        const auto& p = sources->at(0);
        QCOMPARE(dpmix::project::nameOf(p.role), std::string("public"));
        QCOMPARE(p.name, draft.publicSources[0].source.name);
        QCOMPARE(p.loader, std::string("idx"));
        QCOMPARE(p.facts.examples, 5LL);
        QCOMPARE(QString::fromStdString(p.facts.contentHash), pub.hash());
        const auto& s = sources->at(1);
        QCOMPARE(dpmix::project::nameOf(s.role), std::string("sensitive"));
        QCOMPARE(QString::fromStdString(s.facts.contentHash), sens.hash());
        QCOMPARE(project->spec().publicTasks.size(), std::size_t(1));
        QCOMPARE(project->spec().publicTasks[0].name, std::string("mammal"));
        QCOMPARE(project->spec().privacy.rho, 0.1);  // the panel's default
        // The window shows the project's sources now.
        QVERIFY(!projectTree(w)->topLevelItem(0)->child(0)->text(0).contains("not saved"));
        // With a project open, a drop registers nothing and says why.
        QVERIFY(!w.study()->addPublicAction()->isEnabled());
        QVERIFY(dropOnTree(projectTree(w), 0, {pub.images}));
        QVERIFY(!w.study()->activeDialog() || !w.study()->activeDialog()->isVisible());
        QVERIFY(w.statusBar()->currentMessage().contains("Edit sources and tasks"));
    }

    void aRunlessProjectStaysEditableAndSaveReplacesIt() {
        QTemporaryDir dir;
        IdxFixture pub, sens;
        MainWindow w(services());
        const QString path = dir.path() + "/study.dpmix";
        QVERIFY(buildAndSave(w, dir.path(), pub, sens, path));
        auto* edit = w.findChild<QAction*>("editStudySources");
        QVERIFY(edit && edit->isEnabled());
        w.document()->edit(dpmix::widgets::ParameterField::Epsilon, 3.0);

        QCOMPARE(w.editStudySources(), QString());
        QVERIFY(w.hasUnsavedDraft() && w.study()->isEditable() && w.study()->addPublicAction()->isEnabled());
        QVERIFY2(w.windowTitle().contains("study.dpmix (editing sources and tasks)"), qPrintable(w.windowTitle()));
        QVERIFY(w.isWindowModified());
        const StudyDraft draft = w.study()->builder()->draft();
        QCOMPARE(draft.publicSources.size(), std::size_t(1));
        QVERIFY(draft.sensitive);
        QCOMPARE(draft.publicTasks.size(), std::size_t(1));
        QCOMPARE(draft.publicTasks[0].source, draft.publicSources[0].source.name);
        QCOMPARE(w.document()->values().epsilon, 3.0);  // the panel keeps its values
        // An edit of the tasks (undoable), then Save: the project is replaced in place.
        w.study()->builder()->setTasks(SourceRole::Public, {{"pet", {"cat"}, draft.publicSources[0].source.name}});
        const QString error = w.saveTo(path);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(w.currentFile(), QFileInfo(path).absoluteFilePath());
        QVERIFY(!w.hasUnsavedDraft());
        auto project = dpmix::project::ProjectFile::open(path.toStdString()).value();
        QCOMPARE(project.spec().publicTasks.size(), std::size_t(1));
        QCOMPARE(project.spec().publicTasks[0].name, std::string("pet"));
        QCOMPARE(project.spec().privacy.epsilons, std::vector<double>{3.0});
        QCOMPARE(QString::fromStdString(project.sources().value().at(0).facts.contentHash), pub.hash());
    }

    void aProjectWithRunsIsDuplicatedNeverEdited() {
        QTemporaryDir dir;
        IdxFixture pub, sens;
        MainWindow w(services());
        const QString path = dir.path() + "/study.dpmix";
        QVERIFY(buildAndSave(w, dir.path(), pub, sens, path));
        {
            auto project = dpmix::project::ProjectFile::open(path.toStdString()).value();
            QVERIFY(project.addRun({"proxy", "", std::nullopt, 0, "{}"}).ok());
        }
        w.refreshProject();
        QVERIFY(!w.findChild<QAction*>("editStudySources")->isEnabled());
        // Disabled with its reason where a menu shows it: on hover and in the status bar (docs/WORKBENCH.md, "The
        // window").
        QVERIFY(w.findChild<QAction*>("editStudySources")->statusTip().contains("has runs"));
        QVERIFY(w.findChild<QAction*>("editStudySources")->toolTip().contains("Duplicate study with changes"));
        auto* studyMenu = qobject_cast<QMenu*>(w.findChild<QAction*>("editStudySources")->parent());
        QVERIFY(studyMenu && studyMenu->toolTipsVisible());
        QVERIFY(w.findChild<QAction*>("duplicateStudy")->isEnabled());
        QVERIFY(w.editStudySources().contains("Duplicate study with changes"));
        QVERIFY(!w.hasUnsavedDraft());
        const QByteArray before = fileBytes(path);

        QCOMPARE(w.duplicateStudy(), QString());
        QVERIFY(w.hasUnsavedDraft() && w.windowTitle().startsWith("Untitled"));
        QVERIFY(w.isWindowModified());  // not saved anywhere yet: closing asks
        // The original is never overwritten, even by name.
        QVERIFY(w.saveTo(path).contains("never overwritten"));
        QCOMPARE(fileBytes(path), before);
        const QString copy = dir.path() + "/copy.dpmix";
        const QString error = w.saveTo(copy);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        auto duplicate = dpmix::project::ProjectFile::open(copy.toStdString()).value();
        QVERIFY(duplicate.runs().value().empty());
        QCOMPARE(QString::fromStdString(duplicate.sources().value().at(1).facts.contentHash), sens.hash());
        QCOMPARE(dpmix::project::ProjectFile::open(path.toStdString()).value().runs().value().size(), std::size_t(1));
        // And the engine refuses to replace a project with runs even when asked to.
        EngineStudyCreator creator(summarize_);
        auto refused = creator.create(path, duplicate.spec(), true);
        QVERIFY(!refused.ok());
        QVERIFY2(refused.error().message.find("1 run(s)") != std::string::npos, refused.error().message.c_str());
        QCOMPARE(fileBytes(path), before);
    }

    void aSecondPublicSourceOfAnotherSizeNeedsItsRule() {
        // Several public sources (docs/METHODS.md, "Several public sources"), in the window: a
        // second public source of 8×6 images beside 4×3 sensitive ones is refused at Save, naming
        // the rule, with nothing on disk; choosing "resize" in its dialog makes the study.
        QTemporaryDir dir;
        IdxFixture pub, sens;
        QVERIFY(pub.write(dir.path(), "pub"));
        QVERIFY(sens.write(dir.path(), "sens"));
        const QString big = dir.path() + "/big-images-idx3-ubyte";
        QVERIFY(testing::writeIdxImages(big, 5, 8, 6, testing::fixturePixels(5, 8, 6)));
        QVERIFY(testing::writeIdxLabels(dir.path() + "/big-labels-idx1-ubyte", {0, 1, 0, 1, 1}));
        MainWindow w(services());
        auto registerDrop = [&](int row, const QString& file, const QString& classes) {
            SourceDialog* d = dropAndWait(w, row, file);
            if (!d) return false;
            d->optionField("classes")->setText(classes);
            d->refreshPreview();
            if (!QTest::qWaitFor([d] { return !d->previewPending(); }, kLoadTimeoutMs)) return false;
            QTest::mouseClick(d->okButton(), Qt::LeftButton);
            return true;
        };
        QVERIFY(registerDrop(0, pub.images, "cat,dog,bird"));
        QVERIFY(registerDrop(0, big, "left,right"));
        QVERIFY(registerDrop(1, sens.images, "cat,dog,bird"));
        const StudyDraft draft = w.study()->builder()->draft();
        QCOMPARE(draft.publicSources.size(), std::size_t(2));
        const std::string bigName = draft.publicSources[1].source.name;

        const QString path = dir.path() + "/two.dpmix";
        QString error = w.saveTo(path);
        QVERIFY2(error.contains("its images are 1x8x6 but the sensitive images are 1x4x3") &&
                     error.contains("\"resize\": \"bilinear\""),
                 qPrintable(error));
        QVERIFY(!QFileInfo::exists(path));

        SourceDialog* d = w.study()->editSource(SourceRole::Public, bigName);
        QVERIFY(d);
        QTRY_VERIFY_WITH_TIMEOUT(!d->previewPending(), kLoadTimeoutMs);
        // The dialog knows the sensitive images' shape and says what to choose.
        QVERIFY2(d->fitAdvice().contains("These images are 1×8×6, the sensitive images 1×4×3: choose Size: resize"),
                 qPrintable(d->fitAdvice()));
        d->resizeBox()->setCurrentIndex(d->resizeBox()->findData(QStringLiteral("bilinear")));
        QVERIFY(d->fitAdvice().isEmpty());
        if (const QString out = qEnvironmentVariable("DPMIX_SCREENSHOT_DIR"); !out.isEmpty())
            QVERIFY(QDir().mkpath(out) && d->grab().save(out + "/source-dialog-resize-rule.png"));
        QTest::mouseClick(d->okButton(), Qt::LeftButton);
        error = w.saveTo(path);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        auto project = dpmix::project::ProjectFile::open(path.toStdString());
        QVERIFY(project.ok());
        QCOMPARE(project->spec().publicSources.size(), std::size_t(2));
        QCOMPARE(project->spec().publicSources[1].resize, std::string("bilinear"));
        // k = 3 (pub's own classes) + 2 (big's): the tree says so.
        QVERIFY2(projectTree(w)->topLevelItem(0)->text(0).contains("k = 5"),
                 qPrintable(projectTree(w)->topLevelItem(0)->text(0)));
    }

    void badInputChangesNothingOnDisk() {
        QTemporaryDir dir;
        IdxFixture pub, sens;
        QVERIFY(pub.write(dir.path(), "pub"));
        QVERIFY(sens.write(dir.path(), "sens"));
        MainWindow w(services());
        SourceDialog* d = dropAndWait(w, 0, pub.images);
        QVERIFY(d);
        QTest::mouseClick(d->okButton(), Qt::LeftButton);

        const QString path = dir.path() + "/study.dpmix";
        QString error = w.saveTo(path);
        QVERIFY2(error.contains("no sensitive data set"), qPrintable(error));
        QVERIFY(!QFileInfo::exists(path));

        d = dropAndWait(w, 1, sens.images);
        QVERIFY(d);
        // A sensitive source declares its label set (never read from the data).
        QVERIFY(d->optionField("classes"));
        d->optionField("classes")->clear();
        QTest::keyClicks(d->optionField("classes"), sens.classes.join(","));
        QTRY_VERIFY(!d->previewPending() && d->canAccept());
        QTest::mouseClick(d->okButton(), Qt::LeftButton);
        const QStringList before = QDir(dir.path()).entryList(QDir::Files);
        // The sensitive images change into a broken file after registration: the save re-loads.
        QVERIFY(testing::writeIdxImages(sens.images, 5, 4, 3, sens.pixels.left(7)));
        error = w.saveTo(path);
        QVERIFY2(error.contains("sens-images-idx3-ubyte"), qPrintable(error));
        QVERIFY(!QFileInfo::exists(path));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files), before);  // no temporary left behind

        // An existing file is never overwritten.
        QVERIFY(testing::writeIdxImages(sens.images, 5, 4, 3, sens.pixels));
        QVERIFY(testing::writeFile(path, "keep"));
        error = w.saveTo(path);
        QVERIFY2(error.contains("exists"), qPrintable(error));
        QFile kept(path);
        QVERIFY(kept.open(QIODevice::ReadOnly));
        QCOMPARE(kept.readAll(), QByteArray("keep"));
        QVERIFY(w.currentFile().isEmpty());
        QVERIFY(!w.study()->builder()->draft().empty());  // the draft survives a failed save
    }
};

QTEST_MAIN(TstStudyWindow)
#include "tst_study_window.moc"
