#include "app/workbench/views/report_writer.h"
#include "app/workbench/views/ledger_cells.h"
#include "app/workbench/views/report_html.h"
#include "app/workbench/views/report_runs.h"

#include "app/workbench/runs/budget_reading.h"

#include "app/workbench/project/ledger_check.h"
#include "app/workbench/views/result_data.h"
#include "app/workbench/views/study_summary.h"
#include "engine/methods/method_plan.h"
#include "engine/privacy/ledger_json.h"
#include "engine/project/project_budget.h"
#include "engine/project/spec_json.h"

#include <QBuffer>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QPageLayout>
#include <QPageSize>
#include <QPrinter>
#include <QSaveFile>
#include <QTextDocument>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace dpmix::workbench {

namespace {
using report::esc;
using report::ok;
using report::row;

QString imageSource(const ReportPlot& plot, int index, PlotImages images) {
    if (images == PlotImages::Resources) return QStringLiteral("plot-%1.png").arg(index);
    QByteArray png;
    QBuffer buffer(&png);
    buffer.open(QIODevice::WriteOnly);
    plot.image.save(&buffer, "PNG");
    return QStringLiteral("data:image/png;base64,") + QString::fromLatin1(png.toBase64());
}

// JSON indented by object, with every value whose one-line form is short kept on one line (a
// task's class list, a source's options): the spec reads as a hand-written one, in a few pages.
std::string oneLine(const nlohmann::ordered_json& value) {
    if (!value.is_structured()) return value.dump();
    std::string out = value.is_object() ? "{" : "[";
    for (auto it = value.begin(); it != value.end(); ++it) {
        if (it != value.begin()) out += ", ";
        if (value.is_object()) out += nlohmann::ordered_json(it.key()).dump() + ": ";
        out += oneLine(*it);
    }
    return out + (value.is_object() ? "}" : "]");
}

void writeCompact(const nlohmann::ordered_json& value, int indent, std::string& out) {
    const std::string line = oneLine(value);
    if (!value.is_structured() || value.empty() || line.size() + static_cast<std::size_t>(indent) <= 96) {
        out += line;
        return;
    }
    const bool object = value.is_object();
    out += object ? "{\n" : "[\n";
    std::size_t i = 0;
    for (auto it = value.begin(); it != value.end(); ++it, ++i) {
        out.append(static_cast<std::size_t>(indent + 2), ' ');
        if (object) out += nlohmann::ordered_json(it.key()).dump() + ": ";
        writeCompact(*it, indent + 2, out);
        out += i + 1 < value.size() ? ",\n" : "\n";
    }
    out.append(static_cast<std::size_t>(indent), ' ');
    out += object ? "}" : "]";
}

QString compactJson(const std::string& text) {
    // Ordered: the spec's own key order (name first), not sorted.
    const auto parsed = nlohmann::ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded()) return QString::fromStdString(text);
    std::string out;
    writeCompact(parsed, 0, out);
    return QString::fromStdString(out);
}

/// One line per run: what it is, the ε its ledger composes to, and whether that verifies.
// "(ε, δ) per release": the counted DP releases grouped by stage, split and δ, each with its ε's
// and how many releases had it ("mixture, split A: ε 0.25 ×4, 1 ×5 at δ = 1e-05").
QString releasesText(const ProjectSnapshot& p) {
    std::vector<project::RunLedgers> runs;
    for (const auto& r : p.runs) runs.push_back({r.run, r.ledgers});
    auto budget = project::budgetOf(p.spec, runs);
    if (!budget) return ok(false, QString::fromStdString(budget.error().message));
    struct Group {
        std::string stage, split;
        double delta = 0.0;
        std::vector<std::pair<double, int>> epsilons;  // ε, releases
    };
    std::vector<Group> groups;
    for (const auto& release : budget->releases) {
        const auto& e = release.entry;
        auto g = std::find_if(groups.begin(), groups.end(), [&](const Group& x) {
            return x.stage == e.stage && x.split == e.split && x.delta == e.delta;
        });
        if (g == groups.end()) g = groups.insert(groups.end(), Group{e.stage, e.split, e.delta, {}});
        auto same = std::find_if(g->epsilons.begin(), g->epsilons.end(), [&](const auto& x) {
            return std::abs(x.first - e.epsilon) <= 1e-9 * std::max(1.0, e.epsilon);
        });
        if (same == g->epsilons.end())
            g->epsilons.push_back({e.epsilon, 1});
        else
            ++same->second;
    }
    if (groups.empty()) return QStringLiteral("no DP release yet");
    QStringList lines;
    for (auto& g : groups) {
        std::sort(g.epsilons.begin(), g.epsilons.end());
        QStringList parts;
        for (const auto& [epsilon, count] : g.epsilons)
            parts << QStringLiteral("%1 ×%2").arg(QString::number(epsilon, 'g', 4)).arg(count);
        lines << QStringLiteral("%1, split %2: ε %3 at δ = %4")
                     .arg(esc(g.stage), esc(g.split), parts.join(QStringLiteral(", ")),
                          QString::number(g.delta, 'g', 3));
    }
    return lines.join(QStringLiteral("<br>"));
}

// The mixture the study chose per task: DP-MixMin's λ at the spec's first ε (else the largest
// ε run), its first seed; the components of weight ≥ 0.05, the rest summed.
QString chosenMixtureText(const ProjectSnapshot& p) {
    QStringList lines;
    for (const ChosenMixture& m : chosenMixtures(p)) {
        QStringList parts;
        for (const QString& part : m.parts) parts << esc(part);
        lines << QStringLiteral("<b>%1</b> (ε = %2, seed %3, run %4): %5")
                     .arg(esc(m.task), ledgerNumber(*m.run->run.epsilon))
                     .arg(m.run->run.seed)
                     .arg(m.run->run.id)
                     .arg(parts.join(QStringLiteral(" · ")));
    }
    return lines.isEmpty() ? QStringLiteral("no DP-MixMin mixture yet") : lines.join(QStringLiteral("<br>"));
}

// The downstream models against the baselines at the spec's first ε (else the largest).
QString downstreamText(const ProjectSnapshot& p) {
    const auto rows = downstreamRows(p);
    if (rows.empty()) return QStringLiteral("no downstream models yet (Run ▸ Compare with baselines)");
    double epsilon = rows.back().epsilon;
    if (!p.spec.privacy.epsilons.empty())
        for (const auto& r : rows)
            if (std::abs(r.epsilon - p.spec.privacy.epsilons.front()) <= 1e-12 * std::max(1.0, r.epsilon))
                epsilon = r.epsilon;
    bool auc = false;
    for (const auto& r : p.runs)
        for (const auto& m : r.metrics) auc |= m.name == "test-auc";
    QStringList parts;
    int seeds = 0;
    for (const auto& r : rows)
        if (std::abs(r.epsilon - epsilon) <= 1e-12 * std::max(1.0, epsilon)) {
            parts << QStringLiteral("%1 %2").arg(esc(methodLabel(r.method)), QString::number(r.mean, 'f', 3));
            seeds = std::max(seeds, static_cast<int>(r.seeds));
        }
    return QStringLiteral("%1 at ε = %2 (mean over %3 seed(s)): %4")
        .arg(auc ? QStringLiteral("macro test AUC") : QStringLiteral("test perplexity"), ledgerNumber(epsilon))
        .arg(seeds)
        .arg(parts.join(QStringLiteral(" · ")));
}

// The first page's table: the study, what one ε protects, the releases and their total, the
// chosen mixture, the downstream comparison and the verification.
QString atAGlanceHtml(const ProjectSnapshot& p, const QString& verification) {
    QString html = QStringLiteral("<table border='1' cellspacing='0' cellpadding='4' width='100%'>\n");
    auto line = [&](const QString& key, const QString& value) {
        html +=
            QStringLiteral("<tr><th align='left' style='white-space:nowrap'>%1</th><td>%2</td></tr>\n").arg(key, value);
    };
    QStringList publicNames, taskNames;
    for (const auto& s : p.spec.publicSources) publicNames << esc(s.written.name);
    for (const auto& t : p.spec.sensitiveTasks) taskNames << esc(t.name);
    QString study = QStringLiteral("<b>%1</b>").arg(esc(p.spec.name));
    if (!publicNames.isEmpty())
        study += QStringLiteral("; public data %1 (k = %2 mixture components)")
                     .arg(publicNames.join(", "))
                     .arg(p.spec.mixtureComponents(project::publicLabelCounts(p.sources)));
    if (!taskNames.isEmpty()) study += QStringLiteral("; sensitive tasks %1").arg(taskNames.join(", "));
    line(QStringLiteral("Study"), study);
    const project::SourceRecord* sensitive = nullptr;
    for (const auto& s : p.sources)
        if (s.role == project::SourceRole::Sensitive) sensitive = &s;
    const QString units = unitLabelOf(p.spec);
    if (sensitive) {
        const bool users = p.spec.sensitive.userLevel;
        line(QStringLiteral("Unit of privacy"),
             users ? QStringLiteral("one <b>%1</b> (all of its examples) of %2: %3 %4, %5 examples")
                         .arg(units.chopped(1), esc(sensitive->name))
                         .arg(sensitive->facts.users)
                         .arg(units)
                         .arg(sensitive->facts.examples)
                   : QStringLiteral("one <b>example</b> of %1 (%2 examples)")
                         .arg(esc(sensitive->name))
                         .arg(sensitive->facts.examples));
    }
    line(QStringLiteral("(ε, δ) per release"), releasesText(p));
    if (auto budget = budgetReadingOf(p))
        line(QStringLiteral("Total spent"),
             QStringLiteral("ε = <b>%1</b> at δ = %2 over %3 DP release(s), composed by the accountant%4")
                 .arg(std::isinf(budget->spent) ? QStringLiteral("∞") : QString::number(budget->spent, 'f', 3))
                 .arg(budget->delta, 0, 'g', 3)
                 .arg(budget->releases)
                 .arg(budget->cap ? QStringLiteral(" (cap %1)").arg(ledgerNumber(*budget->cap))
                                  : QStringLiteral(" (no cap)")));
    if (!p.spec.publicSources.empty()) line(QStringLiteral("Chosen mixture (DP-MixMin λ)"), chosenMixtureText(p));
    line(QStringLiteral("Downstream vs baselines"), downstreamText(p));
    line(QStringLiteral("Verification"), verification);
    return html + QStringLiteral("</table>\n");
}
}  // namespace

namespace {

// Every run's ledgers recomputed and the project's hash chain checked: the report's verdict.
struct LedgerVerification {
    ChainCheck chain;
    long long entries = 0;  // ledger entries whose ε was recomputed
    QStringList problems;   // "run 7": runs whose ledgers do not verify
    bool ok() const { return problems.isEmpty() && chain.ok; }
};

LedgerVerification verifyLedgers(const ProjectSnapshot& p) {
    LedgerVerification v{checkProjectChain(p.path)};
    for (const auto& r : p.runs) {
        const RunLedgerCheck check = checkRunLedgers(r);
        v.entries += check.entriesChecked;
        if (!check.ok) v.problems << QStringLiteral("run %1").arg(r.run.id);
    }
    return v;
}

// First page: the verdict, the study at a glance (unit of privacy, (ε, δ) per release, total
// spent, chosen mixture, downstream against the baselines, verified), the description and whether
// every ledger verifies.
QString firstPageHtml(const ProjectSnapshot& p, const LedgerVerification& v) {
    QString html;
    html += QStringLiteral("<h2>Summary</h2>\n<p><b>%1</b></p>\n").arg(studyVerdict(p).toHtmlEscaped());
    html +=
        atAGlanceHtml(p, v.ok() ? QStringLiteral("<span style='color:#1a7f37'><b>verified ✓</b></span> — every "
                                                 "ledger's %1 ε recomputed from the recorded parameters; %2")
                                      .arg(v.entries)
                                      .arg(esc(v.chain.text))
                                : ok(false, QStringLiteral("not verified: %1%2")
                                                .arg(v.problems.join(", "))
                                                .arg(v.chain.ok ? QString() : QStringLiteral("; ") + v.chain.text)));
    if (!p.spec.description.empty()) html += QStringLiteral("<p><i>%1</i></p>\n").arg(esc(p.spec.description));
    html +=
        QStringLiteral("<p>%1</p>\n")
            .arg(v.ok() ? ok(true,
                             QStringLiteral("Every ledger verifies (%1 ε recomputed from the recorded parameters); %2")
                                 .arg(v.entries)
                                 .arg(v.chain.text))
                        : ok(false, QStringLiteral("Discrepancies: %1%2")
                                        .arg(v.problems.join(", "))
                                        .arg(v.chain.ok ? QString() : QStringLiteral("; ") + v.chain.text)));
    return html;
}

// What sharing this file (and this report) shares — the trust verdict — and the privacy budget
// of the sensitive data, over every DP release stored.
QString trustAndBudgetHtml(const ProjectSnapshot& p) {
    QString html;
    const bool inside = !p.trust.known || !p.trust.dpOnly;
    html += QStringLiteral(
                "<h2>Trust boundary</h2>\n<p style='padding:6px;border:1px solid %1;background:%2'><b>%3</b> %4</p>\n")
                .arg(inside ? QStringLiteral("#e0c36b") : QStringLiteral("#8fc9a9"),
                     inside ? QStringLiteral("#fff3cd") : QStringLiteral("#d1e7dd"),
                     inside ? QStringLiteral("Keep this file and this report inside the data owner's trust boundary.")
                            : (p.trust.release ? QStringLiteral("DP release.") : QStringLiteral("DP releases only.")),
                     p.trust.headline.toHtmlEscaped());
    if (auto budget = budgetReadingOf(p)) {
        const QString spent = std::isinf(budget->spent) ? QStringLiteral("∞") : QString::number(budget->spent, 'f', 3);
        html += QStringLiteral(
                    "<h2>Privacy budget</h2>\n<p><b>%1</b> (unit: %2): ε <b>%3</b> at δ = %4 over %5 DP "
                    "release(s)%6, composed by the RDP accountant (releases on one split add; the two sides of a ρ "
                    "split cost their larger; other splits add). Not counted: %7 run(s) that are no DP release "
                    "(non-private baselines, audits) and the test-set metrics (for the analyst).</p>\n")
                    .arg(esc(p.spec.sensitive.written.name), budget->unit, spent)
                    .arg(budget->delta, 0, 'g', 3)
                    .arg(budget->releases)
                    .arg(budget->cap ? QStringLiteral(", against a cap of %1").arg(*budget->cap) : QString())
                    .arg(budget->notCounted);
    } else {
        html += QStringLiteral("<h2>Privacy budget</h2>\n<p>%1</p>\n")
                    .arg(ok(false, QString::fromStdString(budget.error().message)));
    }

    return html;
}

// The software's versions, the file's integrity and the data sources with their content hashes.
QString softwareAndSourcesHtml(const ReportInput& input, const ChainCheck& chain) {
    const ProjectSnapshot& p = input.project;
    QString html;
    html += QStringLiteral("<h2>Software</h2>\n<table border='1' cellspacing='0' cellpadding='3'>\n");
    html += row({"dpmix", esc(input.versions.appVersion)}) + row({"Qt", esc(input.versions.qtVersion)}) +
            row({"LibTorch", esc(input.versions.torchVersion)}) +
            row({"project-file schema", esc(input.versions.schemaVersion)}) + QStringLiteral("</table>\n");

    html += QStringLiteral("<h2>Integrity</h2>\n<p>%1</p>\n").arg(ok(chain.ok, chain.text));

    html += QStringLiteral("<h2>Data sources</h2>\n<table border='1' cellspacing='0' cellpadding='3'>\n");
    html += row({"role", "name", "loader", "path", "kind", "examples", "users", "content hash (SHA-256)"}, "th");
    for (const auto& s : p.sources)
        html +=
            row({esc(project::nameOf(s.role)), esc(s.name), esc(s.loader), esc(s.path), esc(data::nameOf(s.facts.kind)),
                 QString::number(s.facts.examples), s.userLevel ? QString::number(s.facts.users) : QStringLiteral("—"),
                 QStringLiteral("<code>%1</code>").arg(esc(s.facts.contentHash))});
    html += QStringLiteral("</table>\n");

    return html;
}

// The plots, each on a page of its own.
QString plotsHtml(const QList<ReportPlot>& plots, PlotImages images) {
    QString html;
    if (!plots.isEmpty()) {
        html += QStringLiteral("<h2 style='page-break-before: always'>Plots</h2>\n");
        for (int i = 0; i < plots.size(); ++i) {
            const ReportPlot& plot = plots[i];
            // A fixed width keeps large hi-DPI grabs inside the page.
            const int width = std::min(900, plot.image.width());
            // Each plot starts a page (the first one with the section's heading), so a heading is
            // never left at the foot of the page before its plot.
            html += QStringLiteral("<h3%4>%1</h3>\n<p><img src='%2' width='%3' alt='%1'></p>\n")
                        .arg(esc(plot.title), imageSource(plot, i, images))
                        .arg(width)
                        .arg(i == 0 ? QString() : QStringLiteral(" style='page-break-before: always'"));
        }
    }

    return html;
}

}  // namespace

QString reportHtml(const ReportInput& input, PlotImages images) {
    const ProjectSnapshot& p = input.project;
    const QString title = QStringLiteral("dpmix study report: %1")
                              .arg(esc(p.spec.name.empty() ? QFileInfo(p.path).fileName().toStdString() : p.spec.name));
    QString html = QStringLiteral(
                       "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>%1</title>\n"
                       "<style>body{font-family:sans-serif;max-width:1100px;margin:auto}"
                       "table{border-collapse:collapse;font-size:90%}th{background:#eee}"
                       "code,pre{font-size:85%}pre{white-space:pre-wrap}</style></head><body>\n")
                       .arg(title);
    html += QStringLiteral("<h1>%1</h1>\n").arg(title);
    html += QStringLiteral("<p>Project file: <code>%1</code><br>Generated %2 (UTC).</p>\n")
                .arg(esc(p.path), esc(input.generatedAt));
    // First page: the verdict and the study at a glance; then the results in brief, what sharing
    // the file shares and what it spent.
    const LedgerVerification verification = verifyLedgers(p);
    html += firstPageHtml(p, verification);
    // The result tables, the trust boundary and the budget in detail start page 2 (a table's
    // heading would otherwise be left at the foot of page 1).
    html += QStringLiteral("<div style='page-break-before: always'></div>\n");
    html += summaryTablesHtml(p);
    html += trustAndBudgetHtml(p);
    html += QStringLiteral("<div style='page-break-before: always'></div>\n");
    html += softwareAndSourcesHtml(input, verification.chain);
    html += plotsHtml(input.plots, images);
    html += reportRunsTableHtml(p);
    html += QStringLiteral("<div style='page-break-before: always'></div>\n");
    html += reportRunDetailsHtml(p);
    html += QStringLiteral("<div style='page-break-before: always'></div>\n");
    html += QStringLiteral("<h2>Appendix B: the study's spec</h2>\n<pre>%1</pre>\n")
                .arg(esc(compactJson(project::projectSpecToJson(p.spec, 2))));
    html += QStringLiteral("</body></html>\n");
    return html;
}

QString pdfPathFor(const QString& htmlPath) {
    const QFileInfo info(htmlPath);
    return info.dir().filePath(info.completeBaseName() + QStringLiteral(".pdf"));
}

QString checkReportPath(const QString& htmlPath) {
    if (htmlPath.trimmed().isEmpty())
        return QStringLiteral("Report: no output file given; expected a path ending in .html");
    const QFileInfo info(htmlPath);
    const QString suffix = info.suffix().toLower();
    if (info.isDir()) return QStringLiteral("Report: %1 is a folder; expected an .html file path").arg(htmlPath);
    if (suffix != "html" && suffix != "htm")
        return QStringLiteral("Report: %1 does not end in .html; expected e.g. report.html (the PDF goes next to it)")
            .arg(htmlPath);
    const QFileInfo folder(info.absolutePath());
    if (!folder.exists())
        return QStringLiteral("Report: the folder %1 does not exist; choose an existing folder").arg(folder.filePath());
    if (!folder.isDir()) return QStringLiteral("Report: %1 is not a folder").arg(folder.filePath());
    if (!folder.isWritable()) return QStringLiteral("Report: the folder %1 is not writable").arg(folder.filePath());
    return {};
}

QString writeReport(const ReportInput& original, const QString& htmlPath, bool withPdf) {
    if (QString error = checkReportPath(htmlPath); !error.isEmpty()) return error;
    ReportInput input = original;
    if (input.generatedAt.isEmpty()) input.generatedAt = QDateTime::currentDateTimeUtc().toString(Qt::ISODate);

    const QString pdfPath = pdfPathFor(htmlPath);
    const QString pdfPart = pdfPath + QStringLiteral(".part");
    if (withPdf) {
        QTextDocument document;
        for (int i = 0; i < input.plots.size(); ++i)
            document.addResource(QTextDocument::ImageResource, QUrl(QStringLiteral("plot-%1.png").arg(i)),
                                 input.plots[i].image);
        document.setHtml(reportHtml(input, PlotImages::Resources));
        QPrinter printer(QPrinter::HighResolution);
        printer.setOutputFormat(QPrinter::PdfFormat);
        printer.setOutputFileName(pdfPart);
        printer.setPageSize(QPageSize(QPageSize::A4));
        printer.setPageOrientation(QPageLayout::Landscape);  // the ledger tables are wide
        printer.setDocName(QFileInfo(pdfPath).fileName());
        document.print(&printer);
        if (QFileInfo(pdfPart).size() <= 0) {
            QFile::remove(pdfPart);
            return QStringLiteral("Report: the PDF could not be written to %1").arg(pdfPath);
        }
    }
    QSaveFile html(htmlPath);
    if (!html.open(QIODevice::WriteOnly)) {
        QFile::remove(pdfPart);
        return QStringLiteral("Report: cannot write %1: %2").arg(htmlPath, html.errorString());
    }
    html.write(reportHtml(input, PlotImages::Inline).toUtf8());
    if (!html.commit()) {
        QFile::remove(pdfPart);
        return QStringLiteral("Report: cannot write %1: %2").arg(htmlPath, html.errorString());
    }
    if (withPdf) {
        QFile::remove(pdfPath);
        if (!QFile::rename(pdfPart, pdfPath)) {
            QFile::remove(pdfPart);
            return QStringLiteral("Report: wrote %1 but could not move the PDF into place at %2")
                .arg(htmlPath, pdfPath);
        }
    }
    return {};
}

}  // namespace dpmix::workbench
