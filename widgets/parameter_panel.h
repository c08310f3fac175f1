#pragma once
// The parameter panel: privacy budget, data split, seeds, composition and the mixture stage's
// advanced hyper-parameters, with messages shown in place under each field, a live privacy
// summary, and the Run button. It edits nothing itself: every change goes out as
// fieldEdited() (so the owner can make it undoable) and comes back through setValues().
#include "widgets/run_parameters.h"

#include <QList>
#include <QMap>
#include <QWidget>

class QAbstractSpinBox;
class QCheckBox;
class QLayout;
class QVBoxLayout;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QGroupBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSlider;
class QSpinBox;

namespace dpmix::widgets {

class LogSliderSpinBox;
class PublicDataAdviceBox;

enum class MessageSeverity { Warning, Error };

struct FieldMessage {
    ParameterField field;
    MessageSeverity severity;
    QString text;
};

class ParameterPanel : public QWidget {
    Q_OBJECT

public:
    explicit ParameterPanel(QWidget* parent = nullptr);

    /// Shows `values` without emitting fieldEdited (controls already showing them are left
    /// alone, so typing is never interrupted).
    void setValues(const RunParameters& values);
    RunParameters values() const { return values_; }

    /// Replaces all in-place messages (empty list = everything fine).
    void setMessages(const QList<FieldMessage>& messages);
    QString messageFor(ParameterField field) const;
    /// The control that edits `field` (its background is tinted while the field has an error).
    QWidget* editorFor(ParameterField field) const;

    /// "Split A: 8,970 · Split B: 80,726" under the ρ slider.
    void setSplitSummary(const QString& text);
    /// The live privacy calculator's result (rich text), or the reason it cannot be computed.
    void setPrivacySummary(const QString& html, bool valid);
    QString privacySummary() const;

    void setRunEnabled(bool enabled);
    /// true: the summary belongs to values that have since changed and the new one is still being
    /// computed — it is greyed out under "computing…" (Run stays off until it is current).
    void setComputing(bool computing);
    bool isComputing() const { return computing_; }
    /// false: every editor is locked (a project open read-only); the values stay readable.
    void setEditable(bool editable);
    bool isEditable() const { return editable_; }
    /// false: a study without public data (Private Set Generation only) — ρ, the mixture stage, its
    /// privacy summary and Run are hidden, since there is no mixture to learn.
    void setMixtureShown(bool shown);
    bool mixtureShown() const { return mixtureShown_; }
    /// What n counts, from the study's unit of privacy: "examples" (default), "users", "patients".
    void setUnitName(const QString& plural);
    QString unitName() const { return unitName_; }
    QPushButton* runButton() const { return run_; }

    // Controls, for tests and focus handling.
    LogSliderSpinBox* epsilonEditor() const { return epsilon_; }
    QLineEdit* deltaEditor() const { return delta_; }
    QLineEdit* budgetCapEditor() const { return budgetCap_; }
    QSpinBox* countEditor() const { return count_; }
    QSlider* rhoSlider() const { return rhoSlider_; }
    QDoubleSpinBox* rhoEditor() const { return rho_; }
    QLineEdit* seedsEditor() const { return seeds_; }
    QComboBox* compositionEditor() const { return composition_; }
    QComboBox* accountantEditor() const { return accountant_; }
    QDoubleSpinBox* clipEditor() const { return clip_; }
    QSpinBox* batchEditor() const { return batch_; }
    QDoubleSpinBox* learningRateEditor() const { return learningRate_; }
    QSpinBox* stepsEditor() const { return steps_; }
    QGroupBox* advancedGroup() const { return advanced_; }
    /// The pretraining and fine-tuning stages' settings (their own Advanced sections).
    QGroupBox* pretrainGroup() const { return pretrainGroup_; }
    QGroupBox* finetuneGroup() const { return finetuneGroup_; }
    /// The fine-tuning section's mechanism line ("DP-SGD", "AdaMix-R ...") and AdaMix-R's
    /// settings that come from the spec (shots, source, r, τ, q), for tests.
    QLabel* finetuneMechanismLabel() const { return finetuneMechanism_; }
    QLabel* adamixSpecLabel(const QString& key) const { return adamixSpecLabels_.value(key); }
    /// Under ρ: how much of the data split A needs for this ε and k (rich text; empty hides it).
    void setRhoGuidance(const QString& html);
    QString rhoGuidance() const;
    /// Under "Privacy of this run": "Will public data help?" — the regime map's advice for this
    /// study's pool kind, n and ε, which the owner computes and sets (hidden until it does).
    PublicDataAdviceBox* publicDataAdvice() const { return advice_; }

Q_SIGNALS:
    void fieldEdited(dpmix::widgets::ParameterField field, const QVariant& value);
    void runRequested();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QLabel* addMessageLabel(ParameterField field);
    void buildBudgetSection(QVBoxLayout* layout);
    void buildSplitSection(QVBoxLayout* layout);
    void buildMixtureSection(QVBoxLayout* layout);
    void buildRunSection(QVBoxLayout* layout);
    void connectFields();
    void addStageSections(QLayout* layout);
    QSpinBox* addCountField(QFormLayout* form, ParameterField field, int maximum, const QString& tip);
    QDoubleSpinBox* addRealField(QFormLayout* form, ParameterField field, double maximum, int decimals,
                                 const QString& tip);
    void addAdamixRows(QFormLayout* form);
    void showFinetuneMechanism();
    void explainLabels();
    void emitEdit(ParameterField field, const QVariant& value);

    RunParameters values_;
    bool applying_ = false;
    bool editable_ = true;
    bool mixtureShown_ = true;
    bool computing_ = false;
    QLabel* computingNote_ = nullptr;
    QFormLayout* splitForm_ = nullptr;
    QWidget* rhoBox_ = nullptr;
    QGroupBox* calculator_ = nullptr;
    LogSliderSpinBox* epsilon_;
    QLineEdit* delta_;
    QLineEdit* budgetCap_;
    QSpinBox* count_;
    QString unitName_ = QStringLiteral("examples");
    QLabel* countLabel_ = nullptr;
    QSlider* rhoSlider_;
    QDoubleSpinBox* rho_;
    QLabel* splitSummary_;
    QLineEdit* seeds_;
    QComboBox* composition_;
    QComboBox* accountant_;
    QCheckBox* reproducible_;
    QGroupBox* advanced_;
    QDoubleSpinBox* clip_;
    QSpinBox* batch_;
    QDoubleSpinBox* learningRate_;
    QSpinBox* steps_;
    QGroupBox* pretrainGroup_ = nullptr;
    QGroupBox* finetuneGroup_ = nullptr;
    QMap<ParameterField, QAbstractSpinBox*> stageEditors_;  // the pretraining and fine-tuning fields
    QFormLayout* finetuneForm_ = nullptr;
    QLabel* finetuneMechanism_ = nullptr;
    QList<QWidget*> dpSgdRows_, adamixRows_;   // the fine-tuning rows of each mechanism (their field widgets)
    QMap<QString, QLabel*> adamixSpecLabels_;  // "shots", "source", "rank", "clip-quantile", "q"
    QLabel* rhoGuidance_ = nullptr;
    QLabel* summary_;
    PublicDataAdviceBox* advice_ = nullptr;
    QPushButton* run_;
    QMap<ParameterField, QLabel*> messageLabels_;
};

}  // namespace dpmix::widgets
