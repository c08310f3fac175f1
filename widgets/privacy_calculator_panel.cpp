#include "widgets/privacy_calculator_panel.h"

#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QVBoxLayout>

#include <cmath>

namespace dpmix::widgets {
namespace {

QLabel* makeResultLabel() {
    auto* label = new QLabel(QStringLiteral("—"));
    QFont f = label->font();
    f.setPointSizeF(f.pointSizeF() * 1.5);
    f.setBold(true);
    label->setFont(f);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

QLabel* makeErrorLabel() {
    auto* label = new QLabel;
    label->setWordWrap(true);
    label->setStyleSheet("color: #b00020;");
    label->setVisible(false);
    return label;
}

QString formatOrder(double order) {
    return std::isfinite(order) ? QString::number(order, 'g', 4) : QStringLiteral("—");
}

}  // namespace

PrivacyCalculatorPanel::PrivacyCalculatorPanel(QWidget* parent)
    : QWidget(parent),
      q_(new QLineEdit),
      sigma_(new QLineEdit),
      steps_(new QLineEdit),
      delta_(new QLineEdit),
      target_(new QLineEdit),
      epsilonOut_(makeResultLabel()),
      epsilonDetail_(new QLabel),
      epsilonError_(makeErrorLabel()),
      sigmaOut_(makeResultLabel()),
      sigmaDetail_(new QLabel),
      sigmaError_(makeErrorLabel()),
      prvEpsilonOut_(makeResultLabel()),
      prvEpsilonDetail_(new QLabel),
      prvSigmaOut_(makeResultLabel()),
      prvSigmaDetail_(new QLabel) {
    auto* layout = new QVBoxLayout(this);
    auto* intro =
        new QLabel(tr("Privacy of T steps of the Poisson-subsampled Gaussian mechanism (DP-SGD, DP-MixMin), "
                      "by two accountants: Rényi DP (RDP, Balle et al. 2020 conversion) and privacy loss "
                      "distributions (PRV, Gopi et al. 2021), whose certified ε is tighter."));
    intro->setWordWrap(true);
    layout->addWidget(intro);

    auto* shared = new QGroupBox(tr("Mechanism"));
    auto* sharedForm = new QFormLayout(shared);
    q_->setToolTip(tr("Sampling rate: the chance that any one example is in a step's batch (batch / n)."));
    steps_->setToolTip(tr("Number of noisy steps T; every step spends privacy."));
    delta_->setToolTip(tr("Failure probability δ of the (ε, δ) guarantee; keep it below 1/n."));
    sharedForm->addRow(tr("Sampling rate q"), q_);
    sharedForm->addRow(tr("Steps T"), steps_);
    sharedForm->addRow(tr("δ"), delta_);
    layout->addWidget(shared);

    auto* forward = new QGroupBox(tr("ε from noise"));
    auto* forwardForm = new QFormLayout(forward);
    sigma_->setToolTip(tr("Noise multiplier σ: noise standard deviation divided by the clip norm."));
    forwardForm->addRow(tr("Noise multiplier σ"), sigma_);
    forwardForm->addRow(tr("ε (RDP) ="), epsilonOut_);
    forwardForm->addRow(QString(), epsilonDetail_);
    forwardForm->addRow(tr("ε (PRV) ="), prvEpsilonOut_);
    forwardForm->addRow(QString(), prvEpsilonDetail_);
    forwardForm->addRow(QString(), epsilonError_);
    layout->addWidget(forward);

    auto* inverse = new QGroupBox(tr("Noise for a target ε"));
    auto* inverseForm = new QFormLayout(inverse);
    target_->setToolTip(tr("The ε you want to meet; the calculator finds the smallest σ that meets it."));
    inverseForm->addRow(tr("Target ε"), target_);
    inverseForm->addRow(tr("σ (RDP) ="), sigmaOut_);
    inverseForm->addRow(QString(), sigmaDetail_);
    inverseForm->addRow(tr("σ (PRV) ="), prvSigmaOut_);
    inverseForm->addRow(QString(), prvSigmaDetail_);
    inverseForm->addRow(QString(), sigmaError_);
    layout->addWidget(inverse);
    layout->addStretch(1);

    epsilonOut_->setObjectName("epsilonResult");
    sigmaOut_->setObjectName("sigmaResult");
    prvEpsilonOut_->setObjectName("prvEpsilonResult");
    prvSigmaOut_->setObjectName("prvSigmaResult");
    prvEpsilonOut_->setToolTip(
        tr("Certified by the PRV accountant: the smaller of its upper bound (within 0.01 of "
           "the true ε) and the RDP bound; both are valid guarantees."));
    prvSigmaOut_->setToolTip(tr("The smallest σ (to 0.01%) whose PRV-certified ε meets the target."));
    setInputs(CalculatorInputs{});
    for (QLineEdit* edit : {q_, sigma_, steps_, delta_, target_})
        connect(edit, &QLineEdit::textEdited, this, &PrivacyCalculatorPanel::inputsEdited);
}

CalculatorInputs PrivacyCalculatorPanel::inputs() const {
    return {q_->text(), sigma_->text(), steps_->text(), delta_->text(), target_->text()};
}

void PrivacyCalculatorPanel::setInputs(const CalculatorInputs& in) {
    q_->setText(in.q);
    sigma_->setText(in.sigma);
    steps_->setText(in.steps);
    delta_->setText(in.delta);
    target_->setText(in.targetEpsilon);
}

void PrivacyCalculatorPanel::showEpsilon(double epsilon, double order) {
    epsilonOut_->setEnabled(true);
    epsilonOut_->setText(std::isfinite(epsilon) ? QString::number(epsilon, 'g', 5) : QStringLiteral("∞"));
    epsilonDetail_->setText(tr("best RDP order α = %1").arg(formatOrder(order)));
    epsilonError_->clear();
    epsilonError_->setVisible(false);
}

void PrivacyCalculatorPanel::showEpsilonError(const QString& message) {
    epsilonOut_->setEnabled(false);
    epsilonOut_->setText(QStringLiteral("—"));
    epsilonDetail_->clear();
    epsilonError_->setText(message);
    epsilonError_->setVisible(true);
}

void PrivacyCalculatorPanel::showSigma(double sigma, double epsilonAtSigma, double order) {
    sigmaOut_->setEnabled(true);
    sigmaOut_->setText(QString::number(sigma, 'g', 6));
    sigmaDetail_->setText(tr("gives ε = %1 at order α = %2").arg(epsilonAtSigma, 0, 'g', 5).arg(formatOrder(order)));
    sigmaError_->clear();
    sigmaError_->setVisible(false);
}

void PrivacyCalculatorPanel::showSigmaError(const QString& message) {
    sigmaOut_->setEnabled(false);
    sigmaOut_->setText(QStringLiteral("—"));
    sigmaDetail_->clear();
    sigmaError_->setText(message);
    sigmaError_->setVisible(true);
}

void PrivacyCalculatorPanel::showPrvEpsilon(double epsilon, double lower, double upper) {
    prvEpsilonOut_->setEnabled(true);
    prvEpsilonOut_->setText(std::isfinite(epsilon) ? QString::number(epsilon, 'g', 5) : QStringLiteral("∞"));
    prvEpsilonDetail_->setText(
        tr("certified; the true ε lies in [%1, %2]").arg(lower, 0, 'g', 4).arg(upper, 0, 'g', 4));
}

void PrivacyCalculatorPanel::showPrvEpsilonError(const QString& message) {
    prvEpsilonOut_->setEnabled(false);
    prvEpsilonOut_->setText(QStringLiteral("—"));
    prvEpsilonDetail_->setText(message);
}

void PrivacyCalculatorPanel::showPrvSigma(double sigma, double epsilonAtSigma, double rdpSigma) {
    prvSigmaOut_->setEnabled(true);
    prvSigmaOut_->setText(QString::number(sigma, 'g', 6));
    QString detail = tr("certifies ε = %1").arg(epsilonAtSigma, 0, 'g', 5);
    if (rdpSigma > 0.0) detail += tr("; %1% less noise than RDP").arg(100.0 * (1.0 - sigma / rdpSigma), 0, 'f', 1);
    prvSigmaDetail_->setText(detail);
}

void PrivacyCalculatorPanel::showPrvSigmaError(const QString& message) {
    prvSigmaOut_->setEnabled(false);
    prvSigmaOut_->setText(QStringLiteral("—"));
    prvSigmaDetail_->setText(message);
}

QString PrivacyCalculatorPanel::prvEpsilonText() const { return prvEpsilonOut_->text(); }
QString PrivacyCalculatorPanel::prvSigmaText() const { return prvSigmaOut_->text(); }
QString PrivacyCalculatorPanel::prvSigmaDetail() const { return prvSigmaDetail_->text(); }

QString PrivacyCalculatorPanel::epsilonText() const { return epsilonOut_->text(); }
QString PrivacyCalculatorPanel::sigmaText() const { return sigmaOut_->text(); }
QString PrivacyCalculatorPanel::epsilonError() const { return epsilonError_->text(); }
QString PrivacyCalculatorPanel::sigmaError() const { return sigmaError_->text(); }
bool PrivacyCalculatorPanel::epsilonOutputEnabled() const { return epsilonOut_->isEnabled(); }
bool PrivacyCalculatorPanel::sigmaOutputEnabled() const { return sigmaOut_->isEnabled(); }

}  // namespace dpmix::widgets
