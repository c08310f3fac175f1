#pragma once
// The privacy calculator: for T steps of the Poisson-subsampled Gaussian mechanism
// with rate q, it shows ε(σ, δ) with the best RDP order, and the σ that meets a target ε.
// Inputs are plain text so a mistyped value can be shown with its reason; the owner computes.
#include <QWidget>

class QLabel;
class QLineEdit;

namespace dpmix::widgets {

struct CalculatorInputs {
    QString q = QStringLiteral("0.01");
    QString sigma = QStringLiteral("1.0");
    QString steps = QStringLiteral("1000");
    QString delta = QStringLiteral("1e-5");
    QString targetEpsilon = QStringLiteral("2");
};

class PrivacyCalculatorPanel : public QWidget {
    Q_OBJECT

public:
    explicit PrivacyCalculatorPanel(QWidget* parent = nullptr);

    CalculatorInputs inputs() const;
    void setInputs(const CalculatorInputs& inputs);  // does not emit inputsEdited

    /// Results of the two directions; an error disables (greys out) that output and shows why.
    void showEpsilon(double epsilon, double order);
    void showEpsilonError(const QString& message);
    void showSigma(double sigma, double epsilonAtSigma, double order);
    void showSigmaError(const QString& message);

    QString epsilonText() const;
    QString sigmaText() const;
    QString epsilonError() const;
    QString sigmaError() const;
    bool epsilonOutputEnabled() const;
    bool sigmaOutputEnabled() const;

    QLineEdit* qEditor() const { return q_; }
    QLineEdit* sigmaEditor() const { return sigma_; }
    QLineEdit* stepsEditor() const { return steps_; }
    QLineEdit* deltaEditor() const { return delta_; }
    QLineEdit* targetEpsilonEditor() const { return target_; }

Q_SIGNALS:
    void inputsEdited();

private:
    QLineEdit* q_;
    QLineEdit* sigma_;
    QLineEdit* steps_;
    QLineEdit* delta_;
    QLineEdit* target_;
    QLabel* epsilonOut_;
    QLabel* epsilonDetail_;
    QLabel* epsilonError_;
    QLabel* sigmaOut_;
    QLabel* sigmaDetail_;
    QLabel* sigmaError_;
};

}  // namespace dpmix::widgets
