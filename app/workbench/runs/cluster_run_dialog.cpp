#include "app/workbench/runs/cluster_run_dialog.h"

#include "engine/study_plan/data_parallel.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpressionValidator>
#include <QSettings>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>

namespace dpmix::workbench {

QPushButton* addRunOnClusterButton(QDialog* dialog, QDialogButtonBox* buttons, const QString& why, bool* chosen) {
    QPushButton* button = buttons->addButton(QObject::tr("Run on c&luster…"), QDialogButtonBox::ActionRole);
    button->setEnabled(why.isEmpty());
    button->setToolTip(why.isEmpty() ? QObject::tr("Submit to Slurm as one job array (docs/CLUSTER.md)") : why);
    QObject::connect(button, &QPushButton::clicked, dialog, [dialog, chosen] {
        *chosen = true;
        dialog->accept();
    });
    return button;
}

ClusterRunDialog::ClusterRunDialog(const QString& what, long long auditRunsPerWorld, QWidget* parent)
    : QDialog(parent),
      maxParallel_(new QSpinBox),
      partition_(new QLineEdit),
      time_(new QLineEdit),
      cpus_(new QSpinBox),
      gpus_(new QSpinBox),
      account_(new QLineEdit),
      setup_(new QPlainTextEdit),
      buttons_(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel)) {
    setWindowTitle(tr("Run on cluster"));
    auto* intro = new QLabel(what + "<p>" +
                             tr("The work is prepared here (the proxy is trained first if the project has none), "
                                "then submitted as one Slurm job array. The <b>Cluster jobs</b> dock follows its "
                                "array tasks and stores the results in this project when all have finished. Empty "
                                "fields take the cluster's defaults.") +
                             "</p>");
    intro->setWordWrap(true);
    intro->setTextFormat(Qt::RichText);

    form_ = new QFormLayout;
    addWorkRow(auditRunsPerWorld);
    addSlurmRows();

    buttons_->button(QDialogButtonBox::Ok)->setText(tr("Submit"));
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addLayout(form_);
    layout->addWidget(buttons_);
    connect(buttons_, &QDialogButtonBox::accepted, this, [this] {
        remember();
        accept();
    });
    connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
}

// What the job runs: an audit's array tasks, or which run of the panel.
void ClusterRunDialog::addWorkRow(long long auditRunsPerWorld) {
    QFormLayout* form = form_;
    if (auditRunsPerWorld > 0) {
        units_ = new QSpinBox;
        units_->setObjectName("clusterUnits");
        units_->setRange(2, static_cast<int>(std::min<long long>(2 * auditRunsPerWorld, 10000)));
        units_->setSingleStep(2);
        units_->setValue(std::min(units_->maximum(), 8));
        units_->setToolTip(tr("Array tasks: each world's runs are split into half this many blocks (even)"));
        form->addRow(tr("Array &tasks:"), units_);
    } else {
        kind_ = new QComboBox;
        kind_->setObjectName("clusterKind");
        kind_->addItem(tr("Run DP-MixMin (the panel's stages)"), static_cast<int>(RunKind::DpMixMin));
        kind_->addItem(tr("Compare with baselines (5 methods, pretrain → fine-tune → evaluate)"),
                       static_cast<int>(RunKind::CompareBaselines));
        form->addRow(tr("&Run:"), kind_);
        // Data-parallel fine-tuning (docs/CLUSTER.md, "Ranks"): only Compare fine-tunes.
        ranks_ = new QSpinBox;
        ranks_->setObjectName("clusterRanks");
        ranks_->setRange(1, study_plan::kMostRanks);
        ranks_->setValue(1);
        ranks_->setToolTip(
            tr("Slurm tasks per array task: each DP-SGD fine-tuning runs data-parallel on this many "
               "ranks (rank 0 adds the noise once; every rank and the network between them must be "
               "inside the data owner's trust boundary). 1: one process."));
        form->addRow(tr("&Ranks per fine-tuning:"), ranks_);
        auto fineTunes = [this] {
            const bool compare = studyKind() == RunKind::CompareBaselines;
            ranks_->setEnabled(compare);
            if (!compare) ranks_->setValue(1);
        };
        connect(kind_, &QComboBox::currentIndexChanged, this, fineTunes);
        fineTunes();
    }
}

// The Slurm settings, prefilled with the last submission's (QSettings group "cluster").
void ClusterRunDialog::addSlurmRows() {
    QFormLayout* form = form_;
    QSettings settings;
    settings.beginGroup(QStringLiteral("cluster"));
    maxParallel_->setRange(0, 10000);
    maxParallel_->setSpecialValueText(tr("no limit"));
    maxParallel_->setValue(settings.value("maxParallel", 0).toInt());
    maxParallel_->setToolTip(tr("Array tasks running at once (sbatch --array=…%P)"));
    form->addRow(tr("At most &at once:"), maxParallel_);
    partition_->setPlaceholderText(tr("the cluster's default"));
    partition_->setText(settings.value("partition").toString());
    form->addRow(tr("&Partition:"), partition_);
    time_->setPlaceholderText(tr("the partition's, e.g. 02:00:00"));
    time_->setText(settings.value("time").toString());
    // Slurm's time formats: minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS.
    time_->setValidator(new QRegularExpressionValidator(
        QRegularExpression(QStringLiteral("^$|^(\\d+-)?\\d+(:\\d{1,2}){0,2}$")), time_));
    time_->setToolTip(tr("Time limit per array task (sbatch --time)"));
    form->addRow(tr("&Time limit per task:"), time_);
    cpus_->setRange(1, 1024);
    cpus_->setValue(settings.value("cpus", 1).toInt());
    cpus_->setToolTip(tr("CPUs per array task; the worker uses that many threads"));
    form->addRow(tr("&CPUs per task:"), cpus_);
    gpus_->setRange(0, 64);
    gpus_->setValue(settings.value("gpus", 0).toInt());
    gpus_->setToolTip(tr("GPUs per array task (a GPU partition); the mixture audit needs none"));
    form->addRow(tr("&GPUs per task:"), gpus_);
    account_->setPlaceholderText(tr("none"));
    account_->setText(settings.value("account").toString());
    form->addRow(tr("A&ccount:"), account_);
    setup_->setPlaceholderText(tr("shell lines each task runs first, e.g. module load dpmix"));
    setup_->setPlainText(settings.value("setup").toString());
    setup_->setMaximumHeight(70);
    form->addRow(tr("&Setup:"), setup_);
    settings.endGroup();
}

ClusterSubmission ClusterRunDialog::submission() const {
    ClusterSubmission s;
    s.slurm.maxParallel = maxParallel_->value();
    s.slurm.partition = partition_->text().trimmed().toStdString();
    s.slurm.time = time_->text().trimmed().toStdString();
    s.slurm.cpusPerTask = cpus_->value();
    s.slurm.gpusPerTask = gpus_->value();
    s.slurm.account = account_->text().trimmed().toStdString();
    s.slurm.setup = setup_->toPlainText().trimmed().toStdString();
    if (units_) s.auditUnits = units_->value() - units_->value() % 2;
    if (ranks_ && ranks_->isEnabled()) s.slurm.ranks = ranks_->value();
    return s;
}

void ClusterRunDialog::hideStudyKind() {
    if (kind_) form_->setRowVisible(kind_, false);
    if (ranks_) {  // a sweep's runs go one process per array task
        ranks_->setValue(1);
        ranks_->setEnabled(false);
        form_->setRowVisible(ranks_, false);
    }
}

RunKind ClusterRunDialog::studyKind() const {
    return kind_ ? static_cast<RunKind>(kind_->currentData().toInt()) : RunKind::Audit;
}

void ClusterRunDialog::remember() const {
    QSettings settings;
    settings.beginGroup(QStringLiteral("cluster"));
    settings.setValue("maxParallel", maxParallel_->value());
    settings.setValue("partition", partition_->text().trimmed());
    settings.setValue("time", time_->text().trimmed());
    settings.setValue("cpus", cpus_->value());
    settings.setValue("gpus", gpus_->value());
    settings.setValue("account", account_->text().trimmed());
    settings.setValue("setup", setup_->toPlainText().trimmed());
}

}  // namespace dpmix::workbench
