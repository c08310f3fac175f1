#pragma once
// "Will public data help?" in the parameter panel, read before pressing Run: one sentence of what
// to expect from pretraining on public data at this study's regime (the headline), the numbers
// and the caveat under it in a smaller line and as its tooltip and What's This, or in grey why
// there is no advice. The workbench computes the sentences (app/workbench/parameters/
// public_data_advice.h) from the regime map; the box only shows them.
#include <QGroupBox>
#include <QString>

class QLabel;

namespace dpmix::widgets {

class PublicDataAdviceBox : public QGroupBox {
    Q_OBJECT

public:
    explicit PublicDataAdviceBox(QWidget* parent = nullptr);

    /// Shows the advice: `headline` in the box, `detail` under it (smaller) and on hover.
    void setAdvice(const QString& headline, const QString& detail);
    /// No advice: `reason` in grey (the box stays, saying why), or the box hidden when empty.
    void setUnavailable(const QString& reason);

    QString headline() const;
    QString detail() const;
    /// True while advice (not a reason why there is none) is shown.
    bool hasAdvice() const { return hasAdvice_; }
    QLabel* headlineLabel() const { return headline_; }
    QLabel* detailLabel() const { return detail_; }

private:
    QLabel* headline_;
    QLabel* detail_;
    bool hasAdvice_ = false;
};

}  // namespace dpmix::widgets
