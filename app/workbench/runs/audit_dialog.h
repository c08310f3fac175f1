#pragma once
// The Audit dialog: which mechanism (the mixture step, or a fine-tuning mechanism: Dirichlet,
// DP-SGD, non-private SGD), which sensitive task, which canary (mixture: natural or max-clip;
// fine-tuning: large-norm, gradient-aligned, flipped-label), how many runs per world, and the
// mixture audit's no-noise control that checks the audit can detect a leak at all (docs/AUDIT.md); or,
// for a fine-tuning mechanism, one training of the study's own fine-tuning with m canaries
// (the one-run audit: black-box canary images, or white-box canary gradients).
#include "app/workbench/runs/run_action.h"

#include <QDialog>
#include <QStringList>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QPushButton;
class QSpinBox;

namespace dpmix::workbench {

class AuditDialog : public QDialog {
    Q_OBJECT

public:
    /// `tasks`: the project's sensitive tasks (OK stays disabled when there is none).
    explicit AuditDialog(const QStringList& tasks, QWidget* parent = nullptr);

    QComboBox* mechanismBox() const { return mechanism_; }
    QComboBox* taskBox() const { return task_; }
    QComboBox* canaryBox() const { return canary_; }
    QSpinBox* runsBox() const { return runs_; }
    QCheckBox* noNoiseBox() const { return noNoise_; }
    QSpinBox* seedBox() const { return seed_; }
    /// A fine-tuning mechanism: audit the study's own fine-tuning in one training (m canaries).
    QCheckBox* oneRunBox() const { return oneRun_; }
    QCheckBox* whiteBoxBox() const { return whiteBox_; }
    QSpinBox* canariesBox() const { return canaries_; }
    QDialogButtonBox* buttons() const { return buttons_; }

    AuditSettings settings() const;

    /// Adds "Run on cluster…" (the mixture audit only): it closes the dialog accepted, and
    /// runsOnCluster() says so. `why`: when not empty, the button is disabled with this tooltip.
    void offerCluster(const QString& why = {});
    QPushButton* clusterButton() const { return cluster_; }
    bool runsOnCluster() const { return onCluster_; }

private:
    void fillCanaries();  // the canaries of the chosen mechanism
    void updateOneRun();  // the one-run choices follow the mechanism and each other
    QComboBox* mechanism_;
    QComboBox* task_;
    QComboBox* canary_;
    QSpinBox* runs_;
    QCheckBox* noNoise_;
    QSpinBox* seed_;
    QCheckBox* oneRun_;
    QCheckBox* whiteBox_;
    QSpinBox* canaries_;
    QDialogButtonBox* buttons_;
    QPushButton* cluster_ = nullptr;
    QString clusterUnavailable_;
    bool onCluster_ = false;
    void updateClusterButton();
};

}  // namespace dpmix::workbench
