#pragma once
// `dpmix-workbench [FILE] --screenshot OUT.png [--view NAME]`: render the main window
// offscreen with QWidget::grab() and exit, so its look can be checked without a display.
#include <QString>
#include <QStringList>

namespace dpmix::workbench {

class MainWindow;

/// Views: those of MainWindow::showView plus "bar-chart" and "line-chart" (example data,
/// marked as such) and "jobs" (with example jobs running); the result views "lambda", "ledger"
/// (verified), "trajectory", "tradeoff", "auc", "perplexity", "audit", "kscaling" need a project
/// (each shows its empty state when the project has no data for it).
QStringList screenshotViews();

/// Shows `view`, waits for live calculations, grabs the window into `outPath`.
/// Returns an empty string on success, else the reason.
QString renderScreenshot(MainWindow& window, const QString& outPath, const QString& view);

}  // namespace dpmix::workbench
