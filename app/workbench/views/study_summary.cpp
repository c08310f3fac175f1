#include "app/workbench/views/study_summary.h"

#include "app/workbench/help/view_help.h"

#include "app/workbench/project/ledger_check.h"
#include "app/workbench/runs/budget_reading.h"
#include "app/workbench/views/private_set_view.h"
#include "app/workbench/views/regime_verdict.h"
#include "app/workbench/views/result_data.h"
#include "engine/methods/method_plan.h"

#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace dpmix::workbench {
namespace {

bool sameEpsilon(const std::optional<double>& a, double b) { return a && std::abs(*a - b) <= 1e-12 * std::max(1.0, b); }

QString num(double v, int decimals = 2) { return QString::number(v, 'f', decimals); }
// ε in a sentence: its shortest exact form ("4", "0.25", "1.5"), not "4.000".
QString eps(double v) { return QString::number(v, 'g', QLocale::FloatingPointShortest); }
QString pm(double mean, double sd, int n, int decimals = 2) {
    return n > 1 ? QStringLiteral("%1 ± %2").arg(num(mean, decimals), num(sd, decimals)) : num(mean, decimals);
}
QString html(const std::string& s) { return QString::fromStdString(s).toHtmlEscaped(); }

std::optional<double> meanCosineOf(const ProjectSnapshot& project, methods::Method m) {
    std::vector<double> values;
    for (const auto& r : project.runs)
        if (r.done() && isMethod(r.run, m))
            if (double c = r.metric("cosine-to-lambda-star"); !std::isnan(c)) values.push_back(c);
    if (values.empty()) return std::nullopt;
    return meanAndStd(values).first;
}

const project::SourceRecord* sensitiveSource(const ProjectSnapshot& project) {
    for (const auto& s : project.sources)
        if (s.role == project::SourceRole::Sensitive) return &s;
    return nullptr;
}

// What one unit of split A is, in the plural: "examples", or at user level the spec's name for
// its users ("patients" for a user column "Patient").
QString splitUnits(const ProjectSnapshot& project) {
    return project.spec.sensitive.userLevel ? unitLabelOf(project.spec) : QObject::tr("examples");
}

// What split A holds, roughly: ρ of the 80% training part (the splits are drawn per unit).
long long splitAEstimate(const ProjectSnapshot& project) {
    const auto* s = sensitiveSource(project);
    if (!s) return 0;
    const long long units = project.spec.sensitive.userLevel && s->facts.users > 0 ? s->facts.users : s->facts.examples;
    return std::llround(static_cast<double>(units) * 0.8 * project.spec.privacy.rho);
}

const project::ResultSummaryRow* rowOf(const std::vector<project::ResultSummaryRow>& rows, methods::Method m,
                                       double e) {
    for (const auto& r : rows)
        if (r.method == methods::nameOf(m) && std::abs(r.epsilon - e) <= 1e-12 * std::max(1.0, e)) return &r;
    return nullptr;
}

QString psgSentence(const ProjectSnapshot& project) {
    const auto runs = privateSetRuns(project);
    if (runs.empty()) return {};
    const RunResults& run = *runs.front();
    QStringList parts;
    for (const auto& line : psgAccuracyLines(project, run))
        parts << QObject::tr("%1 with %2: %3").arg(line.trainedOn, line.network, accuracyText(line.values));
    return QObject::tr("Private set (run %1, ε = %2): test accuracy of networks trained on it and the references — %3.")
        .arg(run.run.id)
        .arg(run.run.epsilon ? num(*run.run.epsilon, 2) : QStringLiteral("?"))
        .arg(parts.join(QStringLiteral("; ")));
}

}  // namespace

std::vector<MixtureComparison> mixtureComparisons(const ProjectSnapshot& project) {
    std::vector<MixtureComparison> out;
    const auto uniform = meanCosineOf(project, methods::Method::Uniform);
    const auto randomSearch = meanCosineOf(project, methods::Method::RandomSearch);
    for (double e : runEpsilons(project)) {
        std::vector<double> values;
        for (const auto& r : project.runs)
            if (r.done() && isMethod(r.run, methods::Method::DpMixMin) && sameEpsilon(r.run.epsilon, e))
                if (double c = r.metric("cosine-to-lambda-star"); !std::isnan(c)) values.push_back(c);
        if (values.empty()) continue;
        const auto [mean, sd] = meanAndStd(values);
        out.push_back({e, static_cast<int>(values.size()), mean, sd, uniform, randomSearch});
    }
    return out;
}

std::vector<project::ResultSummaryRow> downstreamRows(const ProjectSnapshot& project) {
    for (const char* metric : {"test-auc", "test-perplexity"}) {
        const auto observations = storedResultsOf(project, metric);
        if (!observations.empty()) return project::summarizeResults(observations);
    }
    return {};
}

int seededRunCount(const ProjectSnapshot& project) {
    int seeded = 0;
    for (const auto& r : project.runs) seeded += isSeededRun(r) ? 1 : 0;
    return seeded;
}

std::vector<ChosenMixture> chosenMixtures(const ProjectSnapshot& project) {
    std::vector<std::string> tasks;
    for (const auto& r : project.runs)
        if (isMethod(r.run, methods::Method::DpMixMin) &&
            std::find(tasks.begin(), tasks.end(), r.run.task) == tasks.end())
            tasks.push_back(r.run.task);
    const auto& specEpsilons = project.spec.privacy.epsilons;
    auto atSpec = [&](const RunResults* r) {
        return !specEpsilons.empty() && sameEpsilon(r->run.epsilon, specEpsilons.front());
    };
    std::vector<ChosenMixture> out;
    for (const auto& task : tasks) {
        const RunResults* chosen = nullptr;
        for (const auto& r : project.runs) {
            if (r.run.task != task || !isMethod(r.run, methods::Method::DpMixMin) || !r.run.epsilon || !r.done() ||
                !r.lambda("private"))
                continue;
            if (!chosen || (atSpec(&r) && !atSpec(chosen)) ||
                (!atSpec(chosen) && !atSpec(&r) && *r.run.epsilon > *chosen->run.epsilon))
                chosen = &r;
        }
        if (!chosen) continue;
        const project::LambdaRecord& lambda = *chosen->lambda("private");
        std::vector<std::size_t> order(lambda.values.size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t a, std::size_t b) { return lambda.values[a] > lambda.values[b]; });
        ChosenMixture m{task, chosen, {}};
        double rest = 0.0;
        int others = 0;
        for (std::size_t i : order) {
            const QString name =
                i < lambda.names.size() ? QString::fromStdString(lambda.names[i]) : QString::number(i + 1);
            if (lambda.values[i] >= 0.05 && m.parts.size() < 4) {
                m.parts << QStringLiteral("%1 %2").arg(name, num(lambda.values[i]));
            } else {
                rest += lambda.values[i];
                ++others;
            }
        }
        if (others > 0) m.parts << QObject::tr("%1 other(s) %2 together").arg(others).arg(num(rest));
        out.push_back(std::move(m));
    }
    return out;
}

namespace {

// A DP release holds DP-MixMin's λ and its ledger but rightly not λ* or the baselines (computed on
// the sensitive data without privacy), so it is read by what it holds, not by a comparison.
QStringList releaseSentences(const ProjectSnapshot& project) {
    QStringList sentences;
    const auto mixtures = chosenMixtures(project);
    if (mixtures.empty()) {
        sentences << QObject::tr("This DP release holds no finished DP-MixMin mixture.");
        return sentences;
    }
    for (const ChosenMixture& m : mixtures) {
        const QString task =
            m.task.empty() ? QString() : QObject::tr(" for task %1").arg(QString::fromStdString(m.task));
        sentences << QObject::tr("This DP release holds DP-MixMin's mixture%1 at ε = %2 (run %3): %4.")
                         .arg(task, eps(*m.run->run.epsilon))
                         .arg(m.run->run.id)
                         .arg(m.parts.join(QStringLiteral(", ")));
    }
    sentences << QObject::tr(
        "Pretrain on the public data in these proportions. A release leaves out λ* and the baselines (they are "
        "computed on the sensitive data without privacy), so how close the mixture is to the non-private "
        "optimum is read in the data owner's project, not here.");
    return sentences;
}

// The ε a verdict speaks of, among those with results (ascending): the study's own target (the
// spec's first ε) when it has results — a sweep's largest ε is not the study's answer — else the
// largest. With others beside it, the sentence says where they are read.
double verdictEpsilon(const std::vector<double>& available, const project::ProjectSpec& spec) {
    if (!spec.privacy.epsilons.empty()) {
        const double target = spec.privacy.epsilons.front();
        for (double e : available)
            if (std::abs(e - target) <= 1e-9 * std::max(1.0, target)) return e;
    }
    return available.back();
}

QString otherEpsilonsNote(std::size_t available) {
    return available > 1 ? QObject::tr(" (results at %1 values of ε: the Trade-off and AUC vs ε tabs show them all)")
                               .arg(available)
                         : QString();
}

// The downstream comparison at the verdict's ε: the DP methods side by side, then the non-private
// references apart with their ε = ∞, and said when one of them did better than DP-MixMin (it is
// an upper reference, not a result that could be released). Beside the DP methods, whether
// DP-MixMin beat each baseline beyond seed noise (regime_verdict.h).
QString downstreamSentence(const ProjectSnapshot& project) {
    const std::vector<project::ResultSummaryRow> rows = downstreamRows(project);
    const project::ProjectSpec& spec = project.spec;
    if (rows.empty()) return {};
    std::vector<double> available;
    for (const auto& r : rows)
        if (available.empty() || r.epsilon != available.back()) available.push_back(r.epsilon);
    std::sort(available.begin(), available.end());
    available.erase(std::unique(available.begin(), available.end()), available.end());
    const double e = verdictEpsilon(available, spec);
    QStringList dp, references;
    const project::ResultSummaryRow* dpMixMin = rowOf(rows, methods::Method::DpMixMin, e);
    const project::ResultSummaryRow* bestReference = nullptr;
    for (methods::Method m : {methods::Method::DpMixMin, methods::Method::Uniform, methods::Method::RandomInit,
                              methods::Method::NonPrivateMixMin, methods::Method::RandomSearch}) {
        const auto* r = rowOf(rows, m, e);
        if (!r) continue;
        const QString part = QStringLiteral("%1 %2").arg(methodLabel(r->method), pm(r->mean, r->std, r->seeds, 3));
        if (methods::isNonPrivateChoice(r->method)) {
            references << part;
            if (!bestReference || r->mean > bestReference->mean) bestReference = r;
        } else {
            dp << part;
        }
    }
    QString sentence;
    if (!dp.isEmpty())
        sentence = QObject::tr("Downstream at ε = %1%3 (macro test metric, mean ± std over seeds): %2.")
                       .arg(eps(e), dp.join(QStringLiteral(", ")), otherEpsilonsNote(available.size()));
    if (const QString verdict = baselineVerdictAt(project, e); !verdict.isEmpty())
        sentence += (sentence.isEmpty() ? QString() : QStringLiteral(" ")) + verdict;
    if (!references.isEmpty())
        sentence += (sentence.isEmpty() ? QString() : QStringLiteral(" ")) +
                    QObject::tr(
                        "Non-private references (ε = ∞: their λ was chosen on the sensitive data without "
                        "privacy; fine-tuned at ε = %1): %2.")
                        .arg(eps(e), references.join(QStringLiteral(", ")));
    if (dpMixMin && bestReference && bestReference->mean > dpMixMin->mean)
        sentence += QStringLiteral(" ") +
                    QObject::tr(
                        "%1 did better than DP-MixMin (%2 vs %3), but it is no DP "
                        "result: it shows what choosing λ without privacy would gain.")
                        .arg(methodLabel(bestReference->method), num(bestReference->mean, 3), num(dpMixMin->mean, 3));
    return sentence;
}

// Runs whose pretrained model collapsed before fine-tuning (their metric pretraining-collapsed;
// docs/RESULTS.md, "The collapsed pretraining"): their downstream result says nothing of their λ.
QString collapsedPretrainingSentence(const ProjectSnapshot& project) {
    QStringList ids;
    for (const auto& r : project.runs)
        if (r.done() && std::any_of(r.metrics.begin(), r.metrics.end(),
                                    [](const auto& m) { return m.name == "pretraining-collapsed"; }))
            ids << QString::number(r.run.id);
    if (ids.isEmpty()) return {};
    return QObject::tr(
               "Pretraining collapsed in run(s) %1: the pretrained model's outputs on public images were "
               "constant, saturated or not finite, so the downstream result measures that failure, not the "
               "mixture.")
        .arg(ids.join(QStringLiteral(", ")));
}

}  // namespace

QString studyVerdict(const ProjectSnapshot& project) {
    QStringList sentences;
    const bool mixtureStudy = !project.spec.publicSources.empty();
    const auto comparisons = mixtureComparisons(project);
    if (mixtureStudy && comparisons.empty() && project.trust.release)
        sentences << releaseSentences(project);
    else if (mixtureStudy && comparisons.empty())
        sentences << QObject::tr(
                         "No mixture has been learned yet: Run ▸ Run DP-MixMin learns one on split A (about %1 "
                         "%2 at ρ = %3), and Compare with baselines adds the downstream models.")
                         .arg(splitAEstimate(project))
                         .arg(splitUnits(project))
                         .arg(project.spec.privacy.rho);
    if (!comparisons.empty()) {
        std::vector<double> available;
        for (const auto& m : comparisons) available.push_back(m.epsilon);
        const double at = verdictEpsilon(available, project.spec);
        const MixtureComparison& c =
            *std::find_if(comparisons.begin(), comparisons.end(), [&](const auto& m) { return m.epsilon == at; });
        const QString dp = pm(c.privateCosine, c.privateCosineStd, c.runs);
        if (!c.uniformCosine) {
            sentences << QObject::tr(
                             "At ε = %1 DP-MixMin's mixture has cosine %2 to the non-private optimum λ* (%3 runs); "
                             "run Compare with baselines to see uniform weights beside it.")
                             .arg(eps(c.epsilon))
                             .arg(dp)
                             .arg(c.runs);
        } else if (c.privateCosine - c.privateCosineStd > *c.uniformCosine) {
            sentences << QObject::tr(
                             "At ε = %1 DP-MixMin's mixture is closer to the non-private optimum λ* than uniform "
                             "weights are (cosine %2 vs %3): the private choice is worth its ε.")
                             .arg(eps(c.epsilon), dp, num(*c.uniformCosine));
        } else {
            sentences << QObject::tr(
                             "At ε = %1 with split A of about %2 %3, DP-MixMin's mixture is no closer to λ* "
                             "than uniform weights (cosine %4 vs %5): raise ε or ρ, or pretrain on uniform "
                             "weights.")
                             .arg(eps(c.epsilon))
                             .arg(splitAEstimate(project))
                             .arg(splitUnits(project), dp, num(*c.uniformCosine));
        }
    }
    if (comparisons.size() > 1)
        sentences << QObject::tr("Mixtures were learned at %1 values of ε; the Trade-off tab plots them all.")
                         .arg(comparisons.size());
    if (const QString downstream = downstreamSentence(project); !downstream.isEmpty()) sentences << downstream;
    if (const QString collapsed = collapsedPretrainingSentence(project); !collapsed.isEmpty()) sentences << collapsed;
    if (const QString psg = psgSentence(project); !psg.isEmpty())
        sentences << psg;
    else if (project.spec.psg && !mixtureStudy)
        sentences << QObject::tr(
            "No private set yet: Run ▸ Generate private set (PSG)… learns one from the sensitive "
            "images.");
    return sentences.join(QLatin1Char(' '));
}

QString summaryTablesHtml(const ProjectSnapshot& project) {
    QString h;
    if (const auto comparisons = mixtureComparisons(project); !comparisons.empty()) {
        h += QObject::tr(
            "<h3>Mixture: cosine similarity to λ*</h3><table border='1' cellpadding='4' cellspacing='0'>"
            "<tr><th>ε</th><th>runs</th><th>DP-MixMin</th><th>uniform</th><th>random search (not "
            "private)</th></tr>");
        for (const auto& c : comparisons)
            h += QStringLiteral("<tr><td>%1</td><td>%2</td><td>%3</td><td>%4</td><td>%5</td></tr>")
                     .arg(num(c.epsilon, 3))
                     .arg(c.runs)
                     .arg(pm(c.privateCosine, c.privateCosineStd, c.runs))
                     .arg(c.uniformCosine ? num(*c.uniformCosine) : QStringLiteral("—"))
                     .arg(c.randomSearchCosine ? num(*c.randomSearchCosine) : QStringLiteral("—"));
        h += QStringLiteral("</table>");
    }
    if (const auto rows = downstreamRows(project); !rows.empty()) {
        h += QObject::tr(
            "<h3>Downstream: macro test metric</h3><table border='1' cellpadding='4' cellspacing='0'>"
            "<tr><th>ε</th><th>method</th><th>mean ± std</th><th>seeds</th></tr>");
        // A non-private choice of λ makes the pipeline's ε infinite, whatever its fine-tuning's.
        for (const auto& r : rows)
            h += QStringLiteral("<tr><td>%1</td><td>%2</td><td>%3</td><td>%4</td></tr>")
                     .arg(methods::isNonPrivateChoice(r.method)
                              ? QObject::tr("∞ (fine-tuned at %1)").arg(num(r.epsilon, 3))
                              : num(r.epsilon, 3),
                          methodLabel(r.method).toHtmlEscaped(), pm(r.mean, r.std, r.seeds, 3))
                     .arg(r.seeds);
        h += QStringLiteral("</table>");
    }
    if (const auto psg = privateSetRuns(project); !psg.empty()) {
        h += QObject::tr(
                 "<h3>Private set (run %1)</h3><table border='1' cellpadding='4' cellspacing='0'>"
                 "<tr><th>trained on</th><th>network</th><th>test accuracy</th></tr>")
                 .arg(psg.front()->run.id);
        for (const auto& line : psgAccuracyLines(project, *psg.front()))
            h += QStringLiteral("<tr><td>%1</td><td>%2</td><td>%3</td></tr>")
                     .arg(line.trainedOn.toHtmlEscaped(), line.network, accuracyText(line.values));
        h += QStringLiteral("</table>");
    }
    return h;
}

QString studySummaryHtml(const ProjectSnapshot& project) {
    QString h;
    h += QStringLiteral("<h2>%1</h2>").arg(html(project.spec.name));
    if (!project.spec.description.empty()) h += QStringLiteral("<p><i>%1</i></p>").arg(html(project.spec.description));
    h += QStringLiteral("<p style='font-size: large'><b>%1</b></p>").arg(studyVerdict(project).toHtmlEscaped());

    h += QObject::tr("<h3>Data and unit of privacy</h3><ul>");
    if (const auto* s = sensitiveSource(project)) {
        h += QObject::tr("<li>Sensitive: <b>%1</b>, %2 examples%3; the guarantee protects one <b>%4</b>.</li>")
                 .arg(html(s->name))
                 .arg(s->facts.examples)
                 .arg(s->facts.users > 0 ? QObject::tr(" of %1 %2")
                                               .arg(s->facts.users)
                                               .arg(project.spec.sensitive.userLevel ? unitLabelOf(project.spec)
                                                                                     : QObject::tr("users"))
                                         : QString())
                 .arg(project.spec.sensitive.userLevel ? unitLabelOf(project.spec).chopped(1) : QObject::tr("example"));
    }
    if (project.spec.publicSources.empty()) {
        h += QObject::tr("<li>No public data: this study runs Private Set Generation only.</li>");
    } else {
        QStringList names;
        for (const auto& s : project.spec.publicSources) names << html(s.written.name);
        h += QObject::tr("<li>Public: %1; k = %2 mixture components.</li>")
                 .arg(names.join(", "))
                 .arg(project.spec.mixtureComponents(project::publicLabelCounts(project.sources)));
    }
    QStringList tasks;
    for (const auto& t : project.spec.sensitiveTasks) tasks << html(t.name);
    if (!tasks.isEmpty()) h += QObject::tr("<li>Sensitive tasks: %1.</li>").arg(tasks.join(", "));
    h += QStringLiteral("</ul>");

    h += QObject::tr("<h3>Privacy</h3><ul>");
    if (auto reading = budgetReadingOf(project); reading && reading->releases == 0) {
        h += QObject::tr("<li>No DP release yet: nothing spent on %1%2.</li>")
                 .arg(reading->dataset.toHtmlEscaped())
                 .arg(reading->cap ? QObject::tr(" (cap %1)").arg(num(*reading->cap, 3)) : QObject::tr(" (no cap)"));
    } else if (reading) {
        h += QObject::tr("<li>%1 DP release(s) spent ε = <b>%2</b> at δ = %3 on %4 together%5.</li>")
                 .arg(reading->releases)
                 .arg(std::isinf(reading->spent) ? QStringLiteral("∞") : num(reading->spent, 3))
                 .arg(reading->delta, 0, 'g', 3)
                 .arg(reading->dataset.toHtmlEscaped())
                 .arg(reading->cap ? QObject::tr(" (cap %1)").arg(num(*reading->cap, 3)) : QObject::tr(" (no cap)"));
        // Seeded runs spend budget (their mechanism ran on the data) but release nothing: say so
        // beside the count, so "5 DP releases" never stands for 1 release and 4 reproducible runs.
        if (const int seeded = seededRunCount(project); seeded > 0)
            h += QObject::tr(
                     "<li>%1 of them ran in reproducible mode (seeded randomness): no release — their noise can "
                     "be re-derived from the seed stored in this file — though the budget counts what they spent.</li>")
                     .arg(seeded);
        if (reading->notCounted > 0)
            h += QObject::tr(
                     "<li>%1 run(s) are no DP release (non-private references, audits): keep them inside the "
                     "trust boundary.</li>")
                     .arg(reading->notCounted);
    }
    if (!project.trust.headline.isEmpty())
        h += QStringLiteral("<li>%1</li>").arg(project.trust.headline.toHtmlEscaped());
    h += QStringLiteral("</ul>");

    h += summaryTablesHtml(project);
    h += QObject::tr("<p>The other tabs show each part in detail; Help ▸ Glossary explains the words.</p>");
    return h;
}

StudySummaryView::StudySummaryView(ProjectSnapshot project, QWidget* parent)
    : QWidget(parent),
      project_(std::move(project)),
      page_(new QTextBrowser),
      verify_(new QPushButton(tr("&Verify all"))),
      result_(new QLabel) {
    verify_->setToolTip(
        tr("Recompute the ε of every ledger entry of every run from its recorded parameters and "
           "recheck the project's hash chain"));
    setWhatsThis(viewWhatsThis(ResultView::StudySummary));
    result_->setWordWrap(true);
    result_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    page_->setOpenExternalLinks(false);
    page_->setHtml(studySummaryHtml(project_));
    auto* top = new QHBoxLayout;
    top->addWidget(verify_);
    top->addWidget(result_, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(page_, 1);
    connect(verify_, &QPushButton::clicked, this, [this] { verifyAll(); });
}

QString StudySummaryView::verifyAll() {
    long long entries = 0;
    QStringList problems;
    for (const auto& run : project_.runs) {
        const RunLedgerCheck check = checkRunLedgers(run);
        entries += check.entriesChecked;
        for (const QString& p : check.problems) problems << tr("run %1: %2").arg(run.run.id).arg(p);
    }
    const ChainCheck chain = checkProjectChain(project_.path);
    const bool ok = problems.isEmpty() && chain.ok;
    const QString line = ok ? tr("✔ %1 ledger entries recomputed and matching; %2").arg(entries).arg(chain.text)
                            : tr("✘ %1").arg((problems + QStringList{chain.ok ? QString() : chain.text}).join("; "));
    result_->setText(line);
    result_->setStyleSheet(ok ? QStringLiteral("color: #1b7f3a;") : QStringLiteral("color: #b00020;"));
    return line;
}

}  // namespace dpmix::workbench
