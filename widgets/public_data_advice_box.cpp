#include "widgets/public_data_advice_box.h"

#include <QLabel>
#include <QVBoxLayout>

namespace dpmix::widgets {
namespace {

QString whatsThisText() {
    return QObject::tr(
        "Whether pretraining on the public data is expected to pay at this study's size n and ε, read from the "
        "nearest regime of a map measured on reference data (Help ▸ Where public data pays). It is an empirical "
        "estimate, not a promise for your data: Run ▸ Compare with baselines measures it on your own study.");
}

}  // namespace

PublicDataAdviceBox::PublicDataAdviceBox(QWidget* parent)
    : QGroupBox(tr("Will public data help?"), parent), headline_(new QLabel), detail_(new QLabel) {
    setObjectName("publicDataAdvice");
    headline_->setObjectName("publicDataAdviceHeadline");
    detail_->setObjectName("publicDataAdviceDetail");
    for (QLabel* label : {headline_, detail_}) {
        label->setWordWrap(true);
        label->setTextFormat(Qt::PlainText);
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    }
    QFont small = detail_->font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    detail_->setFont(small);
    detail_->setStyleSheet("color: #505860;");
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(headline_);
    layout->addWidget(detail_);
    setVisible(false);
}

void PublicDataAdviceBox::setAdvice(const QString& headline, const QString& detail) {
    hasAdvice_ = true;
    headline_->setText(headline);
    headline_->setStyleSheet(QString());
    headline_->setToolTip(detail);
    detail_->setText(detail);
    detail_->setVisible(!detail.isEmpty());
    setToolTip(detail);
    setWhatsThis(whatsThisText() + QStringLiteral("\n\n") + detail);
    setVisible(true);
}

void PublicDataAdviceBox::setUnavailable(const QString& reason) {
    hasAdvice_ = false;
    headline_->setText(reason);
    headline_->setStyleSheet("color: #808890;");
    headline_->setToolTip(QString());
    detail_->clear();
    detail_->setVisible(false);
    setToolTip(QString());
    setWhatsThis(whatsThisText());
    setVisible(!reason.isEmpty());
}

QString PublicDataAdviceBox::headline() const { return hasAdvice_ ? headline_->text() : QString(); }

QString PublicDataAdviceBox::detail() const { return detail_->text(); }

}  // namespace dpmix::widgets
