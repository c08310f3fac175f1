#include "app/workbench/project/report_writer.h"

#include "app/workbench/parameters/budget_reading.h"

#include "app/workbench/project/ledger_check.h"
#include "app/workbench/views/result_data.h"
#include "app/workbench/views/study_summary.h"
#include "engine/privacy/ledger_json.h"
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

#include <cmath>

namespace dpmix::workbench {

namespace {
QString esc(const QString& s) { return s.toHtmlEscaped(); }
QString esc(const std::string& s) { return QString::fromStdString(s).toHtmlEscaped(); }
QString num(double v) { return std::isinf(v) ? QStringLiteral("∞") : QString::number(v, 'g', 6); }

QString row(const QStringList& cells, const char* tag = "td") {
    QString html = QStringLiteral("<tr>");
    for (const QString& c : cells) html += QStringLiteral("<%1>%2</%1>").arg(QLatin1String(tag), c);
    return html + QStringLiteral("</tr>\n");
}

QString ok(bool good, const QString& text) {
    return good ? QStringLiteral("<span class='ok' style='color:#1a7f37'>✔ %1</span>").arg(esc(text))
                : QStringLiteral("<span class='bad' style='color:#b42318'>✘ %1</span>").arg(esc(text));
}

QString imageSource(const ReportPlot& plot, int index, PlotImages images) {
    if (images == PlotImages::Resources) return QStringLiteral("plot-%1.png").arg(index);
    QByteArray png;
    QBuffer buffer(&png);
    buffer.open(QIODevice::WriteOnly);
    plot.image.save(&buffer, "PNG");
    return QStringLiteral("data:image/png;base64,") + QString::fromLatin1(png.toBase64());
}

/// "; claim refuted by audit (…)" and the like, for the entries an audit speaks to.
QString verdictHtml(const privacy::LedgerEntry& e, const std::vector<audit::StoredMechanismAudit>& audits) {
    const auto v = audit::entryVerdict(e, audits);
    if (!v) return {};
    const QString text = esc(audit::describe(*v, e.epsilon));
    return QStringLiteral("; ") + (v->status == audit::ClaimStatus::Refuted ? QStringLiteral("<b>%1</b>").arg(text) : text);
}

QString ledgerHtml(const project::LedgerRecord& record, const std::vector<audit::StoredMechanismAudit>& audits) {
    auto ledger = privacy::ledgerFromJson(record.ledgerJson);
    if (!ledger) return QStringLiteral("<p>Ledger %1 cannot be read: %2</p>").arg(record.id).arg(esc(ledger.error().message));
    QString html = QStringLiteral("<table border='1' cellspacing='0' cellpadding='3'>\n");
    html += row({"stage", "mechanism", "unit", "split", "q", "σ / (α, r)", "steps", "δ", "ε", "established", "accountant",
                 "assumptions"},
                "th");
    for (const privacy::LedgerEntry& e : ledger->entries()) {
        const bool nonPrivate = e.mechanism == privacy::MechanismKind::NonPrivate;
        const QString noise = e.mechanism == privacy::MechanismKind::SubsampledDirichlet
                                  ? QStringLiteral("(%1, %2)").arg(num(e.dirichletAlpha), num(e.dirichletR))
                                  : nonPrivate ? QStringLiteral("—") : num(e.sigma);
        html += row({esc(e.stage), esc(privacy::toString(e.mechanism)), esc(privacy::toString(e.unit)), esc(e.split),
                     nonPrivate ? QStringLiteral("—") : num(e.q), noise, QString::number(e.steps),
                     nonPrivate ? QStringLiteral("—") : num(e.delta), nonPrivate ? QStringLiteral("∞ (not private)") : num(e.epsilon),
                     QString(e.established ? QStringLiteral("yes") : QStringLiteral("no (claimed)")) +
                         (privacy::isSeededRelease(e) ? QStringLiteral("; seeded: not a release") : QString()) +
                         verdictHtml(e, audits),
                     esc(e.accountant),
                     esc(e.assumptions)});
    }
    html += QStringLiteral("</table>\n");
    const privacy::LedgerTotal total = ledger->total();
    html += QStringLiteral("<p>Composed total (%1 composition): ε = %2, δ = %3%4; ε recorded by the run: %5; recorded %6.</p>\n")
                .arg(esc(privacy::toString(total.composition)), num(total.epsilon), num(total.delta),
                     QString(total.established ? QString() : QStringLiteral(" — rests on a claimed guarantee")) +
                         (total.seeded ? QStringLiteral(" — <b>not a release</b>: seeded randomness, the seed is stored "
                                                        "in the project")
                                       : QString()),
                     num(record.recordedEpsilon), esc(record.recordedAt));
    return html;
}

// A run's configuration as a key/value table (nested values as compact JSON): a reviewer reads it,
// and a PDF does not break it mid-number as it would one long line of JSON.
QString configHtml(const std::string& configJson) {
    const auto config = nlohmann::json::parse(configJson, nullptr, /*allow_exceptions=*/false);
    if (config.is_object() && config.empty()) return QStringLiteral("<p>Configuration: none recorded.</p>\n");
    if (!config.is_object()) return QStringLiteral("<p>Configuration (not a JSON object): <code>%1</code></p>\n").arg(esc(configJson));
    QString html = QStringLiteral("<table border='1' cellspacing='0' cellpadding='3'>\n") + row({"setting", "value"}, "th");
    for (const auto& [key, value] : config.items())
        html += row({esc(key), esc(value.is_string() ? value.get<std::string>() : value.dump())});
    return html + QStringLiteral("</table>\n");
}

QString runHtml(const RunResults& r, const std::vector<audit::StoredMechanismAudit>& audits) {
    const auto& run = r.run;
    QString html = QStringLiteral("<h3>Run %1: %2</h3>\n").arg(run.id).arg(esc(runLabel(run)));
    html += QStringLiteral("<p>Status: %1%2. Created %3, finished %4, by dpmix %5.</p>\n")
                .arg(esc(project::toString(run.status)),
                     run.message.empty() ? QString() : QStringLiteral(" (%1)").arg(esc(run.message)), esc(run.createdAt),
                     run.finishedAt.empty() ? QStringLiteral("—") : esc(run.finishedAt), esc(run.buildVersion));
    html += configHtml(run.configJson);
    if (!r.metrics.empty()) {
        html += QStringLiteral("<table border='1' cellspacing='0' cellpadding='3'>\n") + row({"metric", "class", "value"}, "th");
        for (const auto& m : r.metrics) html += row({esc(m.name), esc(m.className), num(m.value)});
        html += QStringLiteral("</table>\n");
    }
    if (r.ledgers.empty()) {
        html += QStringLiteral("<p>No privacy ledger: this run did not touch sensitive data through a recorded mechanism.</p>\n");
        return html;
    }
    for (const auto& record : r.ledgers) html += ledgerHtml(record, audits);
    const RunLedgerCheck check = checkRunLedgers(r);
    html += QStringLiteral("<p>Verify: %1</p>\n")
                .arg(check.ok ? ok(true, QStringLiteral("Verified: %1 ε recomputed from the recorded parameters and matching "
                                                        "the record").arg(check.entriesChecked))
                              : ok(false, QStringLiteral("Discrepancy: ") + check.problems.join("; ")));
    return html;
}
/// One line per run: what it is, the ε its ledger composes to, and whether that verifies.
QString summaryHtml(const ProjectSnapshot& p) {
    QString html = QStringLiteral("<table border='1' cellspacing='0' cellpadding='3'>\n");
    html += row({"run", "method", "task", "target ε", "seed", "status", "ledger ε (composed)", "verify"}, "th");
    for (const auto& r : p.runs) {
        QString composed = QStringLiteral("—");
        if (!r.ledgers.empty())
            if (auto ledger = privacy::ledgerFromJson(r.ledgers.back().ledgerJson)) composed = num(ledger->total().epsilon);
        QString verdict = QStringLiteral("no ledger");
        if (!r.ledgers.empty()) {
            const RunLedgerCheck check = checkRunLedgers(r);
            verdict = check.ok ? ok(true, QStringLiteral("verified")) : ok(false, QStringLiteral("discrepancy"));
        }
        html += row({QString::number(r.run.id), esc(methodLabel(r.run.method)), esc(r.run.task),
                     r.run.epsilon ? num(*r.run.epsilon) : QStringLiteral("—"), QString::number(r.run.seed),
                     esc(project::toString(r.run.status)), composed, verdict});
    }
    return html + QStringLiteral("</table>\n");
}
}  // namespace

QString reportHtml(const ReportInput& input, PlotImages images) {
    const ProjectSnapshot& p = input.project;
    const QString title = QStringLiteral("dpmix study report: %1").arg(esc(p.spec.name.empty() ? QFileInfo(p.path).fileName().toStdString() : p.spec.name));
    QString html = QStringLiteral("<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>%1</title>\n"
                                  "<style>body{font-family:sans-serif;max-width:1100px;margin:auto}"
                                  "table{border-collapse:collapse;font-size:90%}th{background:#eee}"
                                  "code,pre{font-size:85%}pre{white-space:pre-wrap}</style></head><body>\n")
                       .arg(title);
    html += QStringLiteral("<h1>%1</h1>\n").arg(title);
    html += QStringLiteral("<p>Project file: <code>%1</code><br>Generated %2 (UTC).</p>\n").arg(esc(p.path), esc(input.generatedAt));
    html += QStringLiteral("<p>%1</p>\n").arg(esc(p.spec.description));
    // First page: the verdict and the results in brief, whether everything verifies, what sharing
    // the file shares and what it spent.
    const ChainCheck chain = checkProjectChain(p.path);
    long long entries = 0;
    QStringList problems;
    for (const auto& r : p.runs) {
        const RunLedgerCheck check = checkRunLedgers(r);
        entries += check.entriesChecked;
        if (!check.ok) problems << QStringLiteral("run %1").arg(r.run.id);
    }
    html += QStringLiteral("<h2>Summary</h2>\n<p><b>%1</b></p>\n").arg(studyVerdict(p).toHtmlEscaped());
    html += QStringLiteral("<p>%1</p>\n")
                .arg(problems.isEmpty() && chain.ok
                         ? ok(true, QStringLiteral("Every ledger verifies (%1 ε recomputed from the recorded parameters); %2")
                                        .arg(entries)
                                        .arg(chain.text))
                         : ok(false, QStringLiteral("Discrepancies: %1%2")
                                         .arg(problems.join(", "))
                                         .arg(chain.ok ? QString() : QStringLiteral("; ") + chain.text)));
    html += summaryTablesHtml(p);
    // What sharing this file (and this report) shares — the trust verdict.
    const bool inside = !p.trust.known || !p.trust.dpOnly;
    html += QStringLiteral("<h2>Trust boundary</h2>\n<p style='padding:6px;border:1px solid %1;background:%2'><b>%3</b> %4</p>\n")
                .arg(inside ? QStringLiteral("#e0c36b") : QStringLiteral("#8fc9a9"),
                     inside ? QStringLiteral("#fff3cd") : QStringLiteral("#d1e7dd"),
                     inside ? QStringLiteral("Keep this file and this report inside the data owner's trust boundary.")
                            : (p.trust.release ? QStringLiteral("DP release.") : QStringLiteral("DP releases only.")),
                     p.trust.headline.toHtmlEscaped());
    // Then the privacy budget of the sensitive data, over every DP release stored.
    if (auto budget = budgetReadingOf(p)) {
        const QString spent = std::isinf(budget->spent) ? QStringLiteral("∞") : QString::number(budget->spent, 'f', 3);
        html += QStringLiteral("<h2>Privacy budget</h2>\n<p><b>%1</b> (unit: %2): ε <b>%3</b> at δ = %4 over %5 DP "
                               "release(s)%6, composed by the RDP accountant (releases on one split add; the two sides of a ρ "
                               "split cost their larger; other splits add). Not counted: %7 run(s) that are no DP release "
                               "(non-private baselines, audits) and the test-set metrics (for the analyst).</p>\n")
                    .arg(esc(p.spec.sensitive.written.name), budget->unit, spent)
                    .arg(budget->delta, 0, 'g', 3)
                    .arg(budget->releases)
                    .arg(budget->cap ? QStringLiteral(", against a cap of %1").arg(*budget->cap) : QString())
                    .arg(budget->notCounted);
    } else {
        html += QStringLiteral("<h2>Privacy budget</h2>\n<p>%1</p>\n").arg(ok(false, QString::fromStdString(budget.error().message)));
    }

    html += QStringLiteral("<div style='page-break-before: always'></div>\n");
    html += QStringLiteral("<h2>Software</h2>\n<table border='1' cellspacing='0' cellpadding='3'>\n");
    html += row({"dpmix", esc(input.versions.appVersion)}) + row({"Qt", esc(input.versions.qtVersion)}) +
            row({"LibTorch", esc(input.versions.torchVersion)}) +
            row({"project-file schema", esc(input.versions.schemaVersion)}) + QStringLiteral("</table>\n");

    html += QStringLiteral("<h2>Integrity</h2>\n<p>%1</p>\n").arg(ok(chain.ok, chain.text));

    html += QStringLiteral("<h2>Data sources</h2>\n<table border='1' cellspacing='0' cellpadding='3'>\n");
    html += row({"role", "name", "loader", "path", "kind", "examples", "users", "content hash (SHA-256)"}, "th");
    for (const auto& s : p.sources)
        html += row({esc(s.role), esc(s.name), esc(s.loader), esc(s.path), esc(s.facts.kind), QString::number(s.facts.examples),
                     s.userLevel ? QString::number(s.facts.users) : QStringLiteral("—"),
                     QStringLiteral("<code>%1</code>").arg(esc(s.facts.contentHash))});
    html += QStringLiteral("</table>\n");

    if (!input.plots.isEmpty()) {
        html += QStringLiteral("<h2>Plots</h2>\n");
        for (int i = 0; i < input.plots.size(); ++i) {
            const ReportPlot& plot = input.plots[i];
            // A fixed width keeps large hi-DPI grabs inside the page.
            const int width = std::min(900, plot.image.width());
            html += QStringLiteral("<h3>%1</h3>\n<p><img src='%2' width='%3' alt='%1'></p>\n")
                        .arg(esc(plot.title), imageSource(plot, i, images))
                        .arg(width);
        }
    }

    html += QStringLiteral("<h2>Runs (%1)</h2>\n").arg(p.runs.size());
    if (const auto pinned = p.pinnedBaselineRunId()) html += QStringLiteral("<p>Pinned baseline: run %1.</p>\n").arg(*pinned);
    html += summaryHtml(p);
    const auto audits = mechanismAudits(p);
    for (const auto& r : p.runs) html += runHtml(r, audits);
    html += QStringLiteral("<div style='page-break-before: always'></div>\n");
    html += QStringLiteral("<h2>Appendix: the study's spec</h2>\n<pre>%1</pre>\n").arg(esc(project::projectSpecToJson(p.spec, 2)));
    html += QStringLiteral("</body></html>\n");
    return html;
}

QString pdfPathFor(const QString& htmlPath) {
    const QFileInfo info(htmlPath);
    return info.dir().filePath(info.completeBaseName() + QStringLiteral(".pdf"));
}

QString checkReportPath(const QString& htmlPath) {
    if (htmlPath.trimmed().isEmpty()) return QStringLiteral("Report: no output file given; expected a path ending in .html");
    const QFileInfo info(htmlPath);
    const QString suffix = info.suffix().toLower();
    if (info.isDir()) return QStringLiteral("Report: %1 is a folder; expected an .html file path").arg(htmlPath);
    if (suffix != "html" && suffix != "htm")
        return QStringLiteral("Report: %1 does not end in .html; expected e.g. report.html (the PDF goes next to it)").arg(htmlPath);
    const QFileInfo folder(info.absolutePath());
    if (!folder.exists()) return QStringLiteral("Report: the folder %1 does not exist; choose an existing folder").arg(folder.filePath());
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
            document.addResource(QTextDocument::ImageResource, QUrl(QStringLiteral("plot-%1.png").arg(i)), input.plots[i].image);
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
            return QStringLiteral("Report: wrote %1 but could not move the PDF into place at %2").arg(htmlPath, pdfPath);
        }
    }
    return {};
}

}  // namespace dpmix::workbench
