#include "app/workbench/views/run_details_view.h"

#include "app/workbench/views/run_details.h"

#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QStackedWidget>
#include <QTableWidget>
#include <QVBoxLayout>

namespace dpmix::workbench {
namespace {

QLabel* wrappedLabel() {
    auto* label = new QLabel;
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

/// A table exactly as tall as its rows (wrapped at the width it gets), so the page scrolls and
/// never each table, and no empty band is left under the last row.
class FittedTable : public QTableWidget {
public:
    FittedTable() {
        setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
        setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
        connect(horizontalHeader(), &QHeaderView::sectionResized, this, [this] { fitRows(); });
    }
    QSize sizeHint() const override { return {QTableWidget::sizeHint().width(), fittedHeight()}; }
    QSize minimumSizeHint() const override { return {0, fittedHeight()}; }
    void fitRows() {
        resizeRowsToContents();
        updateGeometry();
    }

protected:
    void resizeEvent(QResizeEvent* event) override {
        QTableWidget::resizeEvent(event);
        fitRows();
    }

private:
    int fittedHeight() const {
        int h = 2 * frameWidth();
        if (!horizontalHeader()->isHidden()) h += horizontalHeader()->sizeHint().height();
        for (int r = 0; r < rowCount(); ++r) h += rowHeight(r);
        if (horizontalScrollBar()->isVisible()) h += horizontalScrollBar()->sizeHint().height();
        return h;
    }
};

std::vector<QStringList> cells(const std::vector<DetailRow>& rows) {
    std::vector<QStringList> out;
    for (const auto& [key, value] : rows) out.push_back({key, value});
    return out;
}

}  // namespace

RunDetailsView::RunDetailsView(QWidget* parent)
    : QWidget(parent),
      stack_(new QStackedWidget),
      emptyState_(new QLabel),
      page_(new QWidget),
      title_(new QLabel),
      timeline_(wrappedLabel()),
      message_(wrappedLabel()),
      ledgerTotal_(wrappedLabel()) {
    setToolTip(
        tr("Everything stored for the run selected in the project tree: configuration, privacy ledger, "
           "metrics, λ, curves and models"));
    setWhatsThis(
        tr("<b>Run details</b><p>One run of the project as it is stored: what it is (method, task, ε, "
           "seed), its status and times, the settings it really used, what it spent of the privacy "
           "budget (each use of the sensitive data with its split, ε, δ, accountant and mechanism "
           "parameters, then the composed total), the metrics it measured, the mixture weights λ it "
           "chose, the curves it recorded and the models it stored.</p><p>It follows the run selected "
           "in the project tree (double-click a run, press Enter on it, or choose <i>Show run "
           "details</i> in its context menu). It only reads the project, so it works on read-only "
           "projects and releases too.</p>"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(stack_);

    emptyState_->setObjectName("emptyState");
    emptyState_->setAlignment(Qt::AlignCenter);
    emptyState_->setWordWrap(true);
    QFont big = emptyState_->font();
    big.setPointSizeF(big.pointSizeF() * 1.2);
    emptyState_->setFont(big);
    emptyState_->setForegroundRole(QPalette::PlaceholderText);
    stack_->addWidget(emptyState_);

    auto* scroll = new QScrollArea;
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(page_);
    stack_->addWidget(scroll);

    QFont titleFont = title_->font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.25);
    title_->setFont(titleFont);
    title_->setWordWrap(true);
    title_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    buildSections();
    layOutPage();
    showEmpty();
}

// The page's sections: configuration, privacy ledger (with its composed total), metrics, λ,
// curves, models.
void RunDetailsView::buildSections() {
    config_ = makeSection(tr("Configuration"),
                          tr("The settings the run really used, as stored with it (nested settings "
                             "as outer.inner)"),
                          {tr("Setting"), tr("Value")});
    ledger_ = makeSection(tr("Privacy ledger"),
                          tr("Each use of the sensitive data by this run: the stage, the split it touched, its ε and "
                             "δ, the accountant that certified ε, and the mechanism's parameters (q: sampling rate, "
                             "σ: noise multiplier, (α, r): Dirichlet parameters, C: clipping norm)"),
                          {tr("Stage"), tr("Split"), tr("Mechanism"), tr("Unit"), tr("ε"), tr("δ"), tr("Parameters"),
                           tr("Accountant"), tr("Established")});
    ledger_.stretch = {6, 7};  // parameters, accountant
    metrics_ = makeSection(tr("Metrics"), tr("The numbers the run measured (per class where a class is named)"),
                           {tr("Metric"), tr("Value")});
    lambdas_ = makeSection(tr("Mixture weights λ"),
                           tr("The weight of each public component in the mixture records the run stored: private = "
                              "the DP mixture it released, non-private = λ* (chosen without DP), uniform, random "
                              "search"),
                           {tr("Component")});
    curves_ = makeSection(tr("Curves"), tr("The series the run recorded step by step (the charts plot them)"),
                          {tr("Curve"), tr("Points")});
    models_ = makeSection(tr("Models"),
                          tr("The model weights the run stored next to the project (names and sizes; "
                             "the bytes stay in the project's .models folder)"),
                          {tr("Model"), tr("Size")});
    ledgerTotal_->setParent(ledger_.box);
    ledger_.box->layout()->addWidget(ledgerTotal_);
}

// The title, timeline and message over the ledger, then the other sections in two columns.
void RunDetailsView::layOutPage() {
    auto* content = new QVBoxLayout(page_);
    content->addWidget(title_);
    content->addWidget(timeline_);
    content->addWidget(message_);
    content->addWidget(ledger_.box);
    auto* columns = new QHBoxLayout;
    auto* left = new QVBoxLayout;
    left->addWidget(config_.box);
    left->addWidget(models_.box);
    left->addStretch(1);
    auto* right = new QVBoxLayout;
    right->addWidget(metrics_.box);
    right->addWidget(lambdas_.box);
    right->addWidget(curves_.box);
    right->addStretch(1);
    columns->addLayout(left, 1);
    columns->addLayout(right, 1);
    content->addLayout(columns);
    content->addStretch(1);
}

RunDetailsView::Section RunDetailsView::makeSection(const QString& title, const QString& tip,
                                                    const QStringList& columns) {
    Section s;
    s.box = new QGroupBox(title);
    s.box->setToolTip(tip);
    s.table = new FittedTable;
    s.table->setColumnCount(static_cast<int>(columns.size()));
    s.table->setHorizontalHeaderLabels(columns);
    s.table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    s.table->setAlternatingRowColors(true);
    s.table->verticalHeader()->hide();
    s.table->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    s.table->setWordWrap(true);
    s.table->setTextElideMode(Qt::ElideNone);
    s.note = wrappedLabel();
    s.note->setForegroundRole(QPalette::PlaceholderText);
    auto* layout = new QVBoxLayout(s.box);
    layout->addWidget(s.table);
    layout->addWidget(s.note);
    return s;
}

const RunDetailsView::Section& RunDetailsView::section(RunDetailsPart part) const {
    switch (part) {
        case RunDetailsPart::Config: return config_;
        case RunDetailsPart::Ledger: return ledger_;
        case RunDetailsPart::Metrics: return metrics_;
        case RunDetailsPart::Lambdas: return lambdas_;
        case RunDetailsPart::Curves: return curves_;
        case RunDetailsPart::Models: return models_;
    }
    return config_;
}

QTableWidget* RunDetailsView::table(RunDetailsPart part) const { return section(part).table; }
QLabel* RunDetailsView::note(RunDetailsPart part) const { return section(part).note; }

bool RunDetailsView::showsEmptyState() const { return stack_->currentWidget() == emptyState_; }

void RunDetailsView::showEmpty() {
    runId_.reset();
    projectPath_.clear();
    emptyState_->setText(tr("Select a run in the project tree"));
    stack_->setCurrentWidget(emptyState_);
}

void RunDetailsView::fill(const Section& s, const std::vector<QStringList>& rows, const QString& emptyNote) {
    QTableWidget* t = s.table;
    t->setRowCount(static_cast<int>(rows.size()));
    for (int r = 0; r < static_cast<int>(rows.size()); ++r)
        for (int c = 0; c < rows[r].size() && c < t->columnCount(); ++c) {
            auto* item = new QTableWidgetItem(rows[r][c]);
            item->setToolTip(rows[r][c]);
            t->setItem(r, c, item);
        }
    // Names and numbers keep their width; the text columns share the rest and wrap.
    QList<int> stretch = s.stretch;
    if (stretch.isEmpty()) stretch << t->columnCount() - 1;
    for (int c = 0; c < t->columnCount(); ++c)
        t->horizontalHeader()->setSectionResizeMode(
            c, stretch.contains(c) ? QHeaderView::Stretch : QHeaderView::ResizeToContents);
    static_cast<FittedTable*>(t)->fitRows();
    t->setVisible(!rows.empty());
    s.note->setText(emptyNote);
    s.note->setVisible(rows.empty() && !emptyNote.isEmpty());
}

void RunDetailsView::showRun(const ProjectSnapshot& project, long long runId) {
    const RunResults* run = project.findRun(runId);
    if (!run) {
        showEmpty();
        return;
    }
    runId_ = runId;
    projectPath_ = project.path;
    const project::RunRecord& r = run->run;
    title_->setText(runDetailsTitle(r));
    timeline_->setText(runTimeline(r));
    message_->setText(QString::fromStdString(r.message));
    message_->setVisible(!r.message.empty());
    const bool failed = r.status == project::RunStatus::Failed || r.status == project::RunStatus::Interrupted;
    message_->setStyleSheet(failed ? QStringLiteral("color: #b42318") : QString());

    fill(config_, cells(configRows(r.configJson)), tr("No configuration was stored with this run."));

    const LedgerDetails ledger = ledgerDetails(*run);
    std::vector<QStringList> ledgerRows;
    for (const auto& e : ledger.rows)
        ledgerRows.push_back(
            {e.stage, e.split, e.mechanism, e.unit, e.epsilon, e.delta, e.parameters, e.accountant, e.established});
    fill(ledger_, ledgerRows, ledger.note);
    ledger_.note->setVisible(!ledger.note.isEmpty());  // also "older ledgers exist" beside the table
    ledgerTotal_->setText(ledger.total);
    ledgerTotal_->setVisible(!ledger.total.isEmpty());

    fill(metrics_, cells(metricRows(*run)), tr("No metrics stored."));

    const LambdaTable lambda = lambdaTable(*run);
    lambdas_.table->setColumnCount(1 + static_cast<int>(lambda.kinds.size()));
    lambdas_.table->setHorizontalHeaderLabels(QStringList{tr("Component")} + lambda.kinds);
    std::vector<QStringList> lambdaRows;
    for (int i = 0; i < lambda.components.size(); ++i) {
        QStringList row{lambda.components[i]};
        for (const auto& v : lambda.values[i]) row << v;
        lambdaRows.push_back(row);
    }
    fill(lambdas_, lambdaRows, tr("No mixture weights stored."));

    fill(curves_, cells(curveRows(*run)), tr("No curves stored."));
    fill(models_, cells(modelRows(*run)), tr("No models stored."));
    stack_->setCurrentIndex(1);
}

}  // namespace dpmix::workbench
