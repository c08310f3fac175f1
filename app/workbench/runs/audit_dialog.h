#pragma once
// The Audit dialog: which sensitive task, which canary (natural: a held-out real example;
// max-clip: the worst-case gradient), how many runs per world, and the no-noise control that
// checks the audit can detect a leak at all (docs/AUDIT.md).
#include "app/workbench/runs/run_action.h"

#include <QDialog>
#include <QStringList>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QSpinBox;

namespace dpmix::workbench {

class AuditDialog : public QDialog {
    Q_OBJECT

public:
    /// `tasks`: the project's sensitive tasks (OK stays disabled when there is none).
    explicit AuditDialog(const QStringList& tasks, QWidget* parent = nullptr);

    QComboBox* taskBox() const { return task_; }
    QComboBox* canaryBox() const { return canary_; }
    QSpinBox* runsBox() const { return runs_; }
    QCheckBox* noNoiseBox() const { return noNoise_; }
    QSpinBox* seedBox() const { return seed_; }
    QDialogButtonBox* buttons() const { return buttons_; }

    AuditSettings settings() const;

private:
    QComboBox* task_;
    QComboBox* canary_;
    QSpinBox* runs_;
    QCheckBox* noNoise_;
    QSpinBox* seed_;
    QDialogButtonBox* buttons_;
};

}  // namespace dpmix::workbench
