#pragma once
// A new study being put together in the window: the registered public sources, the sensitive
// data set and the label tasks. Every registration is one undoable command on the window's undo
// stack (the same stack as parameter edits, so Edit ▸ Undo walks back through both). Saving
// turns the draft plus the panel's parameters into a project spec (projectSpec) that a
// StudyCreator makes into a .dpmix.
#include "engine/core/result.h"
#include "engine/project/project_records.h"
#include "engine/project/project_spec.h"
#include "widgets/run_parameters.h"

#include <QObject>
#include <QString>
#include <QUndoCommand>

#include <optional>
#include <vector>

class QUndoStack;

namespace dpmix::workbench {

using project::SourceRole;  // engine/project/source_role.h

/// One registered source: where it is, how it is read, and what loading it once showed.
struct SourceRegistration {
    data::SourceSpec source;     // path absolute; path-valued options as written (next to the path)
    bool userLevel = false;      // sensitive only: the privacy unit is the user
    project::SourceFacts facts;  // from the dialog's preview (the project re-loads on save)
    std::string resize, colour;  // public images only: how they are fitted to the study's shape
};

struct StudyDraft {
    std::vector<SourceRegistration> publicSources;
    std::optional<SourceRegistration> sensitive;
    std::vector<project::LabelTask> publicTasks;  // each names its public source (LabelTask::source)
    std::vector<project::LabelTask> sensitiveTasks;
    // A draft made from a project (Edit sources and tasks / Duplicate study): that project's spec.
    // What the window does not edit — the budget cap, PSG, stage details such as the fine-tuning
    // mechanism, the description — is kept from it.
    std::optional<project::ProjectSpec> basis;

    bool empty() const { return publicSources.empty() && !sensitive && publicTasks.empty() && sensitiveTasks.empty(); }
    /// Names of every registered source (they must be unique in a project).
    std::vector<std::string> sourceNames() const;
    const std::vector<project::LabelTask>& tasks(SourceRole role) const;
    /// k as the project will count it: per public source its tasks, else its labels, else one.
    long long mixtureComponents() const;
    /// The tasks over one public source (its components), or the sensitive tasks.
    std::vector<project::LabelTask> tasksOf(SourceRole role, const std::string& sourceName) const;
};

class StudyBuilder : public QObject {
    Q_OBJECT

public:
    /// `undo` is not owned (the window's stack).
    explicit StudyBuilder(QUndoStack* undo, QObject* parent = nullptr);

    const StudyDraft& draft() const { return draft_; }
    QUndoStack* undoStack() const { return undo_; }

    /// Undoable. Public: adds the source, or replaces (in place) the public source named
    /// `replaces` (default: the registration's own name), so an edit may rename it; `tasks`
    /// become that source's tasks (the other public sources keep theirs). Sensitive: sets (or
    /// replaces) the sensitive data set and its tasks.
    void registerSource(SourceRole role, const SourceRegistration& registration,
                        const std::vector<project::LabelTask>& tasks, const std::string& replaces = {});
    /// Undoable, with the source's tasks. Returns false when no public source has that name.
    bool removePublicSource(const std::string& name);
    /// Undoable. Returns false when there is no sensitive data set.
    bool removeSensitive();
    /// The registered source of that role and name, or null.
    const SourceRegistration* find(SourceRole role, const std::string& name) const;
    /// Undoable. Replaces the label tasks of one role.
    void setTasks(SourceRole role, const std::vector<project::LabelTask>& tasks);
    /// Not undoable (File ▸ New / Open start from nothing and clear the undo history themselves).
    void clear();

    /// Applies a whole draft without the undo stack (used by the commands).
    void apply(const StudyDraft& draft);

    /// The study as a project spec: the draft's sources and tasks, the panel's ε, δ, ρ, seeds,
    /// composition and mixture stage; other stages keep the spec defaults. Errors say what is
    /// missing ("no sensitive data set: use Study ▸ Set sensitive data…") or which value is wrong.
    Result<project::ProjectSpec> projectSpec(const QString& name, const widgets::RunParameters& parameters) const;

Q_SIGNALS:
    void changed();

private:
    void push(const QString& text, StudyDraft after);

    QUndoStack* undo_;
    StudyDraft draft_;
};

/// A project's study as a draft: its sources (stored paths and options, as resolved when the
/// project was created), facts, fitting rules and tasks (public tasks name their source), with
/// the project's spec as its basis.
StudyDraft draftFromProject(const project::ProjectSpec& spec, const std::vector<project::SourceRecord>& sources);

/// One change of the draft, kept as the whole draft before and after (drafts are small: a few
/// sources and tasks), so undo restores exactly what was there.
class StudyDraftCommand : public QUndoCommand {
public:
    StudyDraftCommand(StudyBuilder& builder, StudyDraft before, StudyDraft after, const QString& text);
    void undo() override;
    void redo() override;

private:
    StudyBuilder& builder_;
    StudyDraft before_, after_;
};

/// The seam that turns a study spec into a .dpmix file (engine_study_creator.h over
/// engine/project; tests use fakes).
class StudyCreator {
public:
    virtual ~StudyCreator() = default;
    /// Validates the spec, loads and hashes every source and creates `path`. On any error
    /// nothing is written (and an existing file is left as it was). An existing `path` is an
    /// error, unless `replaceRunless` and it is a writable project without any run (a study is
    /// editable until its first run). Returns the project's path.
    virtual Result<QString> create(const QString& path, const project::ProjectSpec& spec,
                                   bool replaceRunless = false) = 0;
};

}  // namespace dpmix::workbench
