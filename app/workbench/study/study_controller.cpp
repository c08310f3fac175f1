#include "app/workbench/study/study_controller.h"

#include "app/workbench/study/drop_file_filter.h"
#include "app/workbench/study/drop_source_guess.h"
#include "app/workbench/study/source_dialog.h"
#include "app/workbench/study/source_preview.h"

#include <QAction>
#include <QFileInfo>
#include <QTreeWidget>

namespace dpmix::workbench {

namespace {
// The tree's group rows, in MainWindow::populateTree's order.
constexpr int kSensitiveGroupRow = 1;
// Draft rows carry "public"/"sensitive" and the source name under this role (Qt::UserRole is
// the run id of run rows, which the run actions read).
constexpr int kDraftRoleData = Qt::UserRole + 40;
constexpr int kDraftNameData = Qt::UserRole + 41;

QString classesText(const project::LabelTask& task) {
    QStringList classes;
    for (const auto& c : task.classes) classes << QString::fromStdString(c);
    return classes.join(QStringLiteral(" | "));
}

// "source / task" once the study has several public sources (the component's name in the runs).
QString componentName(const StudyDraft& draft, const project::LabelTask& task) {
    const QString name = QString::fromStdString(task.name);
    return draft.publicSources.size() > 1 ? QString::fromStdString(task.source) + QStringLiteral(" / ") + name : name;
}
}  // namespace

StudyController::StudyController(QTreeWidget* tree, QUndoStack* undo, const SourcePreviewer* previewer,
                                 StudyCreator* creator, QWidget* dialogParent)
    : QObject(dialogParent),
      tree_(tree),
      previewer_(previewer),
      creator_(creator),
      dialogParent_(dialogParent),
      builder_(new StudyBuilder(undo, this)),
      addPublic_(new QAction(tr("Add &public source…"), this)),
      setSensitive_(new QAction(tr("Set &sensitive data…"), this)),
      removeSelected_(new QAction(tr("&Remove selected source"), this)) {
    addPublic_->setObjectName("addPublicSource");
    addPublic_->setStatusTip(tr("Register a public data set: loader, path, options, preview and label tasks"));
    setSensitive_->setObjectName("setSensitiveData");
    setSensitive_->setStatusTip(tr("Register the sensitive data set the study protects"));
    connect(addPublic_, &QAction::triggered, this, [this] { openSourceDialog(SourceRole::Public); });
    connect(setSensitive_, &QAction::triggered, this, [this] { openSourceDialog(SourceRole::Sensitive); });
    removeSelected_->setObjectName("removeSelectedSource");
    removeSelected_->setStatusTip(tr("Remove the registered source selected in the project tree (undoable)"));
    connect(removeSelected_, &QAction::triggered, this, [this] {
        if (!tree_ || !removeSourceRow(tree_->currentItem()))
            Q_EMIT message(tr("Select a registered source (marked \"not saved\") in the project tree first."));
    });
    connect(builder_, &StudyBuilder::changed, this, &StudyController::draftChanged);
    if (tree_) {
        auto* drops = new DropFileFilter(tree_->viewport());
        tree_->setAcceptDrops(true);
        connect(drops, &DropFileFilter::pathsDropped, this, [this](const QStringList& paths, const QPoint& at) {
            if (const QString m = handleDrop(paths, at); !m.isEmpty()) Q_EMIT message(m);
        });
        connect(tree_, &QTreeWidget::itemDoubleClicked, this, [this](QTreeWidgetItem* item) {
            if (!item || !item->data(0, kDraftRoleData).isValid()) return;
            const auto role = static_cast<SourceRole>(item->data(0, kDraftRoleData).toInt());
            editSource(role, item->data(0, kDraftNameData).toString().toStdString());
        });
    }
    setEditable(true);
}

void StudyController::setEditable(bool editable) {
    editable_ = editable;
    const bool available = editable && previewer_;
    addPublic_->setEnabled(available);
    setSensitive_->setEnabled(available);
    removeSelected_->setEnabled(editable);
}

SourceDialog* StudyController::openSourceDialog(SourceRole role, const data::SourceSpec& source, const QString& note,
                                                bool userLevel, const std::string& replaces) {
    if (!editable_ || !previewer_) {
        Q_EMIT message(!previewer_ ? tr("Registering sources needs the data layer, which this build lacks.")
                                   : tr("An open project's sources change through Study ▸ Edit sources and tasks… "
                                        "(until its first run) or Duplicate study with changes…; new studies start "
                                        "with File ▸ New."));
        return nullptr;
    }
    if (dialog_) dialog_->close();  // one registration at a time
    const StudyDraft& draft = builder_->draft();
    QStringList taken;
    for (const auto& n : draft.sourceNames()) taken << QString::fromStdString(n);
    // The sensitive set is replaced by a new one, and an edited public source by its new version:
    // their own names stay free.
    if (role == SourceRole::Sensitive && draft.sensitive)
        taken.removeAll(QString::fromStdString(draft.sensitive->source.name));
    if (role == SourceRole::Public && !replaces.empty()) taken.removeAll(QString::fromStdString(replaces));
    auto* dialog = new SourceDialog(role, previewer_, taken, dialogParent_);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setTasks(draft.tasksOf(role, replaces));
    dialog->setNote(note);
    if (role == SourceRole::Public && draft.sensitive && draft.sensitive->facts.kind == data::SourceKind::Images) {
        const auto& f = draft.sensitive->facts;
        dialog->setStudyShape(f.channels, f.height, f.width);
    }
    if (!source.path.empty() || !source.loader.empty()) dialog->setSource(source, userLevel);
    connect(dialog, &QDialog::accepted, this, [this, dialog, role, replaces] {
        builder_->registerSource(role, dialog->registration(), dialog->tasks(), replaces);
        Q_EMIT message(tr("Registered %1").arg(QString::fromStdString(dialog->registration().source.name)));
    });
    dialog_ = dialog;
    dialog->open();
    return dialog;
}

SourceDialog* StudyController::editSource(SourceRole role, const std::string& name) {
    const SourceRegistration* registered = builder_->find(role, name);
    if (!registered) return nullptr;
    const SourceRegistration copy = *registered;  // the dialog outlives changes to the draft
    SourceDialog* dialog = openSourceDialog(
        role, copy.source, tr("Editing %1: OK replaces it.").arg(QString::fromStdString(name)), copy.userLevel, name);
    if (dialog) dialog->setFit(copy.resize, copy.colour);
    return dialog;
}

bool StudyController::removeSourceRow(QTreeWidgetItem* item) {
    if (!editable_ || !item || !item->data(0, kDraftRoleData).isValid()) return false;
    const std::string name = item->data(0, kDraftNameData).toString().toStdString();
    if (static_cast<SourceRole>(item->data(0, kDraftRoleData).toInt()) == SourceRole::Sensitive)
        return builder_->removeSensitive();
    return builder_->removePublicSource(name);
}

QString StudyController::handleDrop(const QStringList& paths, const QPoint& position) {
    if (paths.isEmpty()) return {};
    if (!editable_) {
        return tr(
            "An open project's sources change through Study ▸ Edit sources and tasks… (until its first run) "
            "or Duplicate study with changes…; new studies start with File ▸ New.");
    }
    SourceRole role = SourceRole::Public;
    if (tree_) {
        QTreeWidgetItem* item = tree_->itemAt(position);
        while (item && item->parent()) item = item->parent();
        if (item && tree_->indexOfTopLevelItem(item) == kSensitiveGroupRow) role = SourceRole::Sensitive;
    }
    SourceGuess guess = guessSource(paths.first());
    {
        // The dropped file's name, made unique among the draft's sources (the sensitive set a
        // sensitive drop replaces keeps its name free).
        const StudyDraft& draft = builder_->draft();
        QStringList taken;
        for (const auto& n : draft.sourceNames()) taken << QString::fromStdString(n);
        if (role == SourceRole::Sensitive && draft.sensitive)
            taken.removeAll(QString::fromStdString(draft.sensitive->source.name));
        guess.source.name = uniqueSourceName(QString::fromStdString(guess.source.name), taken).toStdString();
    }
    QString note = tr("Dropped %1: %2.").arg(QFileInfo(paths.first()).fileName(), guess.reason);
    if (paths.size() > 1)
        note += tr(" (%1 ignored: register one source at a time.)")
                    .arg(countOf(paths.size() - 1, tr("more dropped item"), tr("more dropped items")));
    if (!openSourceDialog(role, guess.source, note)) return tr("Nothing registered.");
    return {};
}

void StudyController::addDraftRows(QTreeWidgetItem* publicGroup, QTreeWidgetItem* sensitiveGroup,
                                   QTreeWidgetItem* taskGroup) const {
    const StudyDraft& draft = builder_->draft();
    auto addSource = [](QTreeWidgetItem* group, const SourceRegistration& s, SourceRole role) {
        const auto& f = s.facts;
        const bool text = f.kind == data::SourceKind::Text;
        const auto count = static_cast<long long>(text ? f.domains.size() : f.labelNames.size());
        // "(not saved)" leads and the counts end the row: the tree elides the middle of a long
        // row, so at the dock's width both stay in sight; the tooltip holds the whole row.
        QString line =
            tr("(not saved) %1 — %2, %3")
                .arg(QString::fromStdString(s.source.name), countOf(f.examples, tr("example"), tr("examples")),
                     text ? countOf(count, tr("domain"), tr("domains")) : countOf(count, tr("class"), tr("classes")));
        if (f.users > 0) line += QStringLiteral(", ") + countOf(f.users, tr("user"), tr("users"));
        if (s.userLevel) line += tr(" (user-level)");
        auto* item = new QTreeWidgetItem(group, {line});
        item->setToolTip(0, tr("%1\nloader: %2\npath: %3\ncontent hash (SHA-256): %4\ndouble-click to edit")
                                .arg(line, QString::fromStdString(s.source.loader),
                                     QString::fromStdString(s.source.path), QString::fromStdString(f.contentHash)));
        item->setData(0, kDraftRoleData, static_cast<int>(role));
        item->setData(0, kDraftNameData, QString::fromStdString(s.source.name));
    };
    for (const auto& s : draft.publicSources) addSource(publicGroup, s, SourceRole::Public);
    if (draft.sensitive) addSource(sensitiveGroup, *draft.sensitive, SourceRole::Sensitive);
    for (const auto& t : draft.publicTasks)
        new QTreeWidgetItem(taskGroup, {tr("public: %1 = %2").arg(componentName(draft, t), classesText(t))});
    for (const auto& t : draft.sensitiveTasks)
        new QTreeWidgetItem(taskGroup, {tr("sensitive: %1 = %2").arg(QString::fromStdString(t.name), classesText(t))});
}

Result<QString> StudyController::createProject(const QString& path, const widgets::RunParameters& parameters,
                                               bool replaceRunless) {
    if (!creator_) return Error{"this build cannot create project files (no engine/project adapter)"};
    auto spec = builder_->projectSpec(QFileInfo(path).completeBaseName(), parameters);
    if (!spec) return Error{("Nothing was written to " + path + ": ").toStdString() + spec.error().message};
    return creator_->create(path, *spec, replaceRunless);
}

}  // namespace dpmix::workbench
