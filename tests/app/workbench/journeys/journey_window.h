#pragma once
// What every journey's window needs (docs/WORKBENCH.md, "Journeys"): the program's own services
// (app/workbench/main.cpp: the real engine, its exact spend preview and time estimate, and the
// same spend confirmation box), the window shown at a fixed size, and the widgets a user reaches
// by their object name or visible text.
#include "app/workbench/main_window.h"
#include "app/workbench/project/engine_project_store.h"
#include "app/workbench/runs/engine_run_controller.h"
#include "app/workbench/runs/engine_study.h"
#include "app/workbench/study/engine_source_preview.h"
#include "app/workbench/study/engine_study_creator.h"
#include "widgets/parameter_panel.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QString>

class QPushButton;
class QWidget;

namespace dpmix::workbench::journeys {

/// The workbench's services as app/workbench/main.cpp wires them; one per test class (the window
/// keeps pointers to them).
class JourneyServices {
public:
    WorkbenchServices services();

private:
    EngineRunController runs_{runStudyWithEngine};
    EngineProjectStore projects_{summarizeWithDataLayer};
    EngineSourcePreviewer previews_;
    EngineStudyCreator studies_{summarizeWithDataLayer};
};

/// Shows `w` at 1440×900 in the screen's corner and waits until it is exposed.
bool showWindow(MainWindow& w);

/// The editor of one panel field: the widget of type T beside the field's message label.
template <typename T>
T* panelEditor(widgets::ParameterPanel* panel, const QString& key) {
    auto* message = panel->findChild<QLabel*>(QStringLiteral("message_") + key);
    return message && message->parentWidget() ? message->parentWidget()->findChild<T*>() : nullptr;
}

/// The visible push button under `parent` whose text (without mnemonic or ellipsis) is `text`.
QPushButton* buttonWithText(QWidget* parent, const QString& text);

/// A dialog's standard button, or null.
QPushButton* dialogButton(QWidget* dialog, QDialogButtonBox::StandardButton which);

/// No job running and none queued.
bool jobsIdle(MainWindow& w);

/// The mixture stage's panel fields as a user types them: ε, ρ, seeds, batch and steps (10
/// actions); true when every field was found.
struct MixtureFields {
    QString epsilon, rho, seeds, batch, steps;
};
class Journey;
bool fillMixturePanel(Journey& j, widgets::ParameterPanel* panel, const MixtureFields& fields);

/// Scrolls the parameter dock to `widget`, as a user would with the wheel (not counted as a click).
void scrollTo(QWidget* widget);

}  // namespace dpmix::workbench::journeys
