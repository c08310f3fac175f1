#include "app/workbench/views/report_runs.h"

#include "app/workbench/project/ledger_check.h"
#include "app/workbench/views/ledger_cells.h"
#include "app/workbench/views/report_html.h"
#include "app/workbench/views/result_data.h"
#include "engine/privacy/ledger_json.h"

#include <nlohmann/json.hpp>

#include <vector>

namespace dpmix::workbench {

using report::esc;
using report::ok;
using report::row;

namespace {

// The ledgers' long texts, numbered in the order they first appear: a row cites "[n]" and the
// appendix prints each text once.
class LedgerNotes {
public:
    QString cite(const QString& text) {
        if (text.isEmpty() || text == QStringLiteral("—")) return {};
        int at = static_cast<int>(texts_.indexOf(text));
        if (at < 0) {
            texts_ << text;
            at = static_cast<int>(texts_.size()) - 1;
        }
        return QStringLiteral("[%1]").arg(at + 1);
    }
    QString html() const {
        if (texts_.isEmpty()) return {};
        QString html = QStringLiteral("<p><b>Ledger notes</b> (cited as [n] in the ledger tables below):</p>\n<p>");
        for (int i = 0; i < texts_.size(); ++i) html += QStringLiteral("[%1] %2<br>\n").arg(i + 1).arg(esc(texts_[i]));
        return html + QStringLiteral("</p>\n");
    }

private:
    QStringList texts_;
};

/// "; claim refuted by audit (…)" and the like, for the entries an audit speaks to.
QString verdictHtml(const privacy::LedgerEntry& e, const std::vector<audit::StoredMechanismAudit>& audits) {
    const auto v = audit::entryVerdict(e, audits);
    if (!v) return {};
    const QString text = esc(audit::describe(*v, e.epsilon));
    return QStringLiteral("; ") +
           (v->status == audit::ClaimStatus::Refuted ? QStringLiteral("<b>%1</b>").arg(text) : text);
}

QString ledgerHtml(const project::LedgerRecord& record, const std::vector<audit::StoredMechanismAudit>& audits,
                   LedgerNotes& notes) {
    auto ledger = privacy::ledgerFromJson(record.ledgerJson);
    if (!ledger)
        return QStringLiteral("<p>Ledger %1 cannot be read: %2</p>").arg(record.id).arg(esc(ledger.error().message));
    QString html = QStringLiteral("<table border='1' cellspacing='0' cellpadding='2' style='font-size:80%'>\n");
    html += row({"stage", "mechanism", "unit", "split", "q", "σ / (α, r)", "steps", "δ", "ε", "established",
                 "accountant, assumptions"},
                "th", 10);
    for (const privacy::LedgerEntry& e : ledger->entries()) {
        const LedgerEntryCells c = ledgerEntryCells(e);
        const QString cited = QStringList{notes.cite(c.accountant), notes.cite(c.assumptions)}.join(' ').trimmed();
        html += row({esc(c.stage), esc(c.mechanism), esc(c.unit), esc(c.split), c.q, c.noise, c.steps, c.delta,
                     c.epsilon, c.established + verdictHtml(e, audits), cited},
                    "td", 9);
    }
    html += QStringLiteral("</table>\n");
    const privacy::LedgerTotal total = ledger->total();
    html +=
        QStringLiteral(
            "<p style='margin:2px 0;font-size:85%'>Composed total (%1 composition): ε = %2, δ = %3%4; ε recorded by "
            "the run: %5; "
            "recorded %6.</p>\n")
            .arg(esc(privacy::toString(total.composition)), ledgerNumber(total.epsilon), ledgerNumber(total.delta),
                 QString(total.established ? QString() : QStringLiteral(" — rests on a claimed guarantee")) +
                     (total.seeded ? QStringLiteral(" — <b>not a release</b>: seeded randomness, the seed is stored "
                                                    "in the project")
                                   : QString()),
                 ledgerNumber(record.recordedEpsilon), esc(record.recordedAt));
    return html;
}

// A run's configuration as "key value · key value" (nested values as compact JSON): a reviewer
// reads every setting, and the run's block stays a few lines long.
QString settingsText(const std::string& configJson) {
    const auto config = nlohmann::json::parse(configJson, nullptr, /*allow_exceptions=*/false);
    if (config.is_object() && config.empty()) return QStringLiteral("none recorded.");
    if (!config.is_object()) return QStringLiteral("(not a JSON object) <code>%1</code>").arg(esc(configJson));
    QStringList parts;
    for (const auto& [key, value] : config.items())
        parts << QStringLiteral("%1 <b>%2</b>")
                     .arg(esc(key), esc(value.is_string() ? value.get<std::string>() : value.dump()));
    return parts.join(QStringLiteral(" · "));
}

// The metrics, a metric's per-class values grouped under it: "test-auc: Bag 0.93, Coat 0.91".
QString metricsText(const std::vector<project::MetricRecord>& metrics) {
    QStringList names;
    std::vector<QStringList> values;
    for (const auto& m : metrics) {
        const QString name = esc(m.name);
        int at = static_cast<int>(names.indexOf(name));
        if (at < 0) {
            names << name;
            values.emplace_back();
            at = static_cast<int>(names.size()) - 1;
        }
        values[at] << (m.className.empty() ? ledgerNumber(m.value)
                                           : QStringLiteral("%1 %2").arg(esc(m.className), ledgerNumber(m.value)));
    }
    QStringList parts;
    for (int i = 0; i < names.size(); ++i)
        parts << QStringLiteral("%1 <b>%2</b>").arg(names[i], values[i].join(QStringLiteral(", ")));
    return parts.join(QStringLiteral(" · "));
}

QString runDetailHtml(const RunResults& r, const std::vector<audit::StoredMechanismAudit>& audits, LedgerNotes& notes) {
    const auto& run = r.run;
    // Tight margins and a smaller font: a run's block is a heading, a paragraph and its ledgers,
    // several to a page.
    QString html =
        QStringLiteral("<h3 style='margin:10px 0 2px 0'>Run %1: %2</h3>\n").arg(run.id).arg(esc(runLabel(run)));
    html += QStringLiteral(
                "<p style='margin:2px 0;font-size:85%'>Status: %1%2. Created %3, finished %4, by dpmix "
                "%5.<br>\nSettings: %6")
                .arg(esc(project::toString(run.status)),
                     run.message.empty() ? QString() : QStringLiteral(" (%1)").arg(esc(run.message)),
                     esc(run.createdAt), run.finishedAt.empty() ? QStringLiteral("—") : esc(run.finishedAt),
                     esc(run.buildVersion), settingsText(run.configJson));
    if (!r.metrics.empty()) html += QStringLiteral("<br>\nMetrics: ") + metricsText(r.metrics);
    if (r.ledgers.empty())
        return html + QStringLiteral(
                          "<br>\nNo privacy ledger: this run did not touch sensitive data through a recorded "
                          "mechanism.</p>\n");
    html += QStringLiteral("</p>\n");
    for (const auto& record : r.ledgers) html += ledgerHtml(record, audits, notes);
    const RunLedgerCheck check = checkRunLedgers(r);
    html += QStringLiteral("<p style='margin:2px 0;font-size:85%'>Verify: %1</p>\n")
                .arg(check.ok ? ok(true,
                                   QStringLiteral("Verified: %1 ε recomputed from the recorded parameters and matching "
                                                  "the record")
                                       .arg(check.entriesChecked))
                              : ok(false, QStringLiteral("Discrepancy: ") + check.problems.join("; ")));
    return html;
}

}  // namespace

QString reportRunsTableHtml(const ProjectSnapshot& p) {
    QString html = QStringLiteral("<h2>Runs (%1)</h2>\n").arg(p.runs.size());
    if (const auto pinned = p.pinnedBaselineRunId())
        html += QStringLiteral("<p>Pinned baseline: run %1.</p>\n").arg(*pinned);
    html += QStringLiteral("<table border='1' cellspacing='0' cellpadding='3'>\n");
    html += row({"run", "method", "task", "target ε", "seed", "status", "ledger ε (composed)", "verify"}, "th");
    for (const auto& r : p.runs) {
        QString composed = QStringLiteral("—");
        if (!r.ledgers.empty())
            if (auto ledger = privacy::ledgerFromJson(r.ledgers.back().ledgerJson))
                composed = ledgerNumber(ledger->total().epsilon);
        QString verdict = QStringLiteral("no ledger");
        if (!r.ledgers.empty()) {
            const RunLedgerCheck check = checkRunLedgers(r);
            verdict = check.ok ? ok(true, QStringLiteral("verified")) : ok(false, QStringLiteral("discrepancy"));
        }
        html += row({QString::number(r.run.id), esc(methodLabel(r.run.method)), esc(r.run.task),
                     r.run.epsilon ? ledgerNumber(*r.run.epsilon) : QStringLiteral("—"), QString::number(r.run.seed),
                     esc(project::toString(r.run.status)), composed, verdict},
                    "td", 8);
    }
    html += QStringLiteral("</table>\n");
    if (!p.runs.empty())
        html += QStringLiteral("<p>Each run's settings, metrics and privacy ledger: Appendix A.</p>\n");
    return html;
}

QString reportRunDetailsHtml(const ProjectSnapshot& p) {
    if (p.runs.empty()) return {};
    LedgerNotes notes;
    const auto audits = mechanismAudits(p);
    QString runs;
    for (const auto& r : p.runs) runs += runDetailHtml(r, audits, notes);
    // The notes are gathered while the runs are written, and printed before them.
    return QStringLiteral("<h2>Appendix A: each run in detail</h2>\n") + notes.html() + runs;
}

}  // namespace dpmix::workbench
