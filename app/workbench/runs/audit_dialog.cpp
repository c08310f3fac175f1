#include "app/workbench/runs/audit_dialog.h"
#include "app/workbench/runs/cluster_run_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace dpmix::workbench {
namespace {

enum class CanaryChoice { MaxClipTop, MaxClipQuietest, Natural };

}  // namespace

AuditDialog::AuditDialog(const QStringList& tasks, QWidget* parent)
    : QDialog(parent),
      mechanism_(new QComboBox),
      task_(new QComboBox),
      canary_(new QComboBox),
      runs_(new QSpinBox),
      noNoise_(new QCheckBox(tr("No-noise control (σ = 0: the audit must find a large ε)"))),
      seed_(new QSpinBox),
      oneRun_(new QCheckBox(tr("&One training of the study's own fine-tuning (a one-run audit)"))),
      whiteBox_(new QCheckBox(tr("&White-box: canary gradients (DP-SGD and SGD)"))),
      canaries_(new QSpinBox),
      buttons_(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel)) {
    setWindowTitle(tr("Audit a mechanism"));
    mechanism_->addItem(tr("the mixture step of DP-MixMin"), QString());
    mechanism_->addItem(tr("fine-tuning: the Dirichlet mechanism (its ε is claimed, not established)"),
                        QStringLiteral("dirichlet"));
    mechanism_->addItem(tr("fine-tuning: DP-SGD (the control at the same ε)"), QStringLiteral("dp-sgd"));
    mechanism_->addItem(tr("fine-tuning: non-private SGD (the control that must find leakage)"), QStringLiteral("sgd"));
    mechanism_->setToolTip(
        tr("What is audited: the mixture learning of DP-MixMin, or a fine-tuning mechanism trained "
           "on a small logistic-regression task (docs/AUDIT.md, \"Auditing fine-tuning "
           "mechanisms\"). Fine-tuning audits claim the panel's ε."));
    task_->addItems(tasks);
    task_->setToolTip(tr("The sensitive task whose mixture learning is audited"));
    fillCanaries();
    runs_->setRange(2, 1000000);
    runs_->setValue(2000);
    runs_->setToolTip(
        tr("Runs per world (with and without the canary). More runs give a tighter lower bound on ε "
           "and take proportionally longer; 1000 per world are enough to refute a claim up to ε ≈ 4.9."));
    seed_->setRange(0, 1000000000);
    seed_->setToolTip(tr("Seed of the ρ split, the natural canary's choice and the audit's runs"));
    noNoise_->setToolTip(tr("Runs the same audit without noise: a sanity check that the attack would detect a leak."));
    oneRun_->setObjectName("auditOneRun");
    oneRun_->setToolTip(
        tr("Audit the fine-tuning this study runs (its network, steps, batch, clip and σ) in one training on split "
           "B with m canaries, each put in with probability 1/2, instead of many trainings of a small "
           "logistic-regression head: it costs about one fine-tuning (docs/AUDIT.md, \"One-run audits\")."));
    whiteBox_->setObjectName("auditWhiteBox");
    whiteBox_->setToolTip(
        tr("Insert canary gradients into DP-SGD's noisy sums and read every step: detects a mechanism that lost "
           "its noise where canary images cannot, but tests only the noise and its accounting."));
    canaries_->setObjectName("auditCanaries");
    canaries_->setRange(10, 100000);
    canaries_->setValue(1000);
    canaries_->setToolTip(tr("How many canaries the one training holds (m); a tenth are guessed in and a tenth out"));
    connect(oneRun_, &QCheckBox::toggled, this, &AuditDialog::updateOneRun);
    auto* explanation =
        new QLabel(tr("The audit runs the mechanism many times with and without a canary and "
                      "reports an empirical lower bound ε_LB, to compare with the claimed ε."));
    explanation->setWordWrap(true);
    auto* form = new QFormLayout;
    form->addRow(tr("&Mechanism:"), mechanism_);
    form->addRow(tr("&Task:"), task_);
    form->addRow(tr("&Canary:"), canary_);
    form->addRow(tr("&Runs per world:"), runs_);
    form->addRow(tr("&Seed:"), seed_);
    form->addRow(QString(), oneRun_);
    form->addRow(QString(), whiteBox_);
    form->addRow(tr("Ca&naries m:"), canaries_);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(explanation);
    layout->addLayout(form);
    layout->addWidget(noNoise_);
    layout->addWidget(buttons_);
    buttons_->button(QDialogButtonBox::Ok)->setEnabled(!tasks.isEmpty());
    connect(mechanism_, &QComboBox::currentIndexChanged, this, [this] {
        fillCanaries();
        updateOneRun();
        updateClusterButton();
    });
    updateOneRun();
    connect(buttons_, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
}

void AuditDialog::fillCanaries() {
    const bool training = !mechanism_->currentData().toString().isEmpty();
    canary_->clear();
    if (training) {
        canary_->addItem(tr("large norm (an out-of-distribution input: nothing clips its gradient in the Dirichlet "
                            "mechanism)"),
                         QStringLiteral("large-norm"));
        canary_->addItem(tr("gradient-aligned (the direction public images occupy least)"),
                         QStringLiteral("gradient-aligned"));
        canary_->addItem(tr("flipped label (a held-out image with the wrong label)"), QStringLiteral("flipped-label"));
        canary_->setToolTip(
            tr("Large norm: a checkerboard ten times the mean image norm. Gradient-aligned: made from "
               "public images only, where the other examples' gradients are weakest. Flipped label: "
               "a real held-out image contradicting its neighbours."));
    } else {
        canary_->addItem(tr("max-clip at the top source (worst-case gradient, as the paper)"),
                         int(CanaryChoice::MaxClipTop));
        canary_->addItem(tr("max-clip at the quietest source (strongest on curved objectives)"),
                         int(CanaryChoice::MaxClipQuietest));
        canary_->addItem(tr("natural (a held-out real example)"), int(CanaryChoice::Natural));
        canary_->setToolTip(
            tr("Max-clip inserts a gradient of norm C: at the source with the largest λ* (the "
               "paper's canary), or at the source whose gradient varies least over split A, where "
               "sampling hides it least (the stronger test when λ* sits in a steep valley). Natural "
               "inserts a real held-out example (what an attacker could plausibly do)."));
    }
    // The no-noise control is the mixture audit's; fine-tuning has its own control (non-private SGD).
    noNoise_->setVisible(!training);
}

void AuditDialog::updateOneRun() {
    const QString mechanism = mechanism_->currentData().toString();
    const bool training = !mechanism.isEmpty();
    oneRun_->setVisible(training);
    if (!training) oneRun_->setChecked(false);
    const bool oneRun = oneRun_->isChecked();
    // White-box canaries are gradients added to DP-SGD's clipped sum: the Dirichlet mechanism has none.
    whiteBox_->setVisible(oneRun);
    whiteBox_->setEnabled(mechanism != QStringLiteral("dirichlet"));
    if (!whiteBox_->isEnabled()) whiteBox_->setChecked(false);
    canaries_->setEnabled(oneRun);
    runs_->setEnabled(!oneRun);  // one training: no runs per world
}

void AuditDialog::offerCluster(const QString& why) {
    clusterUnavailable_ = why;
    if (!cluster_) cluster_ = addRunOnClusterButton(this, buttons_, why, &onCluster_);
    updateClusterButton();
}

void AuditDialog::updateClusterButton() {
    if (!cluster_) return;
    const bool mixture = mechanism_->currentData().toString().isEmpty();
    cluster_->setEnabled(clusterUnavailable_.isEmpty() && mixture &&
                         buttons_->button(QDialogButtonBox::Ok)->isEnabled());
    cluster_->setToolTip(
        !clusterUnavailable_.isEmpty() ? clusterUnavailable_
        : mixture                      ? tr("Submit the audit's runs to Slurm as one job array (docs/CLUSTER.md)")
                  : tr("An audit of a fine-tuning mechanism runs here; the mixture audit runs on a cluster"));
}

AuditSettings AuditDialog::settings() const {
    AuditSettings s;
    s.task = task_->currentText();
    s.mechanism = mechanism_->currentData().toString();
    if (!s.mechanism.isEmpty()) {
        s.trainingCanary = canary_->currentData().toString();
        s.runs = runs_->value();
        s.seed = seed_->value();
        s.oneRun = oneRun_->isChecked();
        s.whiteBox = s.oneRun && whiteBox_->isChecked();
        s.canaries = canaries_->value();
        return s;
    }
    const auto choice = static_cast<CanaryChoice>(canary_->currentData().toInt());
    s.naturalCanary = choice == CanaryChoice::Natural;
    s.quietestSource = choice == CanaryChoice::MaxClipQuietest;
    s.runs = runs_->value();
    s.noNoise = noNoise_->isChecked();
    s.seed = seed_->value();
    return s;
}

}  // namespace dpmix::workbench
