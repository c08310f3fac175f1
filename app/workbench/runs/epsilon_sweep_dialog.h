#pragma once
// The ε sweep's dialog (the teaching demo): the ε values to run the study at, whether to run
// the mixture stage only (fast, λ quality vs ε) or the full pipeline (utility vs ε per method),
// and which sensitive tasks and methods, so a class sees AUC against ε in minutes. Invalid ε
// text, no task or no method is explained in place and keeps OK disabled.
#include "app/workbench/runs/run_action.h"

#include <QDialog>
#include <QString>
#include <QStringList>

#include <vector>

class QCheckBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;

namespace dpmix::workbench {

class EpsilonSweepDialog : public QDialog {
    Q_OBJECT

public:
    /// `tasks`: the study's sensitive tasks, all ticked at first (none listed: a single-task study).
    explicit EpsilonSweepDialog(const QStringList& tasks = {}, QWidget* parent = nullptr);

    QLineEdit* epsilonEdit() const { return epsilons_; }
    QCheckBox* fullPipelineBox() const { return fullPipeline_; }
    QCheckBox* shortTrainingBox() const { return shortTraining_; }
    QListWidget* taskList() const { return tasks_; }
    QListWidget* methodList() const { return methods_; }
    QLabel* errorLabel() const { return error_; }
    QDialogButtonBox* buttons() const { return buttons_; }

    /// The parsed values (empty while the text is invalid).
    std::vector<double> epsilons() const { return values_; }
    bool fullPipeline() const;
    /// What the sweep will run: ε, full pipeline, the ticked tasks (empty when all are ticked)
    /// and, for the full pipeline, the ticked methods (empty when all five are) and the short
    /// training's steps when it is ticked.
    SweepScope scope() const;

    /// Adds "Run on cluster…" (addRunOnClusterButton); runsOnCluster() then says it was chosen.
    void offerCluster(const QString& why = {});
    QPushButton* clusterButton() const { return cluster_; }
    bool runsOnCluster() const { return onCluster_; }

private:
    void revalidate();
    QString scopeProblem() const;
    QLineEdit* epsilons_;
    QCheckBox* fullPipeline_;
    QCheckBox* shortTraining_;
    QListWidget* tasks_;
    QListWidget* methods_;
    QLabel* error_;
    QDialogButtonBox* buttons_;
    std::vector<double> values_;
    QPushButton* cluster_ = nullptr;
    QString clusterUnavailable_;
    bool onCluster_ = false;
};

}  // namespace dpmix::workbench
