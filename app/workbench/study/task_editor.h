#pragma once
// Label tasks for one role (public or sensitive), edited next to the source's preview: a task is
// a name and the classes whose union is its positive label (e.g. footwear = Sandal | Sneaker |
// Ankle boot). The classes to pick from are the previewed source's label names.
#include "engine/project/project_spec.h"

#include <QWidget>

#include <vector>

class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;

namespace dpmix::workbench {

class TaskEditor : public QWidget {
    Q_OBJECT

public:
    explicit TaskEditor(QWidget* parent = nullptr);

    void setClassNames(const QStringList& classes);
    void setTasks(const std::vector<project::LabelTask>& tasks);
    const std::vector<project::LabelTask>& tasks() const { return tasks_; }

    /// Adds a task from the name field and the checked classes; returns the problem, if any
    /// ("task name is empty", "a task named X exists", "tick at least one class").
    QString addTask(const QString& name, const QStringList& classes);
    /// Classes named by tasks that the previewed source does not have (a warning: another public
    /// source may have them; the project file checks when it is created).
    QStringList unknownClasses() const;

    QLineEdit* nameField() const { return name_; }
    QListWidget* classList() const { return classes_; }
    QListWidget* taskList() const { return list_; }

Q_SIGNALS:
    void tasksChanged();

private:
    void rebuildList();
    void onAdd();

    std::vector<project::LabelTask> tasks_;
    QStringList classNames_;
    QListWidget* list_;
    QLineEdit* name_;
    QListWidget* classes_;
    QPushButton* remove_;
    QLabel* message_;
};

}  // namespace dpmix::workbench
