#include "app/workbench/views/result_page_view.h"

#include "widgets/chart_widget.h"

#include <QAction>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QStackedWidget>
#include <QVBoxLayout>

namespace dpmix::workbench {

ResultPageView::ResultPageView(QWidget* parent)
    : QWidget(parent),
      controls_(new QHBoxLayout),
      note_(new QLabel),
      emptyState_(new QLabel),
      emptyButton_(new QPushButton),
      emptyPage_(new QWidget),
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
    emptyButton_->setObjectName("emptyStateButton");
    emptyButton_->hide();
    auto* emptyLayout = new QVBoxLayout(emptyPage_);
    emptyLayout->addStretch(1);
    emptyLayout->addWidget(emptyState_);
    emptyLayout->addWidget(emptyButton_, 0, Qt::AlignHCenter);
    emptyLayout->addStretch(1);
    stack_->addWidget(emptyPage_);
    layout->addWidget(stack_, 1);
}

void ResultPageView::addControl(QWidget* widget) {
    controls_->insertWidget(controls_->count() - 1, widget);  // before the closing stretch
}

bool ResultPageView::showsEmptyState() const { return stack_->currentWidget() == emptyPage_; }

void ResultPageView::setEmptyStateAction(QAction* action) {
    emptyButton_->disconnect();
    emptyButton_->setVisible(action != nullptr);
    if (!action) return;
    auto follow = [this, action] {
        emptyButton_->setText(action->text().remove(QLatin1Char('&')));
        emptyButton_->setEnabled(action->isEnabled());
        emptyButton_->setToolTip(action->toolTip());
    };
    follow();
    connect(action, &QAction::changed, emptyButton_, follow);
    connect(emptyButton_, &QPushButton::clicked, action, &QAction::trigger);
}

void ResultPageView::setChart(widgets::ChartWidget* chart) {
    stack_->addWidget(chart);
    stack_->setCurrentWidget(chart);
}

void ResultPageView::setChart(widgets::ChartWidget* chart, QWidget* below) {
    auto* page = new QWidget;
    auto* layout = new QVBoxLayout(page);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(chart, 3);
    layout->addWidget(below, 2);
    stack_->addWidget(page);
    stack_->setCurrentWidget(page);
}

void ResultPageView::showEmptyState(const QString& text) {
    emptyState_->setText(text);
    stack_->setCurrentWidget(emptyPage_);
}

void ResultPageView::showChart() {
    if (stack_->count() > 1) stack_->setCurrentIndex(1);
}

void ResultPageView::setNote(const QString& text) {
    note_->setText(text);
    note_->setVisible(!text.isEmpty());
}

}  // namespace dpmix::workbench
