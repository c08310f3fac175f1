#include "tests/app/workbench/journeys/journey_window.h"

#include "app/workbench/runs/budget_reading.h"
#include "app/workbench/runs/job_runner.h"
#include "app/workbench/runs/stage_queue.h"
#include "tests/app/workbench/journeys/journey_driver.h"
#include "tests/app/workbench/window_parts.h"

#include <QApplication>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QtTest>

namespace dpmix::workbench::journeys {

WorkbenchServices JourneyServices::services() {
    runs_.setAuditFunction(runAuditWithEngine);
    runs_.setPsgFunction(runPsgWithEngine);
    // As the workbench: the engine's exact spend preview and its time estimate.
    runs_.setSpendPlanFunction(planStudySpendWithEngine);
    runs_.setEstimateFunction(estimateStudyWithEngine);
    WorkbenchServices s{&runs_, &projects_, [] { return QStringLiteral("journeys"); }};
    s.sources = &previews_;
    s.studies = &studies_;
    s.confirmSpend = [](const SpendPreview& preview) {
        QWidget* parent = QApplication::activeWindow();
        const QString text = spendPreviewText(preview);
        if (preview.overCap) {
            QMessageBox::warning(parent, QObject::tr("Privacy budget exceeded"), text);
            return false;
        }
        return QMessageBox::question(parent, QObject::tr("Spend privacy budget?"), text,
                                     QMessageBox::Ok | QMessageBox::Cancel, QMessageBox::Ok) == QMessageBox::Ok;
    };
    return s;
}

bool showWindow(MainWindow& w) {
    w.resize(1440, 900);
    w.move(0, 0);
    w.show();
    w.activateWindow();
    return QTest::qWaitForWindowExposed(&w);
}

QPushButton* buttonWithText(QWidget* parent, const QString& text) {
    for (auto* b : parent->findChildren<QPushButton*>())
        if (plainText(b->text()) == text && b->isVisible()) return b;
    return nullptr;
}

QPushButton* dialogButton(QWidget* dialog, QDialogButtonBox::StandardButton which) {
    auto* box = dialog->findChild<QDialogButtonBox*>();
    return box ? box->button(which) : nullptr;
}

bool jobsIdle(MainWindow& w) {
    return test::jobRunner(w)->runningCount() == 0 && test::stageQueue(w)->queuedCount() == 0;
}

bool fillMixturePanel(Journey& j, widgets::ParameterPanel* panel, const MixtureFields& fields) {
    auto* epsilon = panelEditor<QDoubleSpinBox>(panel, "epsilon");
    auto* rho = panelEditor<QDoubleSpinBox>(panel, "rho");
    auto* seeds = panelEditor<QLineEdit>(panel, "seeds");
    auto* batch = panelEditor<QSpinBox>(panel, "batch");
    auto* steps = panelEditor<QSpinBox>(panel, "steps");
    if (!epsilon || !rho || !seeds || !batch || !steps) return false;
    j.replaceText(epsilon, fields.epsilon);
    scrollTo(rho);
    j.replaceText(rho, fields.rho);
    j.replaceText(seeds, fields.seeds);
    scrollTo(steps);
    j.replaceText(batch, fields.batch);
    j.replaceText(steps, fields.steps);
    return true;
}

void scrollTo(QWidget* widget) {
    for (QWidget* p = widget->parentWidget(); p; p = p->parentWidget())
        if (auto* area = qobject_cast<QScrollArea*>(p)) {
            area->ensureWidgetVisible(widget, 20, 40);
            QTest::qWait(50);
            return;
        }
}

}  // namespace dpmix::workbench::journeys
