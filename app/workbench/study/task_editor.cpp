#include "app/workbench/study/task_editor.h"

#include <QGridLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>

#include <algorithm>

namespace dpmix::workbench {

TaskEditor::TaskEditor(QWidget* parent)
    : QWidget(parent),
      list_(new QListWidget),
      name_(new QLineEdit),
      classes_(new QListWidget),
      remove_(new QPushButton(tr("Remove"))),
      message_(new QLabel) {
    list_->setObjectName("taskList");
    list_->setWordWrap(true);  // "upper-body garment = T-shirt/top | Pullover | Coat | Shirt" is long
    name_->setObjectName("taskName");
    name_->setPlaceholderText(tr("task name, e.g. footwear"));
    classes_->setObjectName("taskClasses");
    classes_->setToolTip(tr("Tick the classes whose union is the task's positive label."));
    message_->setWordWrap(true);
    auto* add = new QPushButton(tr("Add task"));
    add->setObjectName("addTask");
    remove_->setObjectName("removeTask");
    remove_->setEnabled(false);

    auto* layout = new QGridLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(new QLabel(tr("Tasks (derived labels)")), 0, 0);
    layout->addWidget(new QLabel(tr("New task: name and classes")), 0, 1);
    layout->addWidget(list_, 1, 0, 2, 1);
    layout->addWidget(name_, 1, 1);
    layout->addWidget(classes_, 2, 1);
    layout->addWidget(remove_, 3, 0);
    layout->addWidget(add, 3, 1);
    layout->addWidget(message_, 4, 0, 1, 2);

    connect(add, &QPushButton::clicked, this, &TaskEditor::onAdd);
    connect(name_, &QLineEdit::returnPressed, this, &TaskEditor::onAdd);
    connect(list_, &QListWidget::currentRowChanged, this, [this](int row) { remove_->setEnabled(row >= 0); });
    connect(remove_, &QPushButton::clicked, this, [this] {
        const int row = list_->currentRow();
        if (row < 0 || row >= static_cast<int>(tasks_.size())) return;
        tasks_.erase(tasks_.begin() + row);
        rebuildList();
        Q_EMIT tasksChanged();
    });
}

void TaskEditor::setClassNames(const QStringList& classes) {
    classNames_ = classes;
    classes_->clear();
    for (const QString& c : classes) {
        auto* item = new QListWidgetItem(c, classes_);
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
        item->setCheckState(Qt::Unchecked);
    }
    rebuildList();  // the unknown-class warning depends on the classes
}

void TaskEditor::setTasks(const std::vector<project::LabelTask>& tasks) {
    tasks_ = tasks;
    rebuildList();
}

QString TaskEditor::addTask(const QString& name, const QStringList& classes) {
    const std::string key = name.trimmed().toStdString();
    if (key.empty()) return tr("The task name is empty: type a name, e.g. footwear.");
    if (std::any_of(tasks_.begin(), tasks_.end(), [&](const project::LabelTask& t) { return t.name == key; }))
        return tr("A task named \"%1\" exists: choose another name or remove it first.").arg(name.trimmed());
    if (classes.isEmpty()) return tr("Task \"%1\" has no class: tick at least one class.").arg(name.trimmed());
    project::LabelTask task{key, {}};
    for (const QString& c : classes) task.classes.push_back(c.toStdString());
    tasks_.push_back(std::move(task));
    rebuildList();
    Q_EMIT tasksChanged();
    return {};
}

void TaskEditor::onAdd() {
    QStringList checked;
    for (int i = 0; i < classes_->count(); ++i)
        if (classes_->item(i)->checkState() == Qt::Checked) checked << classes_->item(i)->text();
    const QString problem = addTask(name_->text(), checked);
    if (!problem.isEmpty()) {
        message_->setText(problem);
        return;
    }
    name_->clear();
    for (int i = 0; i < classes_->count(); ++i) classes_->item(i)->setCheckState(Qt::Unchecked);
}

QStringList TaskEditor::unknownClasses() const {
    QStringList unknown;
    for (const auto& t : tasks_)
        for (const auto& c : t.classes) {
            const QString name = QString::fromStdString(c);
            if (!classNames_.contains(name) && !unknown.contains(name)) unknown << name;
        }
    return unknown;
}

void TaskEditor::rebuildList() {
    list_->clear();
    for (const auto& t : tasks_) {
        QStringList classes;
        for (const auto& c : t.classes) classes << QString::fromStdString(c);
        const QString text =
            QStringLiteral("%1 = %2").arg(QString::fromStdString(t.name), classes.join(QStringLiteral(" | ")));
        auto* item = new QListWidgetItem(text, list_);
        item->setToolTip(text);
    }
    const QStringList unknown = unknownClasses();
    message_->setText(unknown.isEmpty() || classNames_.isEmpty()
                          ? QString()
                          : tr("Not classes of this source: %1 (fine if another public source has them; the project "
                               "checks when it is created).")
                                .arg(unknown.join(QStringLiteral(", "))));
}

}  // namespace dpmix::workbench
