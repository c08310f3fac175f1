#include "app/workbench/views/auc_epsilon_view.h"

#include "app/workbench/help/view_help.h"
#include "app/workbench/views/auc_view.h"
#include "app/workbench/views/result_data.h"
#include "engine/methods/method_plan.h"
#include "engine/project/result_summary.h"

#include <QComboBox>
#include <QLabel>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace dpmix::workbench {
namespace {

// Finished runs with an ε and a test AUC, at `task` when set: what `dpmix results` reads.
std::vector<project::ResultObservation> observations(const ProjectSnapshot& project,
                                                     const std::optional<std::string>& task) {
    std::vector<project::ResultObservation> out;
    for (const auto& r : project.runs) {
        const double auc = downstreamTestAuc(r);
        if (!r.done() || !std::isfinite(auc) || !r.run.epsilon) continue;
        if (!methods::methodOfRun(r.run.method) || (task && r.run.task != *task)) continue;
        out.push_back({r.run.method, r.run.task, r.run.seed, *r.run.epsilon, auc, r.run.id});
    }
    return out;
}

int paperRankOf(const std::string& method) {
    const auto m = methods::methodOfRun(method);
    return m ? methods::paperRank(*m) : 99;
}

}  // namespace

AucEpsilonCurves aucEpsilonCurves(const ProjectSnapshot& project, const std::optional<std::string>& task) {
    std::map<std::string, std::vector<project::ResultSummaryRow>> byMethod;
    std::set<double> epsilons;
    for (const auto& row : project::summarizeResults(observations(project, task))) {
        byMethod[row.method].push_back(row);
        epsilons.insert(row.epsilon);
    }
    std::vector<std::string> order;
    for (const auto& [method, rows] : byMethod) order.push_back(method);
    std::stable_sort(order.begin(), order.end(),
                     [](const std::string& a, const std::string& b) { return paperRankOf(a) < paperRankOf(b); });
    AucEpsilonCurves out;
    out.epsilons = static_cast<int>(epsilons.size());
    for (const auto& method : order) {
        auto rows = byMethod[method];
        std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.epsilon < b.epsilon; });
        widgets::LineSeries s;
        s.name = honestMethodLabel(method);
        s.fields = {{QStringLiteral("method"), QString::fromStdString(method)}};
        const bool band = std::any_of(rows.begin(), rows.end(), [](const auto& r) { return r.seeds >= 2; });
        for (const auto& r : rows) {
            s.x << r.epsilon;
            s.mean << r.mean;
            if (band) {
                s.lower << std::max(0.0, r.mean - r.std);
                s.upper << std::min(1.0, r.mean + r.std);
            }
        }
        out.nonPrivateReferences = out.nonPrivateReferences || methods::isNonPrivateChoice(method);
        out.series << s;
    }
    return out;
}

AucEpsilonView::AucEpsilonView(ProjectSnapshot project, QWidget* parent)
    : ResultPageView(parent), project_(std::move(project)), task_(new QComboBox), chart_(new widgets::LineChartWidget) {
    auto* label = new QLabel(tr("Task:"));
    addControl(label);
    addControl(task_);
    task_->addItem(tr("All tasks (macro AUC)"));
    for (const auto& t : project_.taskNames())
        if (!t.empty()) task_->addItem(QString::fromStdString(t));
    label->setVisible(task_->count() > 2);  // one task: the macro is that task
    task_->setVisible(task_->count() > 2);
    chart_->setAxisLabels(tr("privacy budget ε (log scale)"), tr("test AUC (mean over tasks and seeds)"));
    chart_->setAxisToolTips(glossaryToolTip(GlossaryTerm::Epsilon), glossaryToolTip(GlossaryTerm::Auc));
    chart_->setValueDomain(0.0, 1.0);
    chart_->setLogarithmicX(true);  // ε > 0, swept by factors
    chart_->setCsvXColumn(QStringLiteral("epsilon"));
    setWhatsThis(viewWhatsThis(ResultView::AucAgainstEpsilon));
    setChart(chart_);
    connect(task_, &QComboBox::currentIndexChanged, this, &AucEpsilonView::refresh);
    refresh();
}

void AucEpsilonView::refresh() {
    std::optional<std::string> task;
    if (task_->currentIndex() > 0) task = task_->currentText().toStdString();
    const AucEpsilonCurves curves = aucEpsilonCurves(project_, task);
    if (!task) hasAucResults_ = curves.epsilons > 0;
    if (curves.epsilons < 2) {
        setNote({});
        showEmptyState(curves.epsilons == 0
                           ? tr("No downstream test AUC in this project yet. Run ▸ ε sweep… with the full pipeline "
                                "draws this curve: one task and three methods (DP-MixMin, Uniform, Random Init) "
                                "at three ε take minutes.")
                           : tr("Test AUC at one ε only: an AUC-against-ε curve needs two ε or more. Run ▸ ε "
                                "sweep… with the full pipeline adds them."));
        return;
    }
    showChart();
    chart_->setTitle(task ? tr("Test AUC against ε, task %1 — mean ± std over seeds").arg(task_->currentText())
                          : tr("Test AUC against ε, macro over tasks — mean ± std over seeds"));
    QString note = chart_->setSeries(curves.series);
    if (note.isEmpty() && curves.nonPrivateReferences)
        note =
            tr("λ* and Random Search chose λ on the sensitive data without privacy: their points sit at the ε "
               "of their fine-tuning, but their pipeline's ε is ∞ (references, not releases).");
    setNote(note);
}

}  // namespace dpmix::workbench
