#include "widgets/budget_meter.h"

#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace dpmix::widgets {
namespace {

QString epsilonText(double e) { return std::isinf(e) ? QStringLiteral("∞") : QString::number(e, 'f', 2); }

}  // namespace

BudgetMeter::BudgetMeter(QWidget* parent)
    : QWidget(parent), title_(new QLabel), headline_(new QLabel), detail_(new QLabel), bar_(new QProgressBar) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    title_->setText(tr("<b>Spent on the sensitive data</b>"));
    bar_->setRange(0, 100);
    bar_->setTextVisible(false);
    bar_->setMaximumHeight(10);
    detail_->setWordWrap(true);
    headline_->setWordWrap(true);
    layout->addWidget(title_);
    layout->addWidget(headline_);
    layout->addWidget(bar_);
    layout->addWidget(detail_);
    setToolTip(
        tr("Every DP release stored in the project — DP-MixMin mixtures, fine-tuned models, every sweep point, and "
           "cancelled or interrupted runs whose mechanism had started — composed by the RDP accountant (not a sum "
           "of ε's). Non-private baselines, audits and test-set metrics are for the analyst and are not counted."));
    setUnavailable(tr("Open a project to see what its sensitive data has spent."));
}

void BudgetMeter::setReading(const BudgetReading& r) {
    const QString spent = epsilonText(r.spent);
    overCap_ = r.cap && !(r.spent <= *r.cap);
    if (r.cap) {
        headline_->setText(tr("%1 (%2): ε %3 of %4 spent (data set total)")
                               .arg(r.dataset, r.unit, spent, QString::number(*r.cap, 'g', 6)));
        const double share = std::isinf(r.spent) ? 1.0 : std::clamp(r.spent / *r.cap, 0.0, 1.0);
        bar_->setValue(static_cast<int>(std::lround(100.0 * share)));
        bar_->setVisible(true);
    } else {
        headline_->setText(tr("%1 (%2): ε %3 spent (data set total), no cap").arg(r.dataset, r.unit, spent));
        bar_->setValue(0);
        bar_->setVisible(false);
    }
    QString detail = tr("%n DP release(s), δ = %1", nullptr, static_cast<int>(r.releases)).arg(r.delta, 0, 'g', 3);
    if (r.notCounted > 0)
        detail += tr("; %n run(s) not counted (no DP release)", nullptr, static_cast<int>(r.notCounted));
    if (r.otherReleases > 0)
        detail +=
            tr("; %n of them by other project files on the same data", nullptr, static_cast<int>(r.otherReleases));
    if (r.inProgress > 0)
        detail += tr("; %n run(s) in progress or killed, counted in full", nullptr, static_cast<int>(r.inProgress));
    if (r.cap && !r.capFrom.isEmpty()) detail += tr("; cap from %1").arg(r.capFrom);
    if (!r.cap) detail += tr("; set “Data set's total cap ε” in the privacy settings to cap it");
    if (!r.storeNote.isEmpty()) detail += QStringLiteral(". ") + r.storeNote;
    detail_->setText(detail);
    detail_->setToolTip(r.store.isEmpty() ? QString() : tr("Budget store: %1").arg(r.store));
    headline_->setStyleSheet(overCap_ ? QStringLiteral("color: #b00020;") : QString());
}

void BudgetMeter::setUnavailable(const QString& why) {
    overCap_ = false;
    headline_->setText(why);
    headline_->setStyleSheet(QString());
    detail_->clear();
    bar_->setValue(0);
    bar_->setVisible(false);
}

QString BudgetMeter::text() const { return headline_->text(); }
int BudgetMeter::percentSpent() const { return bar_->isVisibleTo(this) ? bar_->value() : 0; }
bool BudgetMeter::overCap() const { return overCap_; }

}  // namespace dpmix::widgets
