#include "app/workbench/parameters/parameter_document.h"

#include <QUndoStack>

namespace dpmix::workbench {

using widgets::ParameterField;

ParameterDocument::ParameterDocument(QObject* parent) : QObject(parent), stack_(new QUndoStack(this)) {}

void ParameterDocument::edit(ParameterField field, const QVariant& value) {
    widgets::RunParameters probe = values_;
    if (!widgets::setFieldValue(probe, field, value) || probe == values_) return;
    stack_->push(new SetParameterCommand(*this, field, widgets::fieldValue(values_, field), value));
}

void ParameterDocument::reset(const widgets::RunParameters& values) {
    stack_->clear();
    values_ = values;
    stack_->setClean();
    Q_EMIT valuesChanged();
}

void ParameterDocument::apply(ParameterField field, const QVariant& value) {
    widgets::setFieldValue(values_, field, value);
    Q_EMIT valuesChanged();
}

SetParameterCommand::SetParameterCommand(ParameterDocument& document, ParameterField field, QVariant before,
                                         QVariant after)
    : document_(document), field_(field), before_(std::move(before)), after_(std::move(after)) {
    setText(QObject::tr("change %1").arg(widgets::fieldLabel(field)));
}

void SetParameterCommand::undo() { document_.apply(field_, before_); }
void SetParameterCommand::redo() { document_.apply(field_, after_); }

int SetParameterCommand::id() const { return 1000 + static_cast<int>(field_); }

bool SetParameterCommand::mergeWith(const QUndoCommand* other) {
    const auto* next = dynamic_cast<const SetParameterCommand*>(other);
    if (!next || next->field_ != field_ || &next->document_ != &document_) return false;
    after_ = next->after_;
    // Typing a value and then deleting it again leaves nothing to undo.
    widgets::RunParameters a, b;
    widgets::setFieldValue(a, field_, before_);
    widgets::setFieldValue(b, field_, after_);
    setObsolete(a == b);
    return true;
}

}  // namespace dpmix::workbench
