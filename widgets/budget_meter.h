#pragma once
// The privacy-budget meter of a sensitive dataset: what every DP release of the project has
// spent on it together (composed by the accountant, not added up), against the spec's cap.
// Plain values in, no engine: the owner computes the budget.
#include <QWidget>

#include <optional>

class QLabel;
class QProgressBar;

namespace dpmix::widgets {

struct BudgetReading {
    QString dataset;                 // the sensitive source's name
    QString unit;                    // "patients", "users", "examples": what one ε protects
    double spent = 0.0;              // composed ε over all releases (inf: a release is not private)
    double delta = 0.0;
    long long releases = 0;
    std::optional<double> cap;       // spec privacy.budget
    long long notCounted = 0;        // runs that are no DP release (non-private baselines, audits)
};

class BudgetMeter : public QWidget {
    Q_OBJECT

public:
    explicit BudgetMeter(QWidget* parent = nullptr);

    void setReading(const BudgetReading& reading);
    /// No project, or the budget cannot be read: the meter says why and shows no figure.
    void setUnavailable(const QString& why);

    QString text() const;            // the headline, for tests and screenshots
    int percentSpent() const;        // of the cap, 0–100 (0 without a cap)
    bool overCap() const;

private:
    QLabel* title_;
    QLabel* headline_;
    QLabel* detail_;
    QProgressBar* bar_;
    bool overCap_ = false;
};

}  // namespace dpmix::widgets
