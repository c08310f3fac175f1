#pragma once
// File ▸ Export release…: choose the DP runs to share outside the data owner's trust boundary,
// whether to add the test metrics (not covered by the guarantee), a reason for any run whose
// guarantee is not established, and the file to write. Runs that cannot be released are listed,
// greyed, with the reason.
#include "app/workbench/project/release_choice.h"
#include "engine/project/release_export.h"

#include <QDialog>

class QCheckBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QTreeWidget;

namespace dpmix::workbench {

class ReleaseDialog : public QDialog {
    Q_OBJECT

public:
    ReleaseDialog(const ProjectSnapshot& project, QWidget* parent = nullptr);

    /// The chosen runs, test-metric choice and reason, as the engine takes them.
    project::ReleaseOptions options() const;
    QString target() const;

    // For tests: the widgets a user works with.
    QTreeWidget* runList() const { return runs_; }
    QCheckBox* testMetricsBox() const { return testMetrics_; }
    QLineEdit* reasonEdit() const { return reason_; }
    QLineEdit* targetEdit() const { return target_; }
    bool canAccept() const;

private:
    void updateState();

    std::vector<ReleaseCandidate> candidates_;
    QTreeWidget* runs_;
    QCheckBox* testMetrics_;
    QLineEdit* reason_;
    QLineEdit* target_;
    QLabel* status_;
    QDialogButtonBox* buttons_;
};

}  // namespace dpmix::workbench
