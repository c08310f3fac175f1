#pragma once
// The run parameters being edited, with undo: every change goes through a SetParameterCommand
// on the QUndoStack, and consecutive edits of the same field merge into one undo step (typing
// "2.5" is one step, not three). The stack's clean state is "saved".
#include "widgets/run_parameters.h"

#include <QObject>
#include <QUndoCommand>

class QUndoStack;

namespace dpmix::workbench {

class ParameterDocument : public QObject {
    Q_OBJECT

public:
    explicit ParameterDocument(QObject* parent = nullptr);

    const widgets::RunParameters& values() const { return values_; }
    QUndoStack* undoStack() const { return stack_; }

    /// A user edit: pushes an undoable command (nothing happens if the value is unchanged).
    void edit(widgets::ParameterField field, const QVariant& value);
    /// Replaces everything (New / Open): clears the undo history and marks the document clean.
    void reset(const widgets::RunParameters& values);

    /// Applies a value without touching the undo stack (used by the commands).
    void apply(widgets::ParameterField field, const QVariant& value);

Q_SIGNALS:
    void valuesChanged();

private:
    widgets::RunParameters values_;
    QUndoStack* stack_;
};

/// One parameter change. Its id is per field, so QUndoStack offers a following edit of the
/// same field to mergeWith(); an edit that returns the field to its old value becomes obsolete.
class SetParameterCommand : public QUndoCommand {
public:
    SetParameterCommand(ParameterDocument& document, widgets::ParameterField field, QVariant before, QVariant after);

    void undo() override;
    void redo() override;
    int id() const override;
    bool mergeWith(const QUndoCommand* other) override;

    widgets::ParameterField field() const { return field_; }

private:
    ParameterDocument& document_;
    widgets::ParameterField field_;
    QVariant before_;
    QVariant after_;
};

}  // namespace dpmix::workbench
