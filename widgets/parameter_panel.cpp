#include "widgets/parameter_panel.h"

#include "widgets/log_slider_spin_box.h"
#include "widgets/public_data_advice_box.h"

#include <QAbstractSpinBox>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QVBoxLayout>

#include <cmath>

namespace dpmix::widgets {
namespace {

// An editor with its message label underneath; the label takes no space while hidden.
QWidget* withMessage(QWidget* editor, QLabel* message) {
    auto* box = new QWidget;
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(editor);
    layout->addWidget(message);
    return box;
}

QFormLayout* makeForm(QGroupBox* group) {
    auto* form = new QFormLayout(group);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->setLabelAlignment(Qt::AlignRight | Qt::AlignVCenter);
    form->setRowWrapPolicy(QFormLayout::DontWrapRows);
    return form;
}

constexpr int kRhoSliderSteps = 100;  // ρ slider in whole percent; the spin box takes finer values

}  // namespace

ParameterPanel::ParameterPanel(QWidget* parent)
    : QWidget(parent),
      epsilon_(new LogSliderSpinBox(0.01, 100.0, 3)),
      delta_(new QLineEdit),
      budgetCap_(new QLineEdit),
      count_(new QSpinBox),
      rhoSlider_(new QSlider(Qt::Horizontal)),
      rho_(new QDoubleSpinBox),
      splitSummary_(new QLabel),
      seeds_(new QLineEdit),
      composition_(new QComboBox),
      accountant_(new QComboBox),
      reproducible_(new QCheckBox(tr("Reproducible (seeded: not a release)"))),
      advanced_(new QGroupBox(tr("Advanced: mixture learning stage"))),
      clip_(new QDoubleSpinBox),
      batch_(new QSpinBox),
      learningRate_(new QDoubleSpinBox),
      steps_(new QSpinBox),
      summary_(new QLabel),
      run_(new QPushButton(tr("Run DP-MixMin"))) {
    auto* layout = new QVBoxLayout(this);
    buildBudgetSection(layout);
    buildSplitSection(layout);
    buildMixtureSection(layout);
    addStageSections(layout);
    buildRunSection(layout);
    layout->addStretch(1);

    setValues(values_);
    explainLabels();
    connectFields();

    // Ctrl+Z in a field must undo the document's last edit, not the field's private text
    // history (which would leave panel and document disagreeing).
    for (QLineEdit* edit : findChildren<QLineEdit*>()) edit->installEventFilter(this);
}

// Privacy budget: ε, δ, the data set's cap, composition, accountant, reproducibility.
void ParameterPanel::buildBudgetSection(QVBoxLayout* layout) {
    auto* budget = new QGroupBox(tr("Privacy budget"));
    auto* budgetForm = makeForm(budget);
    epsilon_->setToolTip(
        tr("How much any one person's data may change one release of the run (each sensitive "
           "task and seed is a release of its own). Smaller ε = stronger privacy, noisier results. "
           "The slider is logarithmic (0.01 to 100).\n"
           "Paper: ε ∈ {1, 2, 5}; default 2."));
    budgetForm->addRow(fieldLabel(ParameterField::Epsilon),
                       withMessage(epsilon_, addMessageLabel(ParameterField::Epsilon)));
    delta_->setToolTip(
        tr("The small probability with which the ε guarantee may fail. Keep it well below 1/n "
           "(n = number of sensitive examples).\nPaper default: 1e-5."));
    delta_->setPlaceholderText(tr("e.g. 1e-5"));
    budgetForm->addRow(fieldLabel(ParameterField::Delta), withMessage(delta_, addMessageLabel(ParameterField::Delta)));
    budgetCap_->setToolTip(
        tr("The most the sensitive data set may spend in total, over every release of every "
           "project on it (composed by the accountant, not added up). A run that would bring the "
           "total above it is refused before it touches the data. Empty: no cap of your own (the "
           "data owner's budget store and the spec may still set one; the smallest applies)."));
    budgetCap_->setPlaceholderText(tr("none, e.g. 8"));
    budgetForm->addRow(fieldLabel(ParameterField::BudgetCap),
                       withMessage(budgetCap_, addMessageLabel(ParameterField::BudgetCap)));
    composition_->addItem(tr("Parallel (disjoint splits A and B)"), static_cast<int>(CompositionMode::Parallel));
    composition_->addItem(tr("Sequential (budgets add up)"), static_cast<int>(CompositionMode::Sequential));
    composition_->setToolTip(
        tr("Parallel: mixture learning uses split A and fine-tuning split B, different people, so "
           "the run costs max(ε_A, ε_B) = ε.\nSequential: both stages are charged to the same "
           "budget, so each stage gets half of ε and δ.\nPaper default: parallel."));
    budgetForm->addRow(fieldLabel(ParameterField::Composition),
                       withMessage(composition_, addMessageLabel(ParameterField::Composition)));
    accountant_->addItem(tr("PRV (privacy loss distributions, tighter)"), static_cast<int>(AccountantChoice::Prv));
    accountant_->addItem(tr("RDP (Rényi DP)"), static_cast<int>(AccountantChoice::Rdp));
    accountant_->setToolTip(
        tr("How the privacy cost of the noisy steps is computed, which sets how much noise a "
           "given ε needs.\nPRV (the default for new studies): composes the exact privacy loss "
           "distributions and certifies an upper bound on ε within 0.01; typically 3-18% less "
           "noise than RDP for the same ε.\nRDP: Rényi DP, looser but classic (what projects "
           "created before dpmix had PRV use). Each ledger entry records which one certified it."));
    budgetForm->addRow(fieldLabel(ParameterField::Accountant),
                       withMessage(accountant_, addMessageLabel(ParameterField::Accountant)));
    reproducible_->setToolTip(
        tr("Off (the default): every DP step draws secret randomness from the operating system, "
           "stored nowhere, so the results are a release.\nOn: sampling and noise are derived "
           "from the run seed, which the project file stores - anyone holding the file can "
           "regenerate the noise, so the guarantee does not hold for it. For teaching, research "
           "and checking results only; the ledger marks every such run \"not a release\"."));
    budgetForm->addRow(fieldLabel(ParameterField::Reproducible),
                       withMessage(reproducible_, addMessageLabel(ParameterField::Reproducible)));
    layout->addWidget(budget);
}

// Sensitive data split: n, ρ with its split summary and guidance, the seeds.
void ParameterPanel::buildSplitSection(QVBoxLayout* layout) {
    auto* split = new QGroupBox(tr("Sensitive data split"));
    auto* splitForm = makeForm(split);
    count_->setRange(0, 2'000'000'000);
    count_->setGroupSeparatorShown(true);
    count_->setToolTip(
        tr("How many sensitive training examples (or users, for user-level privacy) there are. "
           "It is read from the project's data once a data set is attached.\n"
           "Paper: 89,696 NIH chest X-ray training images."));
    QWidget* countRow = withMessage(count_, addMessageLabel(ParameterField::SensitiveCount));
    splitForm->addRow(fieldLabel(ParameterField::SensitiveCount), countRow);
    countLabel_ = qobject_cast<QLabel*>(splitForm->labelForField(countRow));
    rhoSlider_->setRange(1, kRhoSliderSteps - 1);
    rho_->setRange(0.0, 1.0);
    rho_->setDecimals(3);
    rho_->setSingleStep(0.01);
    const QString rhoTip =
        tr("The fraction of the sensitive data used to learn the mixture weights (split A); the rest "
           "(split B) is used to fine-tune. Larger ρ = better weights, less fine-tuning data.\n"
           "Paper default: 0.1 for images, 0.3 for Enron.");
    rhoSlider_->setToolTip(rhoTip);
    rho_->setToolTip(rhoTip);
    auto* rhoRow = new QWidget;
    auto* rhoLayout = new QHBoxLayout(rhoRow);
    rhoLayout->setContentsMargins(0, 0, 0, 0);
    rhoLayout->addWidget(rhoSlider_, 1);
    rhoLayout->addWidget(rho_);
    auto* rhoBox = withMessage(rhoRow, addMessageLabel(ParameterField::Rho));
    splitSummary_->setObjectName("splitSummary");
    splitSummary_->setWordWrap(true);
    splitSummary_->setStyleSheet("color: #505860;");
    qobject_cast<QVBoxLayout*>(rhoBox->layout())->insertWidget(1, splitSummary_);
    rhoGuidance_ = new QLabel;
    rhoGuidance_->setObjectName("rhoGuidance");
    rhoGuidance_->setWordWrap(true);
    rhoGuidance_->setTextFormat(Qt::RichText);
    rhoGuidance_->setStyleSheet("color: #505860;");
    rhoGuidance_->setVisible(false);
    rhoGuidance_->setWhatsThis(
        tr("How large split A should be for the privacy noise not to dominate λ's error, from "
           "the excess-risk bound of private convex optimisation on the simplex: the privacy "
           "term shrinks like √(k·log(1/δ))/(n·ε), the statistical term like 1/√n. Below the "
           "shown share of the data the run is privacy-limited (raise ε or ρ); above it, "
           "more data for λ helps only statistically. The bound's constants are not known "
           "unless calibrated on public pilot data, so read it as a scale, not a promise."));
    qobject_cast<QVBoxLayout*>(rhoBox->layout())->insertWidget(2, rhoGuidance_);
    splitForm->addRow(fieldLabel(ParameterField::Rho), rhoBox);
    splitForm_ = splitForm;
    rhoBox_ = rhoBox;
    seeds_->setToolTip(
        tr("Each seed repeats the whole run with fresh randomness (sampling, noise, initialisation); "
           "results are reported as mean ± std over seeds. Whole numbers, separated by commas.\n"
           "Paper: several seeds per setting."));
    splitForm->addRow(fieldLabel(ParameterField::Seeds), withMessage(seeds_, addMessageLabel(ParameterField::Seeds)));
    layout->addWidget(split);
}

// Advanced: mixture learning (Algorithm 1): clip norm, batch size, learning rate, steps.
void ParameterPanel::buildMixtureSection(QVBoxLayout* layout) {
    auto* advancedForm = makeForm(advanced_);
    clip_->setRange(0.0, 1e6);
    clip_->setDecimals(2);
    clip_->setToolTip(
        tr("Each example's gradient is shortened to at most this length before noise is added, which "
           "bounds how much one person can move the weights. Noise scales with it.\nPaper default: 13."));
    advancedForm->addRow(fieldLabel(ParameterField::ClipNorm),
                         withMessage(clip_, addMessageLabel(ParameterField::ClipNorm)));
    batch_->setRange(0, 100'000'000);
    batch_->setGroupSeparatorShown(true);
    batch_->setToolTip(
        tr("How many examples of split A each step looks at on average (each is picked independently "
           "with probability B / n_A). Larger batches average away more noise.\nPaper default: 1000."));
    advancedForm->addRow(fieldLabel(ParameterField::BatchSize),
                         withMessage(batch_, addMessageLabel(ParameterField::BatchSize)));
    learningRate_->setRange(0.0, 1000.0);
    learningRate_->setDecimals(2);
    learningRate_->setSingleStep(0.1);
    learningRate_->setToolTip(
        tr("How far each step moves the mixture weights (exponentiated-gradient step size). Too "
           "large oscillates, too small does not converge.\nPaper: 0.5, 1 or 2; default 1."));
    advancedForm->addRow(fieldLabel(ParameterField::LearningRate),
                         withMessage(learningRate_, addMessageLabel(ParameterField::LearningRate)));
    steps_->setRange(0, 10'000'000);
    steps_->setToolTip(
        tr("How many noisy steps mixture learning takes. Every step spends privacy, so more steps "
           "need more noise per step for the same ε.\nDefault: 100 (the paper does not report it)."));
    advancedForm->addRow(fieldLabel(ParameterField::Steps),
                         withMessage(steps_, addMessageLabel(ParameterField::Steps)));
    layout->addWidget(advanced_);
}

// The live privacy summary of this run and the Run button.
void ParameterPanel::buildRunSection(QVBoxLayout* layout) {
    auto* calculator = new QGroupBox(tr("Privacy of this run"));
    calculator_ = calculator;
    auto* calcLayout = new QVBoxLayout(calculator);
    summary_->setObjectName("privacySummary");
    summary_->setWordWrap(true);
    summary_->setTextFormat(Qt::RichText);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    summary_->setMinimumHeight(summary_->fontMetrics().height() * 4);
    computingNote_ = new QLabel(tr("<i>computing…</i>"));
    computingNote_->setObjectName("computingNote");
    computingNote_->setVisible(false);
    calcLayout->addWidget(computingNote_);
    calcLayout->addWidget(summary_);
    layout->addWidget(calculator);
    advice_ = new PublicDataAdviceBox;
    layout->addWidget(advice_);
    run_->setToolTip(
        tr("Train the proxies (public data) and learn the mixture λ on split A with these parameters. "
           "Run ▸ Compare with baselines also pretrains and fine-tunes every method."));
    run_->setDefault(true);
    layout->addWidget(run_);
}

// Every field's edit becomes one emitEdit of its ParameterField (the document applies it).
void ParameterPanel::connectFields() {
    connect(epsilon_, &LogSliderSpinBox::valueEdited, this, [this](double v) { emitEdit(ParameterField::Epsilon, v); });
    connect(delta_, &QLineEdit::textEdited, this, [this](const QString& t) { emitEdit(ParameterField::Delta, t); });
    connect(budgetCap_, &QLineEdit::textEdited, this,
            [this](const QString& t) { emitEdit(ParameterField::BudgetCap, t); });
    connect(count_, &QSpinBox::valueChanged, this,
            [this](int v) { emitEdit(ParameterField::SensitiveCount, static_cast<qint64>(v)); });
    connect(rho_, &QDoubleSpinBox::valueChanged, this, [this](double v) { emitEdit(ParameterField::Rho, v); });
    connect(rhoSlider_, &QSlider::valueChanged, this, [this](int percent) {
        if (!applying_) emitEdit(ParameterField::Rho, static_cast<double>(percent) / kRhoSliderSteps);
    });
    connect(seeds_, &QLineEdit::textEdited, this, [this](const QString& t) { emitEdit(ParameterField::Seeds, t); });
    connect(composition_, &QComboBox::activated, this,
            [this](int index) { emitEdit(ParameterField::Composition, composition_->itemData(index).toInt()); });
    connect(accountant_, &QComboBox::activated, this,
            [this](int index) { emitEdit(ParameterField::Accountant, accountant_->itemData(index).toInt()); });
    connect(reproducible_, &QCheckBox::toggled, this, [this](bool on) { emitEdit(ParameterField::Reproducible, on); });
    connect(clip_, &QDoubleSpinBox::valueChanged, this, [this](double v) { emitEdit(ParameterField::ClipNorm, v); });
    connect(batch_, &QSpinBox::valueChanged, this, [this](int v) { emitEdit(ParameterField::BatchSize, v); });
    connect(learningRate_, &QDoubleSpinBox::valueChanged, this,
            [this](double v) { emitEdit(ParameterField::LearningRate, v); });
    connect(steps_, &QSpinBox::valueChanged, this, [this](int v) { emitEdit(ParameterField::Steps, v); });
    connect(run_, &QPushButton::clicked, this, &ParameterPanel::runRequested);
}

void ParameterPanel::addStageSections(QLayout* layout) {
    pretrainGroup_ = new QGroupBox(tr("Advanced: pretraining on the mixed public data"));
    pretrainGroup_->setToolTip(
        tr("A fresh model learns from the public data mixed by λ. It sees no sensitive data, "
           "so these settings cost no privacy."));
    auto* pretrain = makeForm(pretrainGroup_);
    addCountField(pretrain, ParameterField::PretrainBatch, 1'000'000,
                  tr("Public images per pretraining step.\nDefault: 256."));
    addRealField(pretrain, ParameterField::PretrainLearningRate, 100.0, 4,
                 tr("SGD step size of pretraining.\nDefault: 0.1."));
    addCountField(pretrain, ParameterField::PretrainSteps, 10'000'000,
                  tr("How many pretraining steps. More steps cost time, not privacy.\nDefault: 1000."));
    layout->addWidget(pretrainGroup_);

    finetuneGroup_ = new QGroupBox(tr("Advanced: private fine-tuning (split B)"));
    finetuneGroup_->setToolTip(
        tr("The pretrained model is fine-tuned on split B with the study's fine-tuning "
           "mechanism, calibrated to the run's ε and δ."));
    auto* finetune = makeForm(finetuneGroup_);
    finetuneForm_ = finetune;
    finetuneMechanism_ = new QLabel;
    finetuneMechanism_->setObjectName("finetuneMechanism");
    finetuneMechanism_->setWordWrap(true);
    finetuneMechanism_->setToolTip(
        tr("The mechanism is the study spec's (stages.finetune.mechanism); the fields "
           "below are that mechanism's."));
    finetune->addRow(tr("Mechanism"), finetuneMechanism_);
    const auto rowOf = [](QWidget* editor) { return editor->parentWidget(); };  // the withMessage box
    dpSgdRows_ << rowOf(addRealField(finetune, ParameterField::FinetuneClip, 1e6, 3,
                                     tr("Each example's (or user's) gradient is shortened to at most this length "
                                        "before noise is added. Noise scales with it.\nDefault: 2.")));
    dpSgdRows_ << rowOf(addCountField(finetune, ParameterField::FinetuneBatch, 100'000'000,
                                      tr("How many examples of split B each step looks at on average (Poisson "
                                         "sampling with probability B / n_B); users at user level. It must not "
                                         "exceed split B.\nDefault: 256.")));
    dpSgdRows_ << rowOf(addRealField(finetune, ParameterField::FinetuneLearningRate, 100.0, 6,
                                     tr("Step size of private fine-tuning.\nDefault: 0.0001.")));
    dpSgdRows_ << rowOf(addCountField(finetune, ParameterField::FinetuneSteps, 10'000'000,
                                      tr("How many noisy fine-tuning steps. Every step spends privacy: more steps "
                                         "need more noise per step for the same ε.\nDefault: 1000.")));
    addAdamixRows(finetune);
    layout->addWidget(finetuneGroup_);
}

// AdaMix-R's rows (docs/ADAMIX.md, "As a study's fine-tuning mechanism"): what the spec fixes
// (the shots and their source, r, τ, q) is shown read-only; T and η are edited like any field.
void ParameterPanel::addAdamixRows(QFormLayout* form) {
    const auto specRow = [&](const QString& key, const QString& label, const QString& tip) {
        auto* value = new QLabel;
        value->setObjectName(QStringLiteral("adamix_") + key);
        value->setToolTip(tip + tr("\nSet in the study spec (stages.finetune)."));
        value->setTextInteractionFlags(Qt::TextSelectableByMouse);
        form->addRow(label, value);
        if (QWidget* rowLabel = form->labelForField(value)) rowLabel->setToolTip(value->toolTip());
        adamixSpecLabels_.insert(key, value);
        adamixRows_ << value;
    };
    specRow(QStringLiteral("shots"), tr("Public shots per class"),
            tr("Labelled public images per class of the task that guide AdaMix-R: its start, its gradient "
               "subspace and its clip norm. They are drawn per seed and held out of pretraining."));
    specRow(QStringLiteral("source"), tr("Shots source"),
            tr("The public source the shots are drawn from; its labels must include the task's classes."));
    specRow(QStringLiteral("rank"), tr("Subspace rank r"),
            tr("The private gradients are projected on the top-r directions of the public gradients before "
               "clipping and noise.\nDefault: min(m, 64), m = the number of shots."));
    specRow(QStringLiteral("clip-quantile"), tr("Clip quantile τ"),
            tr("Each step's clip norm is this quantile of the public projected-gradient norms.\nDefault: 0.5."));
    specRow(QStringLiteral("q"), tr("Sampling rate q"),
            tr("Each private example joins a step with probability q (1: every example, every step).\nDefault: 1."));
    const auto rowOf = [](QWidget* editor) { return editor->parentWidget(); };
    adamixRows_ << rowOf(addCountField(form, ParameterField::AdamixSteps, 10'000'000,
                                       tr("AdaMix-R's noisy steps on split B. Every step spends privacy: more steps "
                                          "need more noise per step for the same ε.\nDefault: 200.")));
    adamixRows_ << rowOf(addRealField(form, ParameterField::AdamixEta, 100.0, 6,
                                      tr("AdaMix-R's constant step size η for the softmax head on the frozen "
                                         "features.\nDefault: 1.")));
}

void ParameterPanel::showFinetuneMechanism() {
    const bool adamix = values_.finetunesWithAdamix();
    finetuneGroup_->setTitle(adamix ? tr("Advanced: private fine-tuning with AdaMix-R (split B)")
                                    : tr("Advanced: private fine-tuning (split B)"));
    finetuneMechanism_->setText(adamix ? tr("AdaMix-R: public-guided private fine-tuning of a softmax head on the "
                                            "pretrained model's frozen features (no clip norm or batch to set)")
                                : values_.finetuneMechanism == FinetuneMechanism::Dirichlet
                                    ? tr("Dirichlet (its guarantee is claimed, not established)")
                                    : tr("DP-SGD"));
    for (QWidget* row : std::as_const(dpSgdRows_)) finetuneForm_->setRowVisible(row, !adamix);
    for (QWidget* row : std::as_const(adamixRows_)) finetuneForm_->setRowVisible(row, adamix);
    const QLocale english(QLocale::English);
    adamixSpecLabels_.value("shots")->setText(english.toString(values_.adamixShots));
    adamixSpecLabels_.value("source")->setText(values_.adamixShotsSource);
    adamixSpecLabels_.value("rank")->setText(values_.adamixRank > 0 ? english.toString(values_.adamixRank)
                                                                    : tr("min(m, 64) (the default)"));
    adamixSpecLabels_.value("clip-quantile")->setText(QString::number(values_.adamixClipQuantile, 'g', 6));
    adamixSpecLabels_.value("q")->setText(QString::number(values_.adamixQ, 'g', 6));
}

QSpinBox* ParameterPanel::addCountField(QFormLayout* form, ParameterField field, int maximum, const QString& tip) {
    auto* box = new QSpinBox;
    box->setObjectName(QStringLiteral("editor_") + fieldKey(field));
    box->setRange(0, maximum);
    box->setGroupSeparatorShown(true);
    box->setToolTip(tip);
    form->addRow(fieldLabel(field), withMessage(box, addMessageLabel(field)));
    stageEditors_.insert(field, box);
    connect(box, &QSpinBox::valueChanged, this, [this, field](int v) { emitEdit(field, v); });
    return box;
}

QDoubleSpinBox* ParameterPanel::addRealField(QFormLayout* form, ParameterField field, double maximum, int decimals,
                                             const QString& tip) {
    auto* box = new QDoubleSpinBox;
    box->setObjectName(QStringLiteral("editor_") + fieldKey(field));
    box->setRange(0.0, maximum);
    box->setDecimals(decimals);
    box->setStepType(QAbstractSpinBox::AdaptiveDecimalStepType);
    box->setToolTip(tip);
    form->addRow(fieldLabel(field), withMessage(box, addMessageLabel(field)));
    stageEditors_.insert(field, box);
    connect(box, &QDoubleSpinBox::valueChanged, this, [this, field](double v) { emitEdit(field, v); });
    return box;
}

void ParameterPanel::setRhoGuidance(const QString& html) {
    rhoGuidance_->setText(html);
    rhoGuidance_->setVisible(!html.isEmpty());
}

QString ParameterPanel::rhoGuidance() const { return rhoGuidance_->text(); }

bool ParameterPanel::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() == QEvent::ShortcutOverride) {
        auto* key = static_cast<QKeyEvent*>(event);
        if (key->matches(QKeySequence::Undo) || key->matches(QKeySequence::Redo)) {
            event->ignore();  // not taken by the field: the window's Undo/Redo shortcut fires
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

QLabel* ParameterPanel::addMessageLabel(ParameterField field) {
    auto* label = new QLabel;
    label->setObjectName(QStringLiteral("message_") + fieldKey(field));
    label->setWordWrap(true);
    label->setVisible(false);
    messageLabels_.insert(field, label);
    return label;
}

void ParameterPanel::emitEdit(ParameterField field, const QVariant& value) {
    if (applying_) return;
    setFieldValue(values_, field, value);
    Q_EMIT fieldEdited(field, value);
}

void ParameterPanel::setValues(const RunParameters& v) {
    applying_ = true;
    values_ = v;
    // Only touch controls that show something else: re-setting a spin box reformats its text
    // and would move the cursor while the user types.
    if (epsilon_->value() != v.epsilon) epsilon_->setValue(v.epsilon);
    if (delta_->text() != v.delta) delta_->setText(v.delta);
    if (budgetCap_->text() != v.budgetCap) budgetCap_->setText(v.budgetCap);
    if (count_->value() != v.sensitiveCount) count_->setValue(static_cast<int>(v.sensitiveCount));
    if (rho_->value() != v.rho) rho_->setValue(v.rho);
    rhoSlider_->setValue(static_cast<int>(std::lround(v.rho * kRhoSliderSteps)));
    if (seeds_->text() != v.seeds) seeds_->setText(v.seeds);
    composition_->setCurrentIndex(composition_->findData(static_cast<int>(v.composition)));
    accountant_->setCurrentIndex(accountant_->findData(static_cast<int>(v.accountant)));
    if (reproducible_->isChecked() != v.reproducible) reproducible_->setChecked(v.reproducible);
    if (clip_->value() != v.clipNorm) clip_->setValue(v.clipNorm);
    if (batch_->value() != v.batchSize) batch_->setValue(v.batchSize);
    if (learningRate_->value() != v.learningRate) learningRate_->setValue(v.learningRate);
    if (steps_->value() != v.steps) steps_->setValue(v.steps);
    for (auto it = stageEditors_.cbegin(); it != stageEditors_.cend(); ++it) {
        const QVariant value = fieldValue(v, it.key());
        if (auto* count = qobject_cast<QSpinBox*>(it.value()); count && count->value() != value.toInt())
            count->setValue(value.toInt());
        if (auto* real = qobject_cast<QDoubleSpinBox*>(it.value()); real && real->value() != value.toDouble())
            real->setValue(value.toDouble());
    }
    showFinetuneMechanism();
    applying_ = false;
}

void ParameterPanel::setEditable(bool editable) {
    editable_ = editable;
    // The whole ε and ρ controls (spin box and slider), then each field's editor.
    for (QWidget* w : std::initializer_list<QWidget*>{epsilon_, rhoSlider_}) w->setEnabled(editable);
    for (int f = static_cast<int>(ParameterField::Delta); f <= static_cast<int>(kLastParameterField); ++f)
        editorFor(static_cast<ParameterField>(f))->setEnabled(editable);
}

QWidget* ParameterPanel::editorFor(ParameterField field) const {
    switch (field) {
        case ParameterField::Epsilon: return epsilon_->spinBox();
        case ParameterField::Delta: return delta_;
        case ParameterField::BudgetCap: return budgetCap_;
        case ParameterField::SensitiveCount: return count_;
        case ParameterField::Rho: return rho_;
        case ParameterField::Seeds: return seeds_;
        case ParameterField::Composition: return composition_;
        case ParameterField::Accountant: return accountant_;
        case ParameterField::Reproducible: return reproducible_;
        case ParameterField::ClipNorm: return clip_;
        case ParameterField::BatchSize: return batch_;
        case ParameterField::LearningRate: return learningRate_;
        case ParameterField::Steps: return steps_;
        case ParameterField::PretrainBatch:
        case ParameterField::PretrainLearningRate:
        case ParameterField::PretrainSteps:
        case ParameterField::FinetuneClip:
        case ParameterField::FinetuneBatch:
        case ParameterField::FinetuneLearningRate:
        case ParameterField::FinetuneSteps:
        case ParameterField::AdamixSteps:
        case ParameterField::AdamixEta: return stageEditors_.value(field);
    }
    return nullptr;
}

void ParameterPanel::setMessages(const QList<FieldMessage>& messages) {
    for (QLabel* label : std::as_const(messageLabels_)) {
        label->clear();
        label->setVisible(false);
    }
    for (auto it = messageLabels_.cbegin(); it != messageLabels_.cend(); ++it) {
        QWidget* editor = editorFor(it.key());
        editor->setProperty("invalid", false);
        editor->setPalette(QPalette());  // back to the inherited colours
    }
    for (const FieldMessage& m : messages) {
        QLabel* label = messageLabels_.value(m.field);
        if (!label) continue;
        const bool error = m.severity == MessageSeverity::Error;
        const QString text = (label->text().isEmpty() ? QString() : label->text() + "\n") + m.text;
        label->setText(text);
        label->setStyleSheet(error ? "color: #b00020;" : "color: #8a5a00;");
        label->setProperty("severity", error ? "error" : "warning");
        label->setVisible(true);
        if (error) {
            // A tinted background marks the field without restyling its frame or arrows.
            QWidget* editor = editorFor(m.field);
            QPalette tinted = editor->palette();
            tinted.setColor(QPalette::Base, QColor(0xfd, 0xe7, 0xea));
            editor->setPalette(tinted);
            editor->setProperty("invalid", true);
        }
    }
}

QString ParameterPanel::messageFor(ParameterField field) const {
    const QLabel* label = messageLabels_.value(field);
    return label ? label->text() : QString();
}

void ParameterPanel::setSplitSummary(const QString& text) { splitSummary_->setText(text); }

void ParameterPanel::setPrivacySummary(const QString& html, bool valid) {
    summary_->setText(html);
    summary_->setEnabled(valid);
}

QString ParameterPanel::privacySummary() const { return summary_->text(); }

void ParameterPanel::setRunEnabled(bool enabled) { run_->setEnabled(enabled); }

void ParameterPanel::setComputing(bool computing) {
    computing_ = computing;
    computingNote_->setVisible(computing);
    if (computing) summary_->setEnabled(false);
}

void ParameterPanel::setUnitName(const QString& plural) {
    unitName_ = plural.isEmpty() ? QStringLiteral("examples") : plural;
    // The count row's label: "Sensitive patients n" for a study whose unit is the patient.
    if (countLabel_) countLabel_->setText(tr("Sensitive %1 n").arg(unitName_));
}

void ParameterPanel::setMixtureShown(bool shown) {
    mixtureShown_ = shown;
    splitForm_->setRowVisible(rhoBox_, shown);
    advanced_->setVisible(shown);
    pretrainGroup_->setVisible(shown);  // without public data there is nothing to pretrain on or fine-tune
    finetuneGroup_->setVisible(shown);
    calculator_->setVisible(shown);
    run_->setVisible(shown);
}

void ParameterPanel::explainLabels() {
    // What's This (Shift+F1) and the tooltip of each field's label say what its editor's tooltip
    // says: the plain-language meaning and the paper's value, wherever the user points.
    for (int f = static_cast<int>(ParameterField::Epsilon); f <= static_cast<int>(kLastParameterField); ++f) {
        QWidget* editor = editorFor(static_cast<ParameterField>(f));
        QString text;
        for (QWidget* w = editor; w && w != this && text.isEmpty(); w = w->parentWidget()) text = w->toolTip();
        if (text.isEmpty()) continue;
        editor->setWhatsThis(text);
        for (QLabel* label : findChildren<QLabel*>())
            if (label->buddy() && (label->buddy() == editor || label->buddy()->isAncestorOf(editor))) {
                label->setWhatsThis(text);
                label->setToolTip(text);
            }
    }
}

}  // namespace dpmix::widgets
