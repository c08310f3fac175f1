#include "app/workbench/study_controller.h"

#include "app/workbench/drop_file_filter.h"
#include "app/workbench/drop_source_guess.h"
#include "app/workbench/source_dialog.h"
#include "app/workbench/source_preview.h"

#include <QAction>
#include <QFileInfo>
#include <QTreeWidget>

namespace dpmix::workbench {

namespace {
// The tree's group rows, in MainWindow::populateTree's order.
constexpr int kSensitiveGroupRow = 1;

QString classesText(const project::LabelTask& task) {
    QStringList classes;
    for (const auto& c : task.classes) classes << QString::fromStdString(c);
    return classes.join(QStringLiteral(" | "));
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
      setSensitive_(new QAction(tr("Set &sensitive data…"), this)) {
    addPublic_->setObjectName("addPublicSource");
    addPublic_->setStatusTip(tr("Register a public data set: loader, path, options, preview and label tasks"));
    setSensitive_->setObjectName("setSensitiveData");
    setSensitive_->setStatusTip(tr("Register the sensitive data set the study protects"));
    connect(addPublic_, &QAction::triggered, this, [this] { openSourceDialog(SourceRole::Public); });
    connect(setSensitive_, &QAction::triggered, this, [this] { openSourceDialog(SourceRole::Sensitive); });
    connect(builder_, &StudyBuilder::changed, this, &StudyController::draftChanged);
    if (tree_) {
        auto* drops = new DropFileFilter(tree_->viewport());
        tree_->setAcceptDrops(true);
        connect(drops, &DropFileFilter::pathsDropped, this, [this](const QStringList& paths, const QPoint& at) {
            if (const QString m = handleDrop(paths, at); !m.isEmpty()) Q_EMIT message(m);
        });
    }
    setEditable(true);
}

void StudyController::setEditable(bool editable) {
    editable_ = editable;
    const bool available = editable && previewer_;
    addPublic_->setEnabled(available);
    setSensitive_->setEnabled(available);
}

SourceDialog* StudyController::openSourceDialog(SourceRole role, const data::SourceSpec& source, const QString& note) {
    if (!editable_ || !previewer_) {
        Q_EMIT message(!previewer_ ? tr("Registering sources needs the data layer, which this build lacks.")
                                   : tr("Sources are registered in a new study (File ▸ New); an open project's sources "
                                        "are fixed when it is created."));
        return nullptr;
    }
    if (dialog_) dialog_->close();  // one registration at a time
    const StudyDraft& draft = builder_->draft();
    QStringList taken;
    for (const auto& n : draft.sourceNames()) taken << QString::fromStdString(n);
    // Editing the registered sensitive set (or a public source of the same name) may keep its name.
    if (role == SourceRole::Sensitive && draft.sensitive) taken.removeAll(QString::fromStdString(draft.sensitive->source.name));
    if (role == SourceRole::Public && !source.name.empty() && !source.loader.empty()) {
        for (const auto& s : draft.publicSources)
            if (s.source.name == source.name && s.source.path == source.path) taken.removeAll(QString::fromStdString(source.name));
    }
    auto* dialog = new SourceDialog(role, previewer_, taken, dialogParent_);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setTasks(draft.tasks(role));
    dialog->setNote(note);
    if (!source.path.empty() || !source.loader.empty()) dialog->setSource(source);
    connect(dialog, &QDialog::accepted, this, [this, dialog, role] {
        builder_->registerSource(role, dialog->registration(), dialog->tasks());
        Q_EMIT message(tr("Registered %1").arg(QString::fromStdString(dialog->registration().source.name)));
    });
    dialog_ = dialog;
    dialog->open();
    return dialog;
}

QString StudyController::handleDrop(const QStringList& paths, const QPoint& position) {
    if (paths.isEmpty()) return {};
    if (!editable_) {
        return tr("Sources are registered in a new study (File ▸ New); an open project's sources are fixed when it "
                  "is created.");
    }
    SourceRole role = SourceRole::Public;
    if (tree_) {
        QTreeWidgetItem* item = tree_->itemAt(position);
        while (item && item->parent()) item = item->parent();
        if (item && tree_->indexOfTopLevelItem(item) == kSensitiveGroupRow) role = SourceRole::Sensitive;
    }
    const SourceGuess guess = guessSource(paths.first());
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
    auto addSource = [](QTreeWidgetItem* group, const SourceRegistration& s) {
        const auto& f = s.facts;
        const bool text = f.kind == "text";
        const auto count = static_cast<long long>(text ? f.domains.size() : f.labelNames.size());
        QString line = tr("%1 — %2, %3")
                           .arg(QString::fromStdString(s.source.name), countOf(f.examples, tr("example"), tr("examples")),
                                text ? countOf(count, tr("domain"), tr("domains")) : countOf(count, tr("class"), tr("classes")));
        if (s.userLevel) line += tr(", user-level");
        auto* item = new QTreeWidgetItem(group, {line + tr(" (not saved)")});
        item->setToolTip(0, tr("loader: %1\npath: %2\ncontent hash (SHA-256): %3")
                                .arg(QString::fromStdString(s.source.loader), QString::fromStdString(s.source.path),
                                     QString::fromStdString(f.contentHash)));
    };
    for (const auto& s : draft.publicSources) addSource(publicGroup, s);
    if (draft.sensitive) addSource(sensitiveGroup, *draft.sensitive);
    for (const auto& t : draft.publicTasks)
        new QTreeWidgetItem(taskGroup, {tr("public: %1 = %2").arg(QString::fromStdString(t.name), classesText(t))});
    for (const auto& t : draft.sensitiveTasks)
        new QTreeWidgetItem(taskGroup, {tr("sensitive: %1 = %2").arg(QString::fromStdString(t.name), classesText(t))});
}

Result<QString> StudyController::createProject(const QString& path, const widgets::RunParameters& parameters) {
    if (!creator_) return Error{"this build cannot create project files (no engine/project adapter)"};
    auto spec = builder_->projectSpec(QFileInfo(path).completeBaseName(), parameters);
    if (!spec) return Error{("Nothing was written to " + path + ": ").toStdString() + spec.error().message};
    return creator_->create(path, *spec);
}

}  // namespace dpmix::workbench
