// The main window's privacy-budget side: the meter above the parameters and the confirmation
// before a run that spends (docs/PRIVACY.md, "Privacy budget"; docs/WORKBENCH.md).
#include "app/workbench/main_window.h"

#include "app/workbench/parameters/number_parsing.h"
#include "app/workbench/parameters/parameter_document.h"
#include "app/workbench/parameters/privacy_plan.h"
#include "app/workbench/runs/budget_reading.h"
#include "app/workbench/runs/run_controller.h"
#include "widgets/budget_meter.h"
#include "widgets/parameter_panel.h"

#include <QApplication>
#include <QStatusBar>

namespace dpmix::workbench {

void MainWindow::updateBudgetMeter() {
    parameters_->setUnitName(project_ ? unitLabelOf(project_->spec) : QString());
    if (!project_) {
        budgetMeter_->setUnavailable(tr("Open a project to see what its sensitive data has spent."));
        return;
    }
    // The panel's cap (when it is a valid number) joins the store's and the spec's: the meter shows
    // the cap the next run is held to.
    auto panelCap = parseBudgetCap(document_->values().budgetCap);
    auto reading = budgetReadingOf(*project_, panelCap ? *panelCap : std::nullopt);
    if (reading)
        budgetMeter_->setReading(*reading);
    else
        budgetMeter_->setUnavailable(
            tr("The budget cannot be read: %1").arg(QString::fromStdString(reading.error().message)));
}

bool MainWindow::confirmSpending(const RunAction& action, const PrivacyPlan& plan) {
    if (!project_) return true;
    // The engine's plan on the project's data when the controller has one (exact: fine-tuning
    // included, on the realised splits); otherwise the panel's estimate of the mixture releases.
    statusBar()->showMessage(tr("Planning the run's DP releases on the project's data…"));
    QApplication::setOverrideCursor(Qt::WaitCursor);  // the engine loads the study's data to plan
    const auto planned = services_.runs->plannedReleases(action);
    QApplication::restoreOverrideCursor();
    statusBar()->clearMessage();
    if (planned) {
        if (!*planned) return true;  // the engine refuses this run when it starts, with this message
        const auto preview = previewPlannedSpend(*project_, action.parameters, **planned);
        if (!preview) return confirmPreview(preview);
        SpendPreview withTime = *preview;
        withTime.duration = estimatedDuration(action);
        return confirmPreview(withTime);
    }
    return confirmPreview(previewSpend(*project_, action.parameters, plan, action.kind == RunKind::CompareBaselines));
}

QString MainWindow::estimatedDuration(const RunAction& action) {
    statusBar()->showMessage(tr("Timing a training step to estimate the run's duration…"));
    QApplication::setOverrideCursor(Qt::WaitCursor);
    const auto estimate = services_.runs->estimatedTime(action);
    QApplication::restoreOverrideCursor();
    statusBar()->clearMessage();
    if (!estimate || !*estimate) return {};  // no estimate: the dialog says nothing about time
    return estimatedDurationText((*estimate)->seconds, (*estimate)->stepMilliseconds, (*estimate)->batch);
}

bool MainWindow::confirmSweepSpending(const widgets::RunParameters& values, const SweepScope& scope) {
    if (!project_) return true;
    return confirmPreview(previewSweepSpend(*project_, values, scope));
}

bool MainWindow::confirmPrivateSetSpending(const widgets::RunParameters& values, const PsgSettings& settings) {
    if (!project_) return true;
    return confirmPreview(previewPsgSpend(*project_, values, settings));
}

bool MainWindow::confirmPreview(const Result<SpendPreview>& preview) {
    // What the run would spend: confirmed before it starts, refused when over the cap (the
    // engine checks again, exactly, before any mechanism touches the data).
    if (!preview) return true;  // nothing to preview (no mixture stage): the engine still checks
    const bool go = services_.confirmSpend ? services_.confirmSpend(*preview) : true;
    if (preview->overCap) {
        const QString why =
            tr("Refused: this run would bring the privacy budget of %1 from ε %2 to %3, over its cap %4. "
               "Nothing was run.")
                .arg(preview->dataset)
                .arg(preview->before, 0, 'f', 3)
                .arg(preview->after, 0, 'f', 3)
                .arg(*preview->cap);
        statusBar()->showMessage(why, 15000);
        appendLog(why);
        return false;
    }
    if (!go) statusBar()->showMessage(tr("Run not started."), 5000);
    return go;
}

}  // namespace dpmix::workbench
