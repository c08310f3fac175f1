// The main window and the regime map: "Will public data help?" in the parameter panel, for the
// open study's pool kind, n and the panel's ε (parameters/public_data_advice.h), and Help ▸ Where
// public data pays, the map as a heat map (views/regime_map_dialog.h).
#include "app/workbench/main_window.h"
#include "app/workbench/parameters/parameter_document.h"
#include "app/workbench/parameters/public_data_advice.h"
#include "app/workbench/parameters/regime_reference.h"
#include "app/workbench/study/study_builder.h"
#include "app/workbench/study/study_controller.h"
#include "app/workbench/views/regime_map_dialog.h"
#include "widgets/parameter_panel.h"
#include "widgets/public_data_advice_box.h"

namespace dpmix::workbench {
namespace {

long long unitsOf(const project::SourceFacts& facts, bool userLevel) {
    return userLevel && facts.users > 0 ? facts.users : facts.examples;
}

// The open project's facts, else the draft's (a study being built).
AdviceStudy adviceStudyOf(const ProjectSnapshot* project, const StudyDraft& draft) {
    AdviceStudy study;
    if (project) {
        study.publicSources = project->spec.publicSources.size();
        study.text = project::isTextStudy(project->sources);
        if (const auto* sensitive = project::sensitiveSourceOf(project->sources))
            study.n = unitsOf(sensitive->facts, project->spec.sensitive.userLevel);
        return study;
    }
    study.publicSources = draft.publicSources.size();
    if (draft.sensitive) {
        study.text = draft.sensitive->facts.kind == data::SourceKind::Text;
        study.n = unitsOf(draft.sensitive->facts, draft.sensitive->userLevel);
    }
    return study;
}

}  // namespace

const Result<experiments::RegimeMap>& MainWindow::regimeMap() const {
    return services_.regimeMap ? *services_.regimeMap : referenceRegimeMap();
}

void MainWindow::updatePublicDataAdvice() {
    if (!study_) return;  // still being built
    const AdviceStudy study = adviceStudyOf(project(), study_->builder()->draft());
    const PublicDataAdviceText text = publicDataAdvice(regimeMap(), study, document_->values().epsilon);
    widgets::PublicDataAdviceBox* box = parameters_->publicDataAdvice();
    if (text.headline.isEmpty())
        box->setUnavailable(text.reason);
    else
        box->setAdvice(text.headline, text.detail);
}

RegimeMapDialog* MainWindow::showRegimeMap() {
    if (!regimeMapDialog_) {
        const QString origin = services_.regimeMap ? tr("the map this window was given")
                                                   : tr("the reference map bundled with the workbench");
        regimeMapDialog_ = new RegimeMapDialog(regimeMap(), origin, this);
    }
    const AdviceStudy study = adviceStudyOf(project(), study_->builder()->draft());
    if (study.publicSources > 0) regimeMapDialog_->setPoolKind(experiments::poolKindOf(study.publicSources));
    regimeMapDialog_->show();
    regimeMapDialog_->raise();
    regimeMapDialog_->activateWindow();
    return regimeMapDialog_;
}

}  // namespace dpmix::workbench
