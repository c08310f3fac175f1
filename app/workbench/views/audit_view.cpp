#include "app/workbench/views/audit_view.h"

#include "app/workbench/help/view_help.h"
#include "app/workbench/views/result_data.h"
#include "app/workbench/views/tidy_fields.h"

#include <QComboBox>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>

#include <algorithm>
#include <cmath>
#include <map>

#include <limits>

namespace dpmix::workbench {
namespace {

const std::string kNoNoise = "-no-noise";

bool isAudit(const RunResults& r) { return r.done() && r.run.method == "audit" && !r.audits.empty(); }

bool isControl(const RunResults& r, const project::AuditRecord& a) {
    // The stage stores a control without an ε and names it "...-no-noise"; either marks it.
    return !r.run.epsilon || (a.name.size() > kNoNoise.size() &&
                              a.name.compare(a.name.size() - kNoNoise.size(), kNoNoise.size(), kNoNoise) == 0);
}

bool sameEpsilon(double a, double b) { return std::abs(a - b) <= 1e-12 * std::max(1.0, std::abs(b)); }

int kindRank(const std::string& name) {
    static const std::vector<std::string> order = {"natural",          "max-clip",          "max-clip-raise",
                                                   "natural-no-noise", "max-clip-no-noise", "max-clip-raise-no-noise"};
    return static_cast<int>(std::find(order.begin(), order.end(), name) - order.begin());
}

QString rate(long long count, long long of) {
    return of > 0 ? QStringLiteral("%1 (%2/%3)")
                        .arg(static_cast<double>(count) / static_cast<double>(of), 0, 'g', 3)
                        .arg(count)
                        .arg(of)
                  : QStringLiteral("– (0 runs)");
}

const std::string kOneRun = "finetune-one-run-";

/// A one-run audit's tooltip paragraph: one training, its canaries, the guesses made and right.
QString oneRunDetail(const QJsonObject& details) {
    return QObject::tr("\none training of the study's fine-tuning (%1): %2 canaries, %3 put in; %4 guesses, %5 right")
        .arg(details.value("variant").toString(QStringLiteral("black-box")))
        .arg(details.value("canaries").toInteger())
        .arg(details.value("included").toInteger())
        .arg(details.value("guesses").toInteger())
        .arg(details.value("correct").toInteger());
}

/// One tooltip paragraph: the bound, the attack's error rates on the EVAL half, the runs.
QString auditDetail(const RunResults& r, const project::AuditRecord& a) {
    const QJsonObject details = QJsonDocument::fromJson(QByteArray::fromStdString(a.detailsJson)).object();
    QString text = QObject::tr("run #%1: ε_LB = %2 at %3% confidence, δ = %4")
                       .arg(r.run.id)
                       .arg(a.epsilonLowerBound, 0, 'g', 4)
                       .arg(a.confidence * 100.0, 0, 'g', 3)
                       .arg(a.delta, 0, 'g', 3);
    if (details.value("kind").toString() == QStringLiteral("one-run")) return text + oneRunDetail(details);
    text +=
        QObject::tr("\nFPR %1, FNR %2")
            .arg(rate(a.counts.falsePositives, a.counts.negatives), rate(a.counts.falseNegatives, a.counts.positives));
    if (details.contains("runs_per_world"))
        text += QObject::tr("\nruns: %1 per world (EVAL half: %2 without, %3 with the canary)")
                    .arg(details.value("runs_per_world").toInteger())
                    .arg(a.counts.negatives)
                    .arg(a.counts.positives);
    else
        text +=
            QObject::tr("\nEVAL runs: %1 without, %2 with the canary").arg(a.counts.negatives).arg(a.counts.positives);
    return text;
}

}  // namespace

QString auditKindLabel(const std::string& name) {
    if (name.rfind(kOneRun, 0) == 0)  // "finetune-one-run-[white-box-]<mechanism>-<canary>"
        return QObject::tr("one-run audit: %1").arg(QString::fromStdString(name.substr(kOneRun.size())));
    const bool control =
        name.size() > kNoNoise.size() && name.compare(name.size() - kNoNoise.size(), kNoNoise.size(), kNoNoise) == 0;
    const std::string kind = control ? name.substr(0, name.size() - kNoNoise.size()) : name;
    QString label = kind == "max-clip-raise" ? QObject::tr("max-clip canary (raising)")
                                             : QObject::tr("%1 canary").arg(QString::fromStdString(kind));
    if (control) label += QObject::tr(", no noise (control)");
    return label;
}

std::vector<double> auditEpsilons(const ProjectSnapshot& project) {
    std::vector<double> out;
    for (const auto& r : project.runs) {
        if (!isAudit(r) || !r.run.epsilon) continue;
        if (std::none_of(out.begin(), out.end(), [&](double e) { return sameEpsilon(e, *r.run.epsilon); }))
            out.push_back(*r.run.epsilon);
    }
    std::sort(out.begin(), out.end());
    return out;
}

widgets::BarChartData auditChartData(const ProjectSnapshot& project, std::optional<double> claimedEpsilon) {
    struct Matching {
        std::vector<double> bounds;
        QStringList details;
    };
    std::map<std::string, std::map<std::string, Matching>> byKind;  // kind → task → audits
    for (const auto& r : project.runs) {
        if (!isAudit(r)) continue;
        for (const auto& a : r.audits) {
            if (!isControl(r, a) && (!claimedEpsilon || !sameEpsilon(*r.run.epsilon, *claimedEpsilon))) continue;
            Matching& m = byKind[a.name][r.run.task];
            m.bounds.push_back(a.epsilonLowerBound);
            m.details << auditDetail(r, a);
        }
    }
    widgets::BarChartData data;
    if (byKind.empty()) return data;
    std::vector<std::string> kinds;
    for (const auto& [kind, tasks] : byKind) kinds.push_back(kind);
    std::stable_sort(kinds.begin(), kinds.end(),
                     [](const auto& a, const auto& b) { return kindRank(a) < kindRank(b); });
    std::vector<std::string> tasks;
    for (const auto& t : project.taskNames())
        for (const auto& [kind, byTask] : byKind)
            if (byTask.count(t) && std::find(tasks.begin(), tasks.end(), t) == tasks.end()) tasks.push_back(t);
    for (const auto& t : tasks) {
        data.categories << (t.empty() ? QObject::tr("(single task)") : QString::fromStdString(t));
        data.categoryFields << widgets::TidyFields{{QStringLiteral("task"), taskCell(t)}};
    }
    data.errorColumn = QStringLiteral("std");

    for (const auto& kind : kinds) {
        widgets::BarSeries series;
        series.name = auditKindLabel(kind);
        // A no-noise control adds no noise: no finite ε is claimed for it.
        const bool control = kind.size() > kNoNoise.size() &&
                             kind.compare(kind.size() - kNoNoise.size(), kNoNoise.size(), kNoNoise) == 0;
        series.fields = {{QStringLiteral("epsilon"), control ? QStringLiteral("inf") : numberCell(claimedEpsilon)},
                         {QStringLiteral("canary"), QString::fromStdString(kind)},
                         {QStringLiteral("metric"), QStringLiteral("epsilon_lower_bound")}};
        bool several = false;
        for (const auto& t : tasks) {
            const auto it = byKind[kind].find(t);
            if (it == byKind[kind].end()) {
                series.values << std::nan("");
                series.errors << 0.0;
                series.details << QString();
                continue;
            }
            const auto [mean, sd] = meanAndStd(it->second.bounds);
            several = several || it->second.bounds.size() > 1;
            series.values << mean;
            series.errors << sd;
            QString detail = it->second.details.join("\n");
            if (it->second.bounds.size() > 1)
                detail = QObject::tr("mean of %1 audits\n").arg(it->second.bounds.size()) + detail;
            series.details << detail;
        }
        if (!several) series.errors.clear();
        data.series << series;
    }
    data.valueLabels = true;  // ε_LB = 0 is the common, good outcome: a bar of height 0 must still read "0"
    if (claimedEpsilon)
        data.references << widgets::ReferenceLine{QObject::tr("claimed ε = %1").arg(*claimedEpsilon),
                                                  *claimedEpsilon,
                                                  {{QStringLiteral("epsilon"), numberCell(claimedEpsilon)},
                                                   {QStringLiteral("metric"), QStringLiteral("claimed_epsilon")}}};
    return data;
}

AuditView::AuditView(ProjectSnapshot project, QWidget* parent)
    : ResultPageView(parent),
      project_(std::move(project)),
      epsilons_(auditEpsilons(project_)),
      epsilon_(new QComboBox),
      chart_(new widgets::BarChartWidget) {
    auto* label = new QLabel(tr("Claimed ε:"));
    addControl(label);
    addControl(epsilon_);
    for (double e : epsilons_) epsilon_->addItem(QString::number(e));
    label->setVisible(epsilons_.size() > 1);
    epsilon_->setVisible(epsilons_.size() > 1);
    chart_->setAxisLabels(tr("sensitive task"), tr("empirical ε lower bound ε_LB"));
    chart_->setAxisToolTips({}, glossaryToolTip(GlossaryTerm::Canary));
    label->setToolTip(glossaryToolTip(GlossaryTerm::Epsilon));
    setWhatsThis(viewWhatsThis(ResultView::Audit));
    chart_->setValueDomain(0.0, std::numeric_limits<double>::infinity());  // ε_LB >= 0
    setChart(chart_);
    connect(epsilon_, &QComboBox::currentIndexChanged, this, &AuditView::refresh);
    refresh();
}

void AuditView::refresh() {
    std::optional<double> epsilon;
    if (const int i = epsilon_->currentIndex(); i >= 0 && i < static_cast<int>(epsilons_.size()))
        epsilon = epsilons_[i];
    const auto data = auditChartData(project_, epsilon);
    if (data.series.isEmpty()) {
        setNote({});
        showEmptyState(
            tr("No audit runs in this project yet — run Audit… to measure an empirical lower bound on "
               "ε: the mixture step is re-run on neighbouring data sets with a canary, and how often "
               "the canary is detected bounds how much privacy the mechanism can really promise."));
        return;
    }
    showChart();
    chart_->setTitle(epsilon ? tr("Canary audit: empirical ε lower bound per task\n(95% Clopper–Pearson) against the "
                                  "claimed ε = %1")
                                   .arg(*epsilon)
                             : tr("Canary audit: empirical ε lower bound per task\n(95% Clopper–Pearson), no-noise "
                                  "controls only"));
    setNote(chart_->setData(data));
}

}  // namespace dpmix::workbench
