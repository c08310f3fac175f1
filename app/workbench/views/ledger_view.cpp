#include "app/workbench/views/ledger_view.h"
#include "app/workbench/project/read_only_files.h"
#include "app/workbench/views/ledger_cells.h"

#include "app/workbench/help/view_help.h"
#include "app/workbench/views/result_data.h"
#include "engine/privacy/ledger_json.h"
#include "engine/project/project_file.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace dpmix::workbench {
namespace {

/// "; claim refuted by audit (…)" and the like, for the entries an audit speaks to.
QString verdictText(const privacy::LedgerEntry& e, const std::vector<audit::StoredMechanismAudit>& audits) {
    const auto v = audit::entryVerdict(e, audits);
    return v ? QStringLiteral("; ") + QString::fromStdString(audit::describe(*v, e.epsilon)) : QString();
}

bool hasRefutedEntry(const RunResults& run, const std::vector<audit::StoredMechanismAudit>& audits) {
    if (run.ledgers.empty()) return false;
    auto ledger = privacy::ledgerFromJson(run.ledgers.back().ledgerJson);
    if (!ledger) return false;
    for (const auto& e : ledger->entries())
        if (const auto v = audit::entryVerdict(e, audits); v && v->status == audit::ClaimStatus::Refuted) return true;
    return false;
}

// The assumptions cell's short form: the first sentence when it is short, else about 60
// characters cut at a word, with "…"; the cell's tooltip and the text below the table are whole.
QString shortAssumptions(const QString& full) {
    constexpr int kShort = 60;
    const int stop = full.indexOf(QStringLiteral(". "));
    if (stop >= 0 && stop < kShort) return full.left(stop + 1);
    if (full.size() <= kShort) return full;
    int cut = full.lastIndexOf(QLatin1Char(' '), kShort);
    if (cut < kShort / 2) cut = kShort;
    QString out = full.left(cut);
    while (!out.isEmpty() && (out.back() == QLatin1Char(';') || out.back() == QLatin1Char(',') || out.back().isSpace()))
        out.chop(1);
    return out + QChar(0x2026);
}

const QStringList kColumns = {"stage", "mechanism", "unit", "split",       "q",          "σ or (α, r)",
                              "steps", "δ",         "ε",    "established", "assumptions"};

}  // namespace

LedgerView::LedgerView(ProjectSnapshot project, QWidget* parent)
    : QWidget(parent),
      project_(std::move(project)),
      selector_(new QComboBox),
      table_(new QTableWidget),
      total_(new QLabel),
      verify_(new QPushButton(tr("Verify"))),
      verdict_(new QLabel) {
    auto* layout = new QVBoxLayout(this);
    auto* row = new QHBoxLayout;
    row->addWidget(new QLabel(tr("Run:")));
    selector_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    row->addWidget(selector_);
    row->addWidget(verify_);
    verify_->setToolTip(tr("Recompute every ε from its recorded parameters and recheck the project's hash chain"));
    row->addStretch(1);
    layout->addLayout(row);
    table_->setColumnCount(kColumns.size());
    table_->setHorizontalHeaderLabels(kColumns);
    // The columns whose names are jargon say what they mean on hover.
    const QList<QPair<int, QString>> explained = {
        {3, glossaryToolTip(GlossaryTerm::SplitAB)},
        {4, glossaryToolTip(GlossaryTerm::NoiseParameters)},
        {5, glossaryToolTip(GlossaryTerm::NoiseParameters)},
        {6, glossaryToolTip(GlossaryTerm::NoiseParameters)},
        {7, glossaryToolTip(GlossaryTerm::Delta)},
        {8, glossaryToolTip(GlossaryTerm::Epsilon) + QStringLiteral("\n") + glossaryToolTip(GlossaryTerm::RdpOrder)},
        {9, glossaryToolTip(GlossaryTerm::Established)}};
    for (const auto& [column, tip] : explained) table_->horizontalHeaderItem(column)->setToolTip(tip);
    setWhatsThis(viewWhatsThis(ResultView::Ledger));
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->verticalHeader()->hide();
    table_->setWordWrap(true);
    layout->addWidget(table_, 1);
    total_->setWordWrap(true);
    total_->setTextFormat(Qt::RichText);
    layout->addWidget(total_);
    verdict_->setWordWrap(true);
    verdict_->setTextFormat(Qt::RichText);
    layout->addWidget(verdict_);

    audits_ = mechanismAudits(project_);
    for (const auto& r : project_.runs)
        if (!r.ledgers.empty()) {
            runs_.push_back(&r);
            selector_->addItem(runLabel(r.run));
        }
    connect(selector_, &QComboBox::currentIndexChanged, this, &LedgerView::showRun);
    connect(verify_, &QPushButton::clicked, this, &LedgerView::verify);
    verify_->setEnabled(!runs_.empty());
    // Open on a run whose claim an audit refuted, else on a DP-MixMin run: those are the ledgers
    // people come to check.
    int first = -1;
    for (std::size_t i = 0; i < runs_.size() && first < 0; ++i)
        if (hasRefutedEntry(*runs_[i], audits_)) first = static_cast<int>(i);
    for (std::size_t i = 0; i < runs_.size() && first < 0; ++i)
        if (isMethod(runs_[i]->run, methods::Method::DpMixMin)) first = static_cast<int>(i);
    first = std::max(first, 0);
    if (runs_.empty())
        total_->setText(tr("No run has recorded a privacy ledger yet."));
    else if (first == 0)
        showRun(0);
    else
        selector_->setCurrentIndex(first);
}

bool LedgerView::selectRun(long long runId) {
    for (std::size_t i = 0; i < runs_.size(); ++i)
        if (runs_[i]->run.id == runId) {
            selector_->setCurrentIndex(static_cast<int>(i));
            showRun(static_cast<int>(i));
            return true;
        }
    return false;
}

void LedgerView::showRun(int index) {
    verdict_->clear();
    table_->setRowCount(0);
    if (index < 0 || index >= static_cast<int>(runs_.size())) return;
    const project::LedgerRecord& record = runs_[index]->ledgers.back();
    auto ledger = privacy::ledgerFromJson(record.ledgerJson);
    if (!ledger) {
        total_->setText(tr("The stored ledger cannot be read: %1").arg(QString::fromStdString(ledger.error().message)));
        return;
    }
    const auto& entries = ledger->entries();
    table_->setRowCount(static_cast<int>(entries.size()));
    for (int i = 0; i < static_cast<int>(entries.size()); ++i) {
        const privacy::LedgerEntry& e = entries[i];
        const LedgerEntryCells cell = ledgerEntryCells(e);
        const QStringList cells = {
            cell.stage,      cell.mechanism, cell.unit,  cell.split,   cell.q,
            cell.noise,      cell.steps,     cell.delta, cell.epsilon, cell.established + verdictText(e, audits_),
            cell.assumptions};
        for (int c = 0; c < cells.size(); ++c) {
            auto* item = new QTableWidgetItem(c == 10 ? shortAssumptions(cells[c]) : cells[c]);
            item->setToolTip(c == 10 || c == 1 ? cells[c] + "\n" + QString::fromStdString(e.accountant) : cells[c]);
            table_->setItem(i, c, item);
        }
    }
    table_->resizeColumnsToContents();
    // Assumptions are sentences: wrapped in what is left of the width, so the numbers stay on screen.
    int used = 0;
    for (int c = 0; c < 10; ++c) used += table_->columnWidth(c);
    table_->setColumnWidth(10, std::max(200, table_->viewport()->width() - used));
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->resizeRowsToContents();
    const privacy::LedgerTotal total = ledger->total();
    QString refuted;
    for (const auto& e : entries)
        if (const auto v = audit::entryVerdict(e, audits_); v && v->status == audit::ClaimStatus::Refuted)
            refuted += tr("<br><span style='color:#b00020'><b>%1 (%2): %3</b></span>")
                           .arg(QString::fromStdString(e.stage).toHtmlEscaped(),
                                QString::fromStdString(privacy::toString(e.mechanism)).toHtmlEscaped(),
                                QString::fromStdString(audit::describe(*v, e.epsilon)).toHtmlEscaped());
    // The assumptions column is narrow in a small window; the sentences are repeated here in full.
    QString assumptions;
    for (std::size_t i = 0; i < entries.size(); ++i)
        assumptions += tr("<br><b>Entry %1 (%2):</b> %3 <i>(%4)</i>")
                           .arg(i + 1)
                           .arg(QString::fromStdString(entries[i].stage).toHtmlEscaped(),
                                QString::fromStdString(entries[i].assumptions).toHtmlEscaped(),
                                QString::fromStdString(entries[i].accountant).toHtmlEscaped());
    total_->setText(
        tr("<b>Composed total (%1 composition):</b> ε = %2, δ = %3%4 &nbsp;·&nbsp; ε recorded by the run: %5%6%7")
            .arg(QString::fromStdString(privacy::toString(total.composition)), ledgerNumber(total.epsilon),
                 ledgerNumber(total.delta),
                 QString(total.established ? QString() : tr(" — rests on a claimed guarantee")) +
                     (total.seeded ? tr(" — <span style='color:#b00020'><b>not a release</b>: seeded "
                                        "randomness, the seed is stored in this project</span>")
                                   : QString()),
                 ledgerNumber(record.recordedEpsilon), refuted, assumptions));
}

bool LedgerView::verify() {
    const int index = selector_->currentIndex();
    if (index < 0 || index >= static_cast<int>(runs_.size())) return false;
    QStringList problems;
    long long checked = 0;
    for (const project::LedgerRecord& record : runs_[index]->ledgers) {
        auto ledger = privacy::ledgerFromJson(record.ledgerJson);
        if (!ledger) {
            problems << tr("ledger %1 cannot be read: %2")
                            .arg(record.id)
                            .arg(QString::fromStdString(ledger.error().message));
            continue;
        }
        const privacy::LedgerVerification v = ledger->verify(record.recordedEpsilon);
        checked += static_cast<long long>(v.entries.size());
        for (const auto& p : v.problems) problems << QString::fromStdString(p);
        if (!v.ok && v.problems.empty()) problems << tr("ledger %1 does not verify").arg(record.id);
    }
    QString chainText;
    auto file = project::ProjectFile::open(project_.path.toStdString(), openModeFor(project_.path));
    if (!file) {
        problems << tr("cannot reopen the project to check its hash chain: %1")
                        .arg(QString::fromStdString(file.error().message));
    } else if (auto chain = file->verifyChain(); !chain) {
        problems << QString::fromStdString(chain.error().message);
    } else if (!chain->ok && chain->firstBreak) {
        const auto& b = *chain->firstBreak;
        problems << tr("hash chain broken at table %1, row %2 (stored %3…, expected %4…): the file was edited "
                       "after it was written")
                        .arg(QString::fromStdString(b.table))
                        .arg(b.rowId)
                        .arg(QString::fromStdString(b.storedHash.substr(0, 12)),
                             QString::fromStdString(b.expectedHash.substr(0, 12)));
    } else if (!chain->ok) {
        problems << tr("hash chain does not verify");
    } else {
        chainText = tr("hash chain intact (%1 rows)").arg(chain->rowsChecked);
    }
    if (problems.isEmpty()) {
        verdict_->setText(
            tr("<span style='color:#1a7f37'>✔ Verified: %n ε recomputed and matching the record; %1.</span>", nullptr,
               static_cast<int>(checked))
                .arg(chainText));
        return true;
    }
    verdict_->setText(
        tr("<span style='color:#b42318'>✘ Discrepancy: %1</span>").arg(problems.join("; ").toHtmlEscaped()));
    return false;
}

}  // namespace dpmix::workbench
