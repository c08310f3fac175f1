#pragma once
// The Private set dialog (Run ▸ Generate private set (PSG)…): images per class, iterations,
// the evaluation and its references, the seed. ε, δ, the accountant and reproducibility are the
// panel's (docs/PSG.md, "Workbench").
#include "app/workbench/runs/run_action.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QLabel;
class QSpinBox;

namespace dpmix::workbench {

class PsgDialog : public QDialog {
    Q_OBJECT

public:
    /// `epsilon`: the panel's ε, which the run spends (shown, not edited here).
    explicit PsgDialog(double epsilon, QWidget* parent = nullptr);

    QComboBox* imagesPerClassBox() const { return spc_; }
    QSpinBox* iterationsBox() const { return iterations_; }
    QSpinBox* evaluationsBox() const { return evaluations_; }
    QCheckBox* referencesBox() const { return references_; }
    QLabel* costLine() const { return cost_; }
    QDialogButtonBox* buttons() const { return buttons_; }

    PsgSettings settings() const;

private:
    void updateCost();
    QComboBox* spc_;
    QSpinBox* iterations_;
    QSpinBox* evaluations_;
    QSpinBox* epochs_;
    QCheckBox* references_;
    QSpinBox* dpSgdSteps_;
    QSpinBox* seed_;
    QLabel* cost_;
    QDialogButtonBox* buttons_;
};

}  // namespace dpmix::workbench
