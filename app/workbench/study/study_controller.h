#pragma once
// The window's side of building a study: the Study menu's actions, the registration dialogs
// (opened window-modal, not blocking, so tests can drive them), drops of files and folders on
// the project tree (the loader guessed from the content), the draft's rows in the tree, and
// saving the draft as a .dpmix through a StudyCreator.
#include "app/workbench/study/source_dialog.h"
#include "app/workbench/study/study_builder.h"

#include <QObject>
#include <QPointer>

class QAction;
class QTreeWidget;
class QTreeWidgetItem;
class QUndoStack;
class QWidget;

namespace dpmix::workbench {

class SourcePreviewer;

class StudyController : public QObject {
    Q_OBJECT

public:
    /// `tree` receives drops; `previewer` and `creator` may be null (the actions then say that
    /// the data layer is not available); none is owned.
    StudyController(QTreeWidget* tree, QUndoStack* undo, const SourcePreviewer* previewer, StudyCreator* creator,
                    QWidget* dialogParent);

    StudyBuilder* builder() const { return builder_; }
    QAction* addPublicAction() const { return addPublic_; }
    QAction* setSensitiveAction() const { return setSensitive_; }
    /// Removes the draft source selected in the tree (undoable).
    QAction* removeSelectedAction() const { return removeSelected_; }

    /// Registration happens in a new study only (a project's sources are fixed when it is
    /// created); the window turns this off while a project is open.
    void setEditable(bool editable);
    bool isEditable() const { return editable_; }
    /// Forgets the draft without the undo stack (File ▸ New / Open).
    void clear() { builder_->clear(); }

    /// Opens the registration dialog (window-modal, returns at once); prefilled when `source`
    /// has a loader or path. Accepting it pushes the registration on the undo stack; with
    /// `replaces`, it replaces that public source in place.
    SourceDialog* openSourceDialog(SourceRole role, const data::SourceSpec& source = {}, const QString& note = {},
                                   bool userLevel = false, const std::string& replaces = {});
    SourceDialog* activeDialog() const { return dialog_; }
    /// Reopens the dialog on a registered draft source (double-click on its tree row); accepting
    /// replaces it in place (it may be renamed). Null when there is no such source.
    SourceDialog* editSource(SourceRole role, const std::string& name);
    /// Removes a draft source of a tree row (undoable); false when the row is not one.
    bool removeSourceRow(QTreeWidgetItem* item);

    /// A drop of local paths at `position` (viewport coordinates): on "Sensitive data" it sets
    /// the sensitive data set, anywhere else it adds a public source. Returns the message shown
    /// when nothing can be opened (empty when a dialog opened).
    QString handleDrop(const QStringList& paths, const QPoint& position);

    /// Adds the draft's sources and tasks under the tree's group rows.
    void addDraftRows(QTreeWidgetItem* publicGroup, QTreeWidgetItem* sensitiveGroup, QTreeWidgetItem* taskGroup) const;

    /// The draft + the panel's parameters as `path` (.dpmix). Returns the created path. With
    /// `replaceRunless`, an existing project at `path` without runs is replaced.
    Result<QString> createProject(const QString& path, const widgets::RunParameters& parameters,
                                  bool replaceRunless = false);

Q_SIGNALS:
    /// The draft changed (registration, undo, redo, clear).
    void draftChanged();
    /// A message for the status bar.
    void message(const QString& text);

private:
    QTreeWidget* tree_;
    const SourcePreviewer* previewer_;
    StudyCreator* creator_;
    QWidget* dialogParent_;
    StudyBuilder* builder_;
    QAction* addPublic_;
    QAction* setSensitive_;
    QAction* removeSelected_;
    QPointer<SourceDialog> dialog_;
    bool editable_ = true;
};

}  // namespace dpmix::workbench
