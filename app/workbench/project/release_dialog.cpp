#include "app/workbench/project/release_dialog.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace dpmix::workbench {

ReleaseDialog::ReleaseDialog(const ProjectSnapshot& project, QWidget* parent)
    : QDialog(parent),
      candidates_(releaseCandidates(project)),
      runs_(new QTreeWidget),
      testMetrics_(
          new QCheckBox(tr("Include test metrics (NOT covered by the guarantee; every view of the release says so)"))),
      reason_(new QLineEdit),
      target_(new QLineEdit),
      status_(new QLabel),
      buttons_(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel)) {
    setWindowTitle(tr("Export DP release"));
    auto* intro =
        new QLabel(tr("A release holds only the chosen DP runs' outputs (λ_DP and its trajectory, DP "
                      "models), their ledgers, the spec without local paths and the public data's hashes. "
                      "It never holds λ*, Random Search's choice, audits, logs, the sensitive data's "
                      "hash, or the seed of any mechanism's randomness."));
    intro->setWordWrap(true);
    runs_->setHeaderLabels({tr("Run"), tr("Why not offered")});
    runs_->setRootIsDecorated(false);
    runs_->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    for (const auto& c : candidates_) {
        auto* item = new QTreeWidgetItem(runs_, {c.label, c.releasable ? (c.needsReason ? c.why : QString()) : c.why});
        item->setData(0, Qt::UserRole, QVariant::fromValue(c.runId));
        item->setToolTip(1, c.why);
        if (c.releasable) {
            item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
            item->setCheckState(0, Qt::Unchecked);
        } else {
            item->setFlags(item->flags() & ~(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable));
        }
    }
    reason_->setPlaceholderText(
        tr("Why a guarantee that is only claimed is acceptable here (recorded in the release)"));
    const QFileInfo info(project.path);
    target_->setText(info.dir().filePath(info.completeBaseName() + QStringLiteral("-release.dpmix")));
    auto* browse = new QPushButton(tr("Browse…"));
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString f = QFileDialog::getSaveFileName(this, tr("Export DP release"), target_->text(),
                                                       tr("dpmix projects (*.dpmix)"));
        if (!f.isEmpty()) target_->setText(f);
    });
    auto* targetRow = new QHBoxLayout;
    targetRow->addWidget(new QLabel(tr("Release file:")));
    targetRow->addWidget(target_, 1);
    targetRow->addWidget(browse);
    status_->setWordWrap(true);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addWidget(runs_, 1);
    layout->addWidget(testMetrics_);
    layout->addWidget(new QLabel(tr("Reason for releasing a mechanism whose guarantee is not established:")));
    layout->addWidget(reason_);
    layout->addLayout(targetRow);
    layout->addWidget(status_);
    layout->addWidget(buttons_);
    buttons_->button(QDialogButtonBox::Ok)->setText(tr("Export"));
    connect(buttons_, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(runs_, &QTreeWidget::itemChanged, this, &ReleaseDialog::updateState);
    connect(reason_, &QLineEdit::textChanged, this, &ReleaseDialog::updateState);
    connect(target_, &QLineEdit::textChanged, this, &ReleaseDialog::updateState);
    resize(760, 460);
    updateState();
}

project::ReleaseOptions ReleaseDialog::options() const {
    project::ReleaseOptions o;
    for (int i = 0; i < runs_->topLevelItemCount(); ++i) {
        const auto* item = runs_->topLevelItem(i);
        if (!(item->flags() & Qt::ItemIsUserCheckable) || item->checkState(0) != Qt::Checked) continue;
        const long long id = item->data(0, Qt::UserRole).toLongLong();
        o.runIds.push_back(id);
        if (candidates_[static_cast<std::size_t>(i)].needsReason)
            o.confirmUnestablished.push_back({id, reason_->text().trimmed().toStdString()});
    }
    o.includeTestMetrics = testMetrics_->isChecked();
    return o;
}

QString ReleaseDialog::target() const { return target_->text().trimmed(); }

bool ReleaseDialog::canAccept() const { return buttons_->button(QDialogButtonBox::Ok)->isEnabled(); }

void ReleaseDialog::updateState() {
    int chosen = 0;
    bool reasonNeeded = false;
    for (int i = 0; i < runs_->topLevelItemCount(); ++i) {
        const auto* item = runs_->topLevelItem(i);
        if (!(item->flags() & Qt::ItemIsUserCheckable) || item->checkState(0) != Qt::Checked) continue;
        ++chosen;
        reasonNeeded = reasonNeeded || candidates_[static_cast<std::size_t>(i)].needsReason;
    }
    reason_->setEnabled(reasonNeeded);
    QString problem;
    if (chosen == 0)
        problem = tr("Tick the DP runs to release.");
    else if (reasonNeeded && reason_->text().trimmed().isEmpty())
        problem = tr("A chosen run's guarantee is not established: give the reason to record.");
    else if (target().isEmpty())
        problem = tr("Choose the release file.");
    status_->setText(problem.isEmpty() ? tr("%n run(s) will be released.", nullptr, chosen) : problem);
    buttons_->button(QDialogButtonBox::Ok)->setEnabled(problem.isEmpty());
}

}  // namespace dpmix::workbench
