#pragma once
// The privacy calculator: for T steps of the Poisson-subsampled Gaussian mechanism
// with rate q, it shows ε(σ, δ) and the σ that meets a target ε by both accountants side by
// side: RDP (with its best order) and PRV (certified, with its bracket and the noise it saves).
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
    /// The PRV accountant's answers: certified ε with its [lower, upper] bracket; the smallest
    /// certified σ, its ε, and the saving against `rdpSigma` (0: unknown).
    void showPrvEpsilon(double epsilon, double lower, double upper);
    void showPrvEpsilonError(const QString& message);
    void showPrvSigma(double sigma, double epsilonAtSigma, double rdpSigma);
    void showPrvSigmaError(const QString& message);
    QString prvEpsilonText() const;
    QString prvSigmaText() const;
    QString prvSigmaDetail() const;

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
    QLabel* prvEpsilonOut_;
    QLabel* prvEpsilonDetail_;
    QLabel* prvSigmaOut_;
    QLabel* prvSigmaDetail_;
};

}  // namespace dpmix::widgets
