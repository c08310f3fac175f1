#include "app/workbench/runs/epsilon_sweep_dialog.h"
#include "app/workbench/runs/cluster_run_dialog.h"

#include "app/workbench/runs/run_requests.h"
#include "engine/methods/method_plan.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace dpmix::workbench {
namespace {

// A list of ticked items, tall enough for the five methods without a scroll bar.
QListWidget* tickList(const QString& objectName) {
    auto* list = new QListWidget;
    list->setObjectName(objectName);
    list->setMaximumHeight(118);
    return list;
}

void addTicked(QListWidget* list, const QString& text, const QString& value, const QString& toolTip = {}) {
    auto* item = new QListWidgetItem(text, list);
    item->setData(Qt::UserRole, value);
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
    item->setCheckState(Qt::Checked);
    item->setToolTip(toolTip);
}

// The ticked items' values; empty when every item is ticked (the engine's "all").
std::vector<std::string> tickedUnlessAll(const QListWidget* list) {
    std::vector<std::string> out;
    for (int i = 0; i < list->count(); ++i)
        if (list->item(i)->checkState() == Qt::Checked)
            out.push_back(list->item(i)->data(Qt::UserRole).toString().toStdString());
    if (static_cast<int>(out.size()) == list->count()) out.clear();
    return out;
}

int tickedCount(const QListWidget* list) {
    int n = 0;
    for (int i = 0; i < list->count(); ++i) n += list->item(i)->checkState() == Qt::Checked ? 1 : 0;
    return n;
}

// The demo's step counts: a curve of three ε and three methods in minutes on two cores.
constexpr long long kShortTrainingSteps = 100;

QString text(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

}  // namespace

EpsilonSweepDialog::EpsilonSweepDialog(const QStringList& tasks, QWidget* parent)
    : QDialog(parent),
      epsilons_(new QLineEdit(QStringLiteral("0.25, 0.5, 1, 2, 4, 8"))),
      fullPipeline_(new QCheckBox(tr("Full pipeline: pretrain, fine-tune and evaluate the chosen methods at each ε"))),
      shortTraining_(new QCheckBox(
          tr("Short training: %1 pretraining and %1 fine-tuning steps per method and ε").arg(kShortTrainingSteps))),
      tasks_(tickList(QStringLiteral("sweepTasks"))),
      methods_(tickList(QStringLiteral("sweepMethods"))),
      error_(new QLabel),
      buttons_(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel)) {
    setWindowTitle(tr("ε sweep"));
    epsilons_->setObjectName("sweepEpsilons");
    fullPipeline_->setObjectName("sweepFullPipeline");
    shortTraining_->setObjectName("sweepShortTraining");
    epsilons_->setToolTip(
        tr("The privacy budgets to run the same study at, e.g. \"0.5, 1, 2, 4\". Smaller ε means "
           "more noise: the sweep shows how much utility each unit of privacy buys."));
    fullPipeline_->setToolTip(
        tr("Off: only the mixture stage (minutes; λ's closeness to λ* per ε). On: the chosen methods "
           "through pretraining, private fine-tuning and evaluation (much longer; AUC against ε)."));
    shortTraining_->setChecked(true);
    shortTraining_->setToolTip(
        tr("Minutes instead of about an hour: the models are weaker than the study's own settings would "
           "train, but every method gets the same steps, so the comparison against ε stands. Off: the "
           "panel's Advanced step counts."));
    for (const QString& t : tasks) addTicked(tasks_, t, t);
    tasks_->setToolTip(tr("The sensitive tasks to sweep: one task is the quickest way to a curve."));
    for (const auto& m : methods::allMethods())
        addTicked(methods_, text(m.label), QString::fromStdString(std::string(m.name)),
                  m.choice == methods::Choice::NonPrivate
                      ? tr("Chooses λ on the sensitive data without privacy: a reference at ε = ∞")
                      : QString());
    methods_->setToolTip(
        tr("The methods the full pipeline compares at each ε (DP-MixMin, Uniform and Random Init "
           "are the teaching minimum)."));
    error_->setStyleSheet(QStringLiteral("color: #b42318"));
    error_->setWordWrap(true);
    auto* explanation =
        new QLabel(tr("Runs the study at each ε with the panel's δ, ρ, seeds and Advanced values. "
                      "The privacy–utility view plots λ against ε; with the full pipeline, the "
                      "“AUC vs ε” view plots each method's test AUC against ε."));
    explanation->setWordWrap(true);
    auto* form = new QFormLayout;
    form->addRow(tr("ε &values:"), epsilons_);
    if (!tasks.isEmpty()) form->addRow(tr("&Tasks:"), tasks_);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(explanation);
    layout->addLayout(form);
    layout->addWidget(fullPipeline_);
    auto* methodsForm = new QFormLayout;
    methodsForm->addRow(tr("&Methods:"), methods_);
    methodsForm->addRow(QString(), shortTraining_);
    layout->addLayout(methodsForm);
    layout->addWidget(error_);
    layout->addWidget(buttons_);
    if (tasks.isEmpty()) tasks_->hide();
    connect(buttons_, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(epsilons_, &QLineEdit::textChanged, this, &EpsilonSweepDialog::revalidate);
    connect(fullPipeline_, &QCheckBox::toggled, this, &EpsilonSweepDialog::revalidate);
    connect(tasks_, &QListWidget::itemChanged, this, &EpsilonSweepDialog::revalidate);
    connect(methods_, &QListWidget::itemChanged, this, &EpsilonSweepDialog::revalidate);
    revalidate();
}

bool EpsilonSweepDialog::fullPipeline() const { return fullPipeline_->isChecked(); }

SweepScope EpsilonSweepDialog::scope() const {
    SweepScope s;
    s.epsilons = values_;
    s.fullPipeline = fullPipeline();
    s.tasks = tickedUnlessAll(tasks_);
    if (s.fullPipeline) s.methods = tickedUnlessAll(methods_);
    if (s.fullPipeline && shortTraining_->isChecked()) s.trainingSteps = kShortTrainingSteps;
    return s;
}

QString EpsilonSweepDialog::scopeProblem() const {
    if (tasks_->count() > 0 && tickedCount(tasks_) == 0) return tr("Tasks: tick at least one task to sweep.");
    if (fullPipeline() && tickedCount(methods_) == 0) return tr("Methods: tick at least one method to compare.");
    return {};
}

void EpsilonSweepDialog::revalidate() {
    methods_->setEnabled(fullPipeline());  // the mixture stage is DP-MixMin's alone
    shortTraining_->setEnabled(fullPipeline());
    auto parsed = parseEpsilonList(epsilons_->text());
    values_ = parsed ? *parsed : std::vector<double>{};
    const QString problem = parsed ? scopeProblem() : QString::fromStdString(parsed.error().message);
    error_->setText(problem);
    buttons_->button(QDialogButtonBox::Ok)->setEnabled(problem.isEmpty());
    if (cluster_) cluster_->setEnabled(problem.isEmpty() && clusterUnavailable_.isEmpty());
}

void EpsilonSweepDialog::offerCluster(const QString& why) {
    clusterUnavailable_ = why;
    if (!cluster_) cluster_ = addRunOnClusterButton(this, buttons_, why, &onCluster_);
    revalidate();
}

}  // namespace dpmix::workbench
