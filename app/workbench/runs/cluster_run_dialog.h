#pragma once
// Run on cluster…: where and how a run or a mixture audit goes to Slurm as one job array — the
// partition, time limit, CPUs and GPUs per array task, account, setup lines, how many tasks run
// at once, (audit) how many array tasks the runs are split into and (Compare with baselines) on
// how many Slurm tasks each DP-SGD fine-tuning runs data-parallel. Slurm's own defaults apply
// to what is left empty. The last values are remembered (QSettings group "cluster").
#include "app/workbench/runs/run_action.h"

#include <QDialog>

class QComboBox;
class QPushButton;
class QDialogButtonBox;
class QFormLayout;
class QLineEdit;
class QPlainTextEdit;
class QSpinBox;

namespace dpmix::workbench {

/// Adds "Run on cluster…" to a run dialog's buttons (the Audit and ε sweep dialogs): a click sets
/// `*chosen` and accepts the dialog; the caller then asks ClusterRunDialog where to run. `why`
/// non-empty (no sbatch, no dpmix): the button is disabled with `why` as its tooltip.
QPushButton* addRunOnClusterButton(QDialog* dialog, QDialogButtonBox* buttons, const QString& why, bool* chosen);

class ClusterRunDialog : public QDialog {
    Q_OBJECT

public:
    /// `what`: one paragraph saying what is submitted. `auditRunsPerWorld` > 0: an audit, whose
    /// runs per world bound the array size (2 .. 2R, even); 0: a study run (one task per seed).
    explicit ClusterRunDialog(const QString& what, long long auditRunsPerWorld = 0, QWidget* parent = nullptr);

    /// A study run's choice between Run DP-MixMin and Compare with baselines (null for an audit).
    QComboBox* kindBox() const { return kind_; }
    QSpinBox* unitsBox() const { return units_; }
    /// Compare with baselines: the data-parallel ranks (Slurm tasks) of each DP-SGD fine-tuning.
    QSpinBox* ranksBox() const { return ranks_; }
    QSpinBox* maxParallelBox() const { return maxParallel_; }
    QLineEdit* partitionEdit() const { return partition_; }
    QLineEdit* timeEdit() const { return time_; }
    QSpinBox* cpusBox() const { return cpus_; }
    QSpinBox* gpusBox() const { return gpus_; }
    QLineEdit* accountEdit() const { return account_; }
    QPlainTextEdit* setupEdit() const { return setup_; }
    QDialogButtonBox* buttons() const { return buttons_; }

    ClusterSubmission submission() const;
    RunKind studyKind() const;  // Run DP-MixMin or Compare with baselines
    /// For a run whose kind is chosen already (the ε sweep): no Run row.
    void hideStudyKind();
    /// Stores the values for the next dialog (called on Submit).
    void remember() const;

private:
    void addWorkRow(long long auditRunsPerWorld);
    void addSlurmRows();
    QFormLayout* form_;
    QComboBox* kind_ = nullptr;
    QSpinBox* units_ = nullptr;
    QSpinBox* ranks_ = nullptr;
    QSpinBox* maxParallel_;
    QLineEdit* partition_;
    QLineEdit* time_;
    QSpinBox* cpus_;
    QSpinBox* gpus_;
    QLineEdit* account_;
    QPlainTextEdit* setup_;
    QDialogButtonBox* buttons_;
};

}  // namespace dpmix::workbench
