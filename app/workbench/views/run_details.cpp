#include "app/workbench/views/run_details.h"
#include "app/workbench/views/ledger_cells.h"

#include "app/workbench/views/result_data.h"
#include "engine/privacy/ledger_json.h"

#include <nlohmann/json.hpp>

#include <QDateTime>
#include <QObject>

#include <cmath>

namespace dpmix::workbench {
namespace {

const QString kMissing = QStringLiteral("—");

QString text(const std::string& s) { return QString::fromStdString(s); }

void flatten(const nlohmann::ordered_json& value, const QString& prefix, std::vector<DetailRow>& out) {
    if (value.is_object() && !value.empty()) {
        for (auto it = value.begin(); it != value.end(); ++it)
            flatten(it.value(), prefix.isEmpty() ? text(it.key()) : prefix + QLatin1Char('.') + text(it.key()), out);
        return;
    }
    QString shown;
    if (value.is_string())
        shown = text(value.get<std::string>());
    else if (value.is_number_float())
        shown = QString::number(value.get<double>(), 'g', 10);
    else
        shown = text(value.dump());  // integers, booleans, null, arrays, {}
    out.emplace_back(prefix, shown);
}

QDateTime parseTime(const std::string& at) {
    QDateTime t = QDateTime::fromString(text(at), Qt::ISODateWithMs);
    if (!t.isValid()) t = QDateTime::fromString(text(at), Qt::ISODate);
    return t;
}

QString shownTime(const std::string& at) {
    if (at.empty()) return QObject::tr("not yet");
    const QDateTime t = parseTime(at);
    return t.isValid() ? t.toUTC().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss 'UTC'")) : text(at);
}

}  // namespace

std::vector<DetailRow> configRows(const std::string& configJson) {
    std::vector<DetailRow> rows;
    const auto doc = nlohmann::ordered_json::parse(configJson, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) {
        rows.emplace_back(QObject::tr("(unreadable)"), text(configJson));
        return rows;
    }
    flatten(doc, QString(), rows);
    if (rows.size() == 1 && rows.front().first.isEmpty()) rows.clear();  // "{}": no keys
    return rows;
}

LedgerDetails ledgerDetails(const RunResults& run) {
    LedgerDetails d;
    if (run.ledgers.empty()) {
        d.note = QObject::tr(
            "No privacy ledger: this run recorded no use of the sensitive data under a DP "
            "mechanism (nothing was spent by it).");
        return d;
    }
    const project::LedgerRecord& record = run.ledgers.back();
    auto ledger = privacy::ledgerFromJson(record.ledgerJson);
    if (!ledger) {
        d.note = QObject::tr("The stored ledger cannot be read: %1").arg(text(ledger.error().message));
        return d;
    }
    for (const privacy::LedgerEntry& e : ledger->entries()) {
        const LedgerEntryCells c = ledgerEntryCells(e);
        LedgerDetailRow row;
        row.stage = c.stage;
        row.split = c.split.isEmpty() ? kMissing : c.split;
        row.mechanism = c.mechanism;
        row.unit = c.unit;
        row.epsilon = c.epsilon;
        row.delta = c.delta;
        if (e.mechanism == privacy::MechanismKind::NonPrivate) {
            row.parameters = c.assumptions;
        } else {
            const bool dirichlet = e.mechanism == privacy::MechanismKind::SubsampledDirichlet;
            QStringList p{QStringLiteral("q = %1").arg(c.q),
                          (dirichlet ? QStringLiteral("(α, r) = ") : QStringLiteral("σ = ")) + c.noise,
                          QObject::tr("steps = %1").arg(c.steps)};
            if (e.clipNorm > 0) p << QStringLiteral("C = %1").arg(ledgerNumber(e.clipNorm));
            // Each "name = value" stays on one line; a narrow column wraps between them.
            row.parameters =
                p.join(QStringLiteral(" · ")).replace(QStringLiteral(" = "), QStringLiteral("\u00a0=\u00a0"));
        }
        row.accountant = c.accountant.isEmpty() ? kMissing : c.accountant;
        row.established = c.established;
        d.rows.push_back(std::move(row));
    }
    const privacy::LedgerTotal total = ledger->total();
    d.total = QObject::tr("Composed (%1): ε = %2, δ = %3 · ε recorded by the run: %4")
                  .arg(text(privacy::toString(total.composition)), ledgerNumber(total.epsilon),
                       ledgerNumber(total.delta), ledgerNumber(record.recordedEpsilon));
    if (!total.established) d.total += QObject::tr(" · rests on a claimed guarantee");
    if (total.seeded) d.total += QObject::tr(" · not a release (seeded randomness)");
    if (run.ledgers.size() > 1)
        d.note = QObject::tr("The run stored %1 ledgers; the latest (%2) is shown.")
                     .arg(run.ledgers.size())
                     .arg(shownTime(record.recordedAt));
    return d;
}

QString runDetailsTitle(const project::RunRecord& run) { return runLabel(run); }

QString runDuration(const std::string& startedAt, const std::string& finishedAt) {
    const QDateTime start = parseTime(startedAt), end = parseTime(finishedAt);
    if (!start.isValid() || !end.isValid() || end < start) return {};
    const qint64 s = start.secsTo(end);
    if (s >= 3600) return QObject::tr("took %1 h %2 min").arg(s / 3600).arg((s % 3600) / 60);
    if (s >= 60) return QObject::tr("took %1 min %2 s").arg(s / 60).arg(s % 60);
    return QObject::tr("took %1 s").arg(s);
}

QString runTimeline(const project::RunRecord& run) {
    QString line = QObject::tr("Status: %1 · created %2 · started %3 · finished %4")
                       .arg(text(project::toString(run.status)), shownTime(run.createdAt), shownTime(run.startedAt),
                            shownTime(run.finishedAt));
    if (const QString d = runDuration(run.startedAt, run.finishedAt); !d.isEmpty())
        line += QStringLiteral(" (%1)").arg(d);
    if (!run.buildVersion.empty()) line += QObject::tr(" · dpmix %1").arg(text(run.buildVersion));
    return line;
}

std::vector<DetailRow> metricRows(const RunResults& run) {
    std::vector<DetailRow> rows;
    for (const auto& m : run.metrics) {
        const QString name =
            m.className.empty() ? text(m.name) : QObject::tr("%1 (class %2)").arg(text(m.name), text(m.className));
        rows.emplace_back(name, ledgerNumber(m.value));
    }
    return rows;
}

LambdaTable lambdaTable(const RunResults& run) {
    LambdaTable t;
    for (const auto& l : run.lambdas) {
        t.kinds << text(l.kind);
        for (const auto& n : l.names)
            if (!t.components.contains(text(n))) t.components << text(n);
    }
    t.values.assign(t.components.size(), std::vector<QString>(t.kinds.size(), kMissing));
    for (int k = 0; k < static_cast<int>(run.lambdas.size()); ++k) {
        const auto& l = run.lambdas[k];
        for (std::size_t j = 0; j < l.names.size() && j < l.values.size(); ++j)
            t.values[t.components.indexOf(text(l.names[j]))][k] = QString::number(l.values[j], 'f', 4);
    }
    return t;
}

std::vector<DetailRow> curveRows(const RunResults& run) {
    std::vector<DetailRow> rows;
    for (const auto& [name, points] : run.curves) {
        if (points.empty()) {
            rows.emplace_back(text(name), QObject::tr("no points"));
            continue;
        }
        const QString count = points.size() == 1 ? QObject::tr("1 point") : QObject::tr("%1 points").arg(points.size());
        rows.emplace_back(text(name), QObject::tr("%1, steps %2–%3, last value %4")
                                          .arg(count)
                                          .arg(points.front().step)
                                          .arg(points.back().step)
                                          .arg(ledgerNumber(points.back().value)));
    }
    return rows;
}

QString byteSize(long long bytes) {
    if (bytes < 1024) return QObject::tr("%1 B").arg(bytes);
    const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
    double v = static_cast<double>(bytes);
    int u = -1;
    while (v >= 1024.0 && u < 3) {
        v /= 1024.0;
        ++u;
    }
    return QStringLiteral("%1 %2").arg(QString::number(v, 'f', 1), QLatin1String(units[u]));
}

std::vector<DetailRow> modelRows(const RunResults& run) {
    std::vector<DetailRow> rows;
    for (const auto& m : run.models)
        rows.emplace_back(text(m.name),
                          QObject::tr("%1 · sha256 %2…").arg(byteSize(m.bytes), text(m.contentHash.substr(0, 12))));
    return rows;
}

}  // namespace dpmix::workbench
