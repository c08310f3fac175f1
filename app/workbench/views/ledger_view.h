#pragma once
// The privacy ledger of one run as a table (one row per mechanism, then the composed total),
// with Verify: every ε is recomputed from its parameters (privacy::Ledger::verify) and the
// project's hash chain is rechecked (ProjectFile::verifyChain). Entries an audit speaks to (the
// Dirichlet mechanism always) carry the verdict of the project's stored audits on their claim.
#include "app/workbench/project/project_snapshot.h"
#include "engine/audit/claim_verdict.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QPushButton;
class QTableWidget;

namespace dpmix::workbench {

class LedgerView : public QWidget {
    Q_OBJECT

public:
    explicit LedgerView(ProjectSnapshot project, QWidget* parent = nullptr);
    QComboBox* selector() const { return selector_; }
    QTableWidget* table() const { return table_; }
    QLabel* totalLabel() const { return total_; }
    QPushButton* verifyButton() const { return verify_; }
    QLabel* verdictLabel() const { return verdict_; }
    /// Runs the checks for the selected run; true when everything matches.
    bool verify();
    /// Selects the run with this id; false if it has no ledger.
    bool selectRun(long long runId);

private:
    void showRun(int index);
    ProjectSnapshot project_;
    std::vector<const RunResults*> runs_;              // runs with a ledger, in selector order
    std::vector<audit::StoredMechanismAudit> audits_;  // the project's audits of fine-tuning mechanisms
    QComboBox* selector_;
    QTableWidget* table_;
    QLabel* total_;
    QPushButton* verify_;
    QLabel* verdict_;
};

}  // namespace dpmix::workbench
