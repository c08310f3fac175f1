#include "app/workbench/runs/epsilon_sweep_dialog.h"
#include "app/workbench/runs/cluster_run_dialog.h"

#include "app/workbench/runs/run_requests.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace dpmix::workbench {

EpsilonSweepDialog::EpsilonSweepDialog(QWidget* parent)
    : QDialog(parent),
      epsilons_(new QLineEdit(QStringLiteral("0.25, 0.5, 1, 2, 4, 8"))),
      fullPipeline_(new QCheckBox(tr("Full pipeline: pretrain, fine-tune and evaluate every method at each ε"))),
      error_(new QLabel),
      buttons_(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel)) {
    setWindowTitle(tr("ε sweep"));
    epsilons_->setObjectName("sweepEpsilons");
    epsilons_->setToolTip(
        tr("The privacy budgets to run the same study at, e.g. \"0.5, 1, 2, 4\". Smaller ε means "
           "more noise: the sweep shows how much utility each unit of privacy buys."));
    fullPipeline_->setToolTip(
        tr("Off: only the mixture stage (minutes; λ's closeness to λ* per ε). On: every method "
           "through pretraining, private fine-tuning and evaluation (much longer; AUC per ε)."));
    error_->setStyleSheet(QStringLiteral("color: #b42318"));
    error_->setWordWrap(true);
    auto* explanation =
        new QLabel(tr("Runs the study at each ε with the panel's δ, ρ, seeds and Advanced values. "
                      "The privacy–utility view plots the results against ε."));
    explanation->setWordWrap(true);
    auto* form = new QFormLayout;
    form->addRow(tr("ε &values:"), epsilons_);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(explanation);
    layout->addLayout(form);
    layout->addWidget(fullPipeline_);
    layout->addWidget(error_);
    layout->addWidget(buttons_);
    connect(buttons_, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(epsilons_, &QLineEdit::textChanged, this, &EpsilonSweepDialog::revalidate);
    revalidate();
}

bool EpsilonSweepDialog::fullPipeline() const { return fullPipeline_->isChecked(); }

void EpsilonSweepDialog::revalidate() {
    auto parsed = parseEpsilonList(epsilons_->text());
    values_ = parsed ? *parsed : std::vector<double>{};
    error_->setText(parsed ? QString() : QString::fromStdString(parsed.error().message));
    buttons_->button(QDialogButtonBox::Ok)->setEnabled(static_cast<bool>(parsed));
    if (cluster_) cluster_->setEnabled(parsed && clusterUnavailable_.isEmpty());
}

void EpsilonSweepDialog::offerCluster(const QString& why) {
    clusterUnavailable_ = why;
    if (!cluster_) cluster_ = addRunOnClusterButton(this, buttons_, why, &onCluster_);
    revalidate();
}

}  // namespace dpmix::workbench
