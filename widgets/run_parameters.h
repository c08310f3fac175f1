#pragma once
// The values the parameter panel edits, as plain Qt-side data (no engine types): the
// workbench validates them through the engine's builders and shows the verdict in place.
#include <QString>
#include <QVariant>

namespace dpmix::widgets {

enum class CompositionMode { Parallel, Sequential };
/// The accountant that calibrates σ and certifies ε: privacy loss distributions (tighter) or Rényi DP.
enum class AccountantChoice { Prv, Rdp };

enum class ParameterField {
    Epsilon,
    Delta,
    SensitiveCount,
    Rho,
    Seeds,
    Composition,
    Accountant,
    Reproducible,
    ClipNorm,
    BatchSize,
    LearningRate,
    Steps,
    // Pretraining on the λ-mixed public data (no privacy cost) and private fine-tuning on split B.
    PretrainBatch,
    PretrainLearningRate,
    PretrainSteps,
    FinetuneClip,
    FinetuneBatch,
    FinetuneLearningRate,
    FinetuneSteps,
    // AdaMix-R's own fine-tuning values (a study whose fine-tuning mechanism is "adamix-r").
    AdamixSteps,
    AdamixEta,
    // The sensitive data set's total ε that this run may bring it to (empty: no cap of the run's).
    BudgetCap,
};
inline constexpr ParameterField kLastParameterField = ParameterField::BudgetCap;

/// The study's fine-tuning mechanism (stages.finetune.mechanism). The engine's table
/// (engine/methods/finetune_mechanism.h) names them; the workbench maps its enum onto this one.
enum class FinetuneMechanism { DpSgd, Dirichlet, AdamixR };

/// Defaults are the paper's image setting (docs/ALGORITHMS.md A.5, A.8): ε = 2, δ = 1e-5,
/// ρ = 0.1 of the NIH train split (89,696 images), mixture stage clip 13, batch 1000, η = 1;
/// pretraining and fine-tuning take a study spec's defaults (docs/PROJECT_FILE.md, "stages").
struct RunParameters {
    double epsilon = 2.0;
    QString delta = QStringLiteral("1e-5");  // text: what the user typed, validated later
    qint64 sensitiveCount = 89696;           // n: sensitive training examples (or users)
    double rho = 0.1;                        // fraction of n in split A (mixture learning)
    QString seeds = QStringLiteral("0, 1, 2");
    CompositionMode composition = CompositionMode::Parallel;
    AccountantChoice accountant = AccountantChoice::Prv;  // new studies: PRV; a project keeps its spec's
    bool reproducible = false;                            // seeded DP randomness: re-derivable, but no release
    double clipNorm = 13.0;
    int batchSize = 1000;
    double learningRate = 1.0;
    int steps = 100;
    int pretrainBatch = 256;
    double pretrainLearningRate = 0.1;
    int pretrainSteps = 1000;
    double finetuneClip = 2.0;
    int finetuneBatch = 256;  // expected batch (examples, or users at user level) of split B
    double finetuneLearningRate = 1e-4;
    int finetuneSteps = 1000;
    // The spec's fine-tuning mechanism; not edited in the
    // panel. For AdaMix-R the panel shows AdaMix-R's settings instead of DP-SGD's clip and
    // batch (docs/ADAMIX.md, "As a study's fine-tuning mechanism"): T and η are edited, the
    // shots, their source, r, τ and q are the spec's and only shown.
    FinetuneMechanism finetuneMechanism = FinetuneMechanism::DpSgd;
    int adamixSteps = 200;      // T
    double adamixEta = 1.0;     // η
    int adamixShots = 0;        // labelled public images per class
    QString adamixShotsSource;  // the public source they come from
    int adamixRank = 0;         // r; 0: the default min(m, 64)
    double adamixClipQuantile = 0.5;
    double adamixQ = 1.0;
    // A cap on the data set's total ε (all releases of every project on it), as typed; empty:
    // none from the panel (the budget store's and the spec's still apply). Saved with the
    // working settings; reaches the engine as StudyRunOptions::budgetCap.
    QString budgetCap;

    bool finetunesWithAdamix() const { return finetuneMechanism == FinetuneMechanism::AdamixR; }

    bool operator==(const RunParameters&) const = default;
};

/// The field's name as messages and CLI flags spell it ("epsilon", "delta", "rho", ...).
QString fieldKey(ParameterField field);
/// The label a user reads ("Privacy budget ε", ...).
QString fieldLabel(ParameterField field);

QVariant fieldValue(const RunParameters& values, ParameterField field);
/// Sets one field from a QVariant of the field's type; returns false on a type mismatch.
bool setFieldValue(RunParameters& values, ParameterField field, const QVariant& value);

}  // namespace dpmix::widgets
