#pragma once
// The privacy-budget meter of a sensitive dataset: what every DP release of every project on it
// has spent together (composed by the accountant, not added up; shared through the data owner's
// budget store), against its cap.
// Plain values in, no engine: the owner computes the budget.
#include <QWidget>

#include <optional>

class QLabel;
class QProgressBar;

namespace dpmix::widgets {

struct BudgetReading {
    QString dataset;     // the sensitive source's name
    QString unit;        // "patients", "users", "examples": what one ε protects
    double spent = 0.0;  // composed ε over all releases (inf: a release is not private)
    double delta = 0.0;
    long long releases = 0;
    std::optional<double> cap;    // the smallest of the budget store's, the spec's and the panel's caps
    QString capFrom;              // which of them ("the panel", "the budget store", "the spec")
    long long notCounted = 0;     // runs that are no DP release (non-private baselines, audits)
    long long otherReleases = 0;  // releases other project files on the same data made
    long long inProgress = 0;     // open reservations (runs in progress, or killed), counted in full
    QString store;                // the budget store's path; empty: this file's runs only
    QString storeNote;            // a new store, or why it cannot be read
};

class BudgetMeter : public QWidget {
    Q_OBJECT

public:
    explicit BudgetMeter(QWidget* parent = nullptr);

    void setReading(const BudgetReading& reading);
    /// No project, or the budget cannot be read: the meter says why and shows no figure.
    void setUnavailable(const QString& why);

    QString text() const;      // the headline, for tests and screenshots
    int percentSpent() const;  // of the cap, 0–100 (0 without a cap)
    bool overCap() const;

private:
    QLabel* title_;
    QLabel* headline_;
    QLabel* detail_;
    QProgressBar* bar_;
    bool overCap_ = false;
};

}  // namespace dpmix::widgets
