// The main window's saving, and its two ways from a saved project back to a study draft:
// "Edit sources and tasks…" while the project has no run (Save then replaces it: nothing was
// run, so nothing is lost), and "Duplicate study with changes…" for any project (Save asks for a
// new name; the original is never touched). Both keep the panel's settings and the project's
// spec as the draft's basis, so its budget cap and other settings carry over.
#include "app/workbench/main_window.h"

#include "app/workbench/parameters/parameter_document.h"
#include "app/workbench/project/project_paths.h"
#include "app/workbench/project/project_store.h"
#include "app/workbench/runs/run_controller.h"
#include "app/workbench/study/study_controller.h"
#include "widgets/parameter_panel.h"

#include <QAction>
#include <QApplication>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QStatusBar>
#include <QUndoStack>

namespace dpmix::workbench {

namespace {
const QString kSaveFilter = QStringLiteral("dpmix project (*.dpmix)");
}  // namespace

void MainWindow::addStudyActions(QMenu* study) {
    // A disabled entry says why on hover and in the status bar, not only in a tooltip menus hide.
    study->setToolTipsVisible(true);
    study->addSeparator();
    editStudyAction_ = study->addAction(tr("&Edit sources and tasks…"), this, [this] { editStudySources(); });
    editStudyAction_->setObjectName("editStudySources");
    editStudyAction_->setStatusTip(tr("Change the sources and tasks of this project: possible until its first run"));
    duplicateStudyAction_ = study->addAction(tr("&Duplicate study with changes…"), this, [this] { duplicateStudy(); });
    duplicateStudyAction_->setObjectName("duplicateStudy");
    duplicateStudyAction_->setStatusTip(
        tr("Start a new study from this one: the same sources, tasks and settings, "
           "saved under a new name (this project is not changed)"));
    updateStudyActions();
}

void MainWindow::updateStudyActions() {
    if (!editStudyAction_) return;
    const bool writable = project_ && !readOnly_ && !project_->trust.release;
    const bool runless = project_ && project_->runs.empty();
    editStudyAction_->setEnabled(writable && runless);
    const QString why = !project_   ? tr("Open a project first")
                        : !writable ? tr("The project is open read-only")
                        : runless   ? tr("Change its sources and tasks; Save replaces the project")
                                    : tr("The project has runs, so its sources and tasks are fixed: use "
                                           "Duplicate study with changes…");
    editStudyAction_->setToolTip(why);
    editStudyAction_->setStatusTip(why);
    duplicateStudyAction_->setEnabled(project_.has_value());
}

QString MainWindow::editStudySources() {
    if (!project_) return tr("No project is open.");
    if (readOnly_ || project_->trust.release) return tr("The project is open read-only: its study cannot be edited.");
    if (!project_->runs.empty())
        return tr("The project has %1 run(s), so its sources and tasks are fixed: use Study ▸ Duplicate study with "
                  "changes… to start a new study from it.")
            .arg(project_->runs.size());
    const QString file = currentFile_;
    turnProjectIntoDraft(file);
    statusBar()->showMessage(tr("Editing the sources and tasks of %1: Save replaces the project").arg(file), 8000);
    return {};
}

QString MainWindow::duplicateStudy() {
    if (!project_) return tr("No project is open.");
    const QString from = currentFile_;
    turnProjectIntoDraft({});
    statusBar()->showMessage(tr("A new study from %1: change what you need, then Save it under a new name").arg(from),
                             8000);
    return {};
}

void MainWindow::turnProjectIntoDraft(const QString& replaces) {
    const StudyDraft draft = draftFromProject(project_->spec, project_->sources);
    const widgets::RunParameters values = document_->values();
    currentFile_.clear();
    draftReplaces_ = replaces;
    project_.reset();
    readOnly_ = false;
    services_.runs->setProject({}, false);
    study_->setEditable(true);
    document_->reset(values);         // the panel keeps what it showed
    study_->builder()->apply(draft);  // the tree shows the draft's rows (not saved)
    populateTree();
    rebuildResultTabs();
    updateBudgetMeter();
    updateTrustBanner();
    applyReadOnly();
    parameters_->setMixtureShown(!draft.publicSources.empty());
    updateTitle();
}

bool MainWindow::hasUnsavedDraft() const { return currentFile_.isEmpty() && !study_->builder()->draft().empty(); }

QString MainWindow::unsavedDraftRefusal() const {
    if (!hasUnsavedDraft()) return {};
    return tr(
        "Not started: the study is not saved yet. File ▸ Save (Ctrl+S) writes its project file, which every "
        "run records its results and privacy ledger into; then Run again.");
}

QString MainWindow::saveTo(const QString& path) {
    if (readOnly_) {
        const QString message = tr("%1 is open read-only: nothing was saved.").arg(currentFile_);
        statusBar()->showMessage(message, 10000);
        return message;
    }
    if (hasUnsavedDraft()) {
        // A new or edited study: the engine loads and hashes every registered source once more and
        // creates the .dpmix from them and the panel's parameters (nothing is written on an error).
        const bool replaces = !draftReplaces_.isEmpty() &&
                              QFileInfo(path).absoluteFilePath() == QFileInfo(draftReplaces_).absoluteFilePath();
        QApplication::setOverrideCursor(Qt::WaitCursor);
        auto created = study_->createProject(path, document_->values(), replaces);
        QApplication::restoreOverrideCursor();
        if (!created) {
            const QString message = QString::fromStdString(created.error().message);
            statusBar()->showMessage(message, 15000);
            return message;
        }
        draftReplaces_.clear();
        return openFile(*created);
    }
    if (auto error = services_.projects->save(path, document_->values())) {
        const QString message = QString::fromStdString(error->message);
        statusBar()->showMessage(message, 10000);
        return message;
    }
    currentFile_ = QFileInfo(path).absoluteFilePath();
    document_->undoStack()->setClean();
    rememberRecent(path);
    updateTitle();
    statusBar()->showMessage(tr("Saved %1").arg(path), 3000);
    return {};
}

bool MainWindow::saveWithDialog(bool forceDialog) {
    // An edited project saves back to its file; a new or duplicated study asks for a name.
    QString path = currentFile_.isEmpty() ? draftReplaces_ : currentFile_;
    if (forceDialog || path.isEmpty()) {
        const StudyDraft& draft = study_->builder()->draft();
        const std::string name = draft.sensitive ? draft.sensitive->source.name : draft.basis ? draft.basis->name : "";
        const QString start =
            path.isEmpty() ? proposedProjectPath(lastSaveTyped_, QString::fromStdString(name), recentFiles()) : path;
        path = QFileDialog::getSaveFileName(this, tr("Save project"), start, kSaveFilter);
        if (path.isEmpty()) return false;
        if (QFileInfo(path).suffix().isEmpty()) path += QStringLiteral(".dpmix");
    }
    if (QString e = saveTo(path); !e.isEmpty()) {
        if (currentFile_.isEmpty()) lastSaveTyped_ = path;  // proposed again by the next Save
        QMessageBox::warning(this, tr("Save project"), e);
        return false;
    }
    lastSaveTyped_.clear();
    return true;
}

bool MainWindow::maybeSave() {
    // Read-only: nothing may be saved. A draft made from a project has a clean undo stack but is
    // not saved anywhere yet.
    if (readOnly_ || (document_->undoStack()->isClean() && !hasUnsavedDraft())) return true;
    const auto answer =
        QMessageBox::warning(this, tr("Unsaved changes"),
                             hasUnsavedDraft() ? tr("The study is not saved. Save it first?")
                                               : tr("The parameters have unsaved changes. Save them first?"),
                             QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
    if (answer == QMessageBox::Save) return saveWithDialog(false);
    return answer == QMessageBox::Discard;
}

}  // namespace dpmix::workbench
