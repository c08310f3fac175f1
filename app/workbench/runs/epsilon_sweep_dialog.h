#pragma once
// The ε sweep's dialog (the teaching demo): the ε values to run the study at, and whether to
// run the mixture stage only (fast, λ quality vs ε) or the full pipeline (utility vs ε per
// method). Invalid ε text is explained in place and keeps OK disabled.
#include <QDialog>
#include <QString>

#include <vector>

class QCheckBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace dpmix::workbench {

class EpsilonSweepDialog : public QDialog {
    Q_OBJECT

public:
    explicit EpsilonSweepDialog(QWidget* parent = nullptr);

    QLineEdit* epsilonEdit() const { return epsilons_; }
    QCheckBox* fullPipelineBox() const { return fullPipeline_; }
    QLabel* errorLabel() const { return error_; }
    QDialogButtonBox* buttons() const { return buttons_; }

    /// The parsed values (empty while the text is invalid).
    std::vector<double> epsilons() const { return values_; }
    bool fullPipeline() const;

    /// Adds "Run on cluster…" (addRunOnClusterButton); runsOnCluster() then says it was chosen.
    void offerCluster(const QString& why = {});
    QPushButton* clusterButton() const { return cluster_; }
    bool runsOnCluster() const { return onCluster_; }

private:
    void revalidate();
    QLineEdit* epsilons_;
    QCheckBox* fullPipeline_;
    QLabel* error_;
    QDialogButtonBox* buttons_;
    std::vector<double> values_;
    QPushButton* cluster_ = nullptr;
    QString clusterUnavailable_;
    bool onCluster_ = false;
};

}  // namespace dpmix::workbench
