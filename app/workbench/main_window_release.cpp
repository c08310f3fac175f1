// MainWindow's trust boundary: the verdict banner above the project tree, and File ▸ Export
// release… (release_dialog.h; the engine's export through WorkbenchServices::projects).
#include "app/workbench/main_window.h"

#include "app/workbench/project/project_store.h"
#include "app/workbench/project/release_dialog.h"
#include "widgets/plot_export.h"

#include <QAction>
#include <QLabel>
#include <QMessageBox>
#include <QStatusBar>
#include <QVariant>

namespace dpmix::workbench {

void MainWindow::updateTrustBanner() {
    if (!project_) {
        trustBanner_->hide();
        exportReleaseAction_->setEnabled(false);
        setProperty(widgets::kTrustLabelProperty, QVariant());
        return;
    }
    const TrustReading& t = project_->trust;
    const bool inside = !t.known || !t.dpOnly;
    // Amber: the file must stay with the data owner; green: it holds only what a DP guarantee covers.
    trustBanner_->setStyleSheet(
        inside ? QStringLiteral("QLabel{background:#fff3cd;color:#664d03;border:1px solid #e0c36b;padding:4px}")
               : QStringLiteral("QLabel{background:#d1e7dd;color:#0f5132;border:1px solid #8fc9a9;padding:4px}"));
    const QString summary = t.known ? t.summary : t.headline;
    trustBanner_->setText(
        inside
            ? tr("<b>Keep inside the trust boundary.</b> %1").arg(summary.toHtmlEscaped())
            : tr("<b>%1.</b> %2").arg(t.release ? tr("DP release") : tr("DP releases only"), summary.toHtmlEscaped()));
    trustBanner_->setToolTip(t.headline);
    // Every chart exported from this window carries the same words (widgets/plot_export.h).
    setProperty(widgets::kTrustLabelProperty,
                inside ? tr("Keep inside the data owner's trust boundary: analyst-only or reproducible results, not a "
                            "DP release (%1)")
                             .arg(summary)
                       : tr("%1: %2").arg(t.release ? tr("DP release") : tr("DP releases only"), summary));
    trustBanner_->show();
    exportReleaseAction_->setEnabled(!t.release);
}

QString MainWindow::exportRelease(const QString& target, const project::ReleaseOptions& options) {
    if (currentFile_.isEmpty() || !project_) return tr("Open a project to export a release of its DP runs.");
    if (project_->trust.release) return tr("This file is a release already: export from the project it came from.");
    auto written = services_.projects->exportRelease(currentFile_, target, options);
    if (!written) {
        const QString message = QString::fromStdString(written.error().message);
        appendLog(tr("Export release refused: %1").arg(message));
        return message;
    }
    appendLog(*written);
    statusBar()->showMessage(*written, 10000);
    return {};
}

void MainWindow::exportReleaseWithDialog() {
    if (!project_) return;
    ReleaseDialog dialog(*project_, this);
    if (dialog.exec() != QDialog::Accepted) return;
    if (const QString e = exportRelease(dialog.target(), dialog.options()); !e.isEmpty())
        QMessageBox::warning(this, tr("Export release"), e);
}

}  // namespace dpmix::workbench
