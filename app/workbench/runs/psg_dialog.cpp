#include "app/workbench/runs/psg_dialog.h"

#include "engine/psg_set/psg_params.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>

namespace dpmix::workbench {

PsgDialog::PsgDialog(double epsilon, QWidget* parent)
    : QDialog(parent),
      spc_(new QComboBox),
      iterations_(new QSpinBox),
      evaluations_(new QSpinBox),
      epochs_(new QSpinBox),
      references_(new QCheckBox(tr("Also train the references: a random real subset of the same size (non-private) "
                                   "and a ConvNet by DP-SGD on all training images at the same ε"))),
      dpSgdSteps_(new QSpinBox),
      seed_(new QSpinBox),
      cost_(new QLabel),
      buttons_(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel)) {
    setWindowTitle(tr("Generate a private set (PSG)"));
    for (int spc : {1, 10, 20, 50}) spc_->addItem(QString::number(spc), spc);
    spc_->setCurrentIndex(1);
    spc_->setToolTip(tr("Synthetic images per class: the size of the shared set S"));
    iterations_->setRange(1, 1000000);
    iterations_->setValue(3);
    iterations_->setToolTip(
        tr("Fresh networks S is matched on; the paper uses 1000. Each costs the DP gradient "
           "steps shown below, all charged to ε."));
    evaluations_->setRange(1, 100);
    evaluations_->setValue(3);
    evaluations_->setToolTip(tr("Networks trained on S (per architecture) to report accuracy mean ± std"));
    epochs_->setRange(1, 100000);
    epochs_->setValue(300);
    epochs_->setToolTip(tr("Epochs of each evaluation training on S (SGD, lr 0.01, momentum 0.9, lr × 0.1 at half)"));
    references_->setChecked(true);
    dpSgdSteps_->setRange(1, 10000000);
    dpSgdSteps_->setValue(300);
    dpSgdSteps_->setToolTip(tr("Steps of the direct DP-SGD reference (it spends its own ε on the same images)"));
    seed_->setRange(0, 1000000000);
    seed_->setToolTip(tr("Seed of S's start, the networks and the evaluations (public randomness)"));
    cost_->setWordWrap(true);
    auto* explanation = new QLabel(
        tr("PSG learns a few synthetic images per class by matching a ConvNet's gradients on them to differentially "
           "private gradients of the sensitive images. Only the synthetic set is released; it spends ε = %1 (the "
           "panel's). A study needs class labels on its sensitive images; no public data is used.")
            .arg(epsilon));
    explanation->setWordWrap(true);
    auto* form = new QFormLayout;
    form->addRow(tr("&Images per class:"), spc_);
    form->addRow(tr("&Iterations:"), iterations_);
    form->addRow(tr("&Evaluation trainings:"), evaluations_);
    form->addRow(tr("Evaluation &epochs:"), epochs_);
    form->addRow(QString(), references_);
    form->addRow(tr("&DP-SGD reference steps:"), dpSgdSteps_);
    form->addRow(tr("&Seed:"), seed_);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(explanation);
    layout->addLayout(form);
    layout->addWidget(cost_);
    layout->addWidget(buttons_);
    connect(buttons_, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(spc_, &QComboBox::currentIndexChanged, this, &PsgDialog::updateCost);
    connect(iterations_, &QSpinBox::valueChanged, this, &PsgDialog::updateCost);
    connect(references_, &QCheckBox::toggled, dpSgdSteps_, &QWidget::setEnabled);
    updateCost();
}

void PsgDialog::updateCost() {
    const psg::PsgLoops l = psg::loopsForImagesPerClass(spc_->currentData().toInt()).value();
    const long long steps = static_cast<long long>(iterations_->value()) * l.outer * 10;
    cost_->setText(tr("%1 DP gradient steps (%2 iterations × %3 matching rounds × 10), with %4 epochs of training on "
                      "S between rounds. On a 2-core CPU one iteration at 10 images per class takes about 5 minutes.")
                       .arg(steps)
                       .arg(iterations_->value())
                       .arg(l.outer)
                       .arg(static_cast<long long>(iterations_->value()) * (l.outer - 1) * l.inner));
}

PsgSettings PsgDialog::settings() const {
    PsgSettings s;
    s.imagesPerClass = spc_->currentData().toInt();
    s.iterations = iterations_->value();
    s.evaluations = evaluations_->value();
    s.evaluationEpochs = epochs_->value();
    s.references = references_->isChecked();
    s.dpSgdSteps = dpSgdSteps_->value();
    s.seed = seed_->value();
    return s;
}

}  // namespace dpmix::workbench
