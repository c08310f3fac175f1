#include "app/workbench/views/result_page_view.h"

#include "widgets/chart_widget.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QStackedWidget>
#include <QVBoxLayout>

namespace dpmix::workbench {

ResultPageView::ResultPageView(QWidget* parent)
    : QWidget(parent), controls_(new QHBoxLayout), note_(new QLabel), emptyState_(new QLabel),
      stack_(new QStackedWidget) {
    auto* layout = new QVBoxLayout(this);
    controls_->addStretch(1);
    layout->addLayout(controls_);
    note_->setWordWrap(true);
    note_->hide();
    layout->addWidget(note_);
    emptyState_->setObjectName("emptyState");
    emptyState_->setAlignment(Qt::AlignCenter);
    emptyState_->setWordWrap(true);
    QFont font = emptyState_->font();
    font.setPointSizeF(font.pointSizeF() * 1.2);
    emptyState_->setFont(font);
    emptyState_->setForegroundRole(QPalette::PlaceholderText);
    stack_->addWidget(emptyState_);
    layout->addWidget(stack_, 1);
}

void ResultPageView::addControl(QWidget* widget) {
    controls_->insertWidget(controls_->count() - 1, widget);  // before the closing stretch
}

bool ResultPageView::showsEmptyState() const { return stack_->currentWidget() == emptyState_; }

void ResultPageView::setChart(widgets::ChartWidget* chart) {
    stack_->addWidget(chart);
    stack_->setCurrentWidget(chart);
}

void ResultPageView::showEmptyState(const QString& text) {
    emptyState_->setText(text);
    stack_->setCurrentWidget(emptyState_);
}

void ResultPageView::showChart() {
    if (stack_->count() > 1) stack_->setCurrentIndex(1);
}

void ResultPageView::setNote(const QString& text) {
    note_->setText(text);
    note_->setVisible(!text.isEmpty());
}

}  // namespace dpmix::workbench
