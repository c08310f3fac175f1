#include "widgets/run_parameters.h"

#include <QObject>

namespace dpmix::widgets {

QString fieldKey(ParameterField field) {
    switch (field) {
        case ParameterField::Epsilon: return QStringLiteral("epsilon");
        case ParameterField::Delta: return QStringLiteral("delta");
        case ParameterField::SensitiveCount: return QStringLiteral("n");
        case ParameterField::Rho: return QStringLiteral("rho");
        case ParameterField::Seeds: return QStringLiteral("seeds");
        case ParameterField::Composition: return QStringLiteral("composition");
        case ParameterField::Accountant: return QStringLiteral("accountant");
        case ParameterField::Reproducible: return QStringLiteral("reproducible");
        case ParameterField::ClipNorm: return QStringLiteral("clip");
        case ParameterField::BatchSize: return QStringLiteral("batch");
        case ParameterField::LearningRate: return QStringLiteral("lr");
        case ParameterField::Steps: return QStringLiteral("steps");
        case ParameterField::PretrainBatch: return QStringLiteral("pretrain-batch");
        case ParameterField::PretrainLearningRate: return QStringLiteral("pretrain-lr");
        case ParameterField::PretrainSteps: return QStringLiteral("pretrain-steps");
        case ParameterField::FinetuneClip: return QStringLiteral("finetune-clip");
        case ParameterField::FinetuneBatch: return QStringLiteral("finetune-batch");
        case ParameterField::FinetuneLearningRate: return QStringLiteral("finetune-lr");
        case ParameterField::FinetuneSteps: return QStringLiteral("finetune-steps");
        case ParameterField::AdamixSteps: return QStringLiteral("adamix-steps");
        case ParameterField::AdamixEta: return QStringLiteral("adamix-eta");
        case ParameterField::BudgetCap: return QStringLiteral("budget-cap");
    }
    return {};
}

QString fieldLabel(ParameterField field) {
    switch (field) {
        case ParameterField::Epsilon: return QObject::tr("ε per release");
        case ParameterField::Delta: return QObject::tr("Failure probability δ");
        case ParameterField::SensitiveCount: return QObject::tr("Sensitive examples n");
        case ParameterField::Rho: return QObject::tr("Mixture split ρ");
        case ParameterField::Seeds: return QObject::tr("Seeds");
        case ParameterField::Composition: return QObject::tr("Composition");
        case ParameterField::Accountant: return QObject::tr("Accountant");
        case ParameterField::Reproducible: return QObject::tr("Randomness");
        case ParameterField::ClipNorm: return QObject::tr("Clip norm C");
        case ParameterField::BatchSize: return QObject::tr("Expected batch B");
        case ParameterField::LearningRate: return QObject::tr("Step size η");
        case ParameterField::Steps: return QObject::tr("Steps T");
        case ParameterField::PretrainBatch: return QObject::tr("Pretraining batch");
        case ParameterField::PretrainLearningRate: return QObject::tr("Pretraining step size");
        case ParameterField::PretrainSteps: return QObject::tr("Pretraining steps");
        case ParameterField::FinetuneClip: return QObject::tr("Fine-tuning clip norm");
        case ParameterField::FinetuneBatch: return QObject::tr("Fine-tuning batch");
        case ParameterField::FinetuneLearningRate: return QObject::tr("Fine-tuning step size");
        case ParameterField::FinetuneSteps: return QObject::tr("Fine-tuning steps");
        case ParameterField::AdamixSteps: return QObject::tr("AdaMix-R steps T");
        case ParameterField::AdamixEta: return QObject::tr("AdaMix-R step size η");
        case ParameterField::BudgetCap: return QObject::tr("Data set's total cap ε");
    }
    return {};
}

QVariant fieldValue(const RunParameters& v, ParameterField field) {
    switch (field) {
        case ParameterField::Epsilon: return v.epsilon;
        case ParameterField::Delta: return v.delta;
        case ParameterField::SensitiveCount: return v.sensitiveCount;
        case ParameterField::Rho: return v.rho;
        case ParameterField::Seeds: return v.seeds;
        case ParameterField::Composition: return static_cast<int>(v.composition);
        case ParameterField::Accountant: return static_cast<int>(v.accountant);
        case ParameterField::Reproducible: return v.reproducible;
        case ParameterField::ClipNorm: return v.clipNorm;
        case ParameterField::BatchSize: return v.batchSize;
        case ParameterField::LearningRate: return v.learningRate;
        case ParameterField::Steps: return v.steps;
        case ParameterField::PretrainBatch: return v.pretrainBatch;
        case ParameterField::PretrainLearningRate: return v.pretrainLearningRate;
        case ParameterField::PretrainSteps: return v.pretrainSteps;
        case ParameterField::FinetuneClip: return v.finetuneClip;
        case ParameterField::FinetuneBatch: return v.finetuneBatch;
        case ParameterField::FinetuneLearningRate: return v.finetuneLearningRate;
        case ParameterField::FinetuneSteps: return v.finetuneSteps;
        case ParameterField::AdamixSteps: return v.adamixSteps;
        case ParameterField::AdamixEta: return v.adamixEta;
        case ParameterField::BudgetCap: return v.budgetCap;
    }
    return {};
}

bool setFieldValue(RunParameters& v, ParameterField field, const QVariant& value) {
    bool ok = true;
    switch (field) {
        case ParameterField::Epsilon: v.epsilon = value.toDouble(&ok); break;
        case ParameterField::Delta:
            ok = value.canConvert<QString>();
            if (ok) v.delta = value.toString();
            break;
        case ParameterField::SensitiveCount: v.sensitiveCount = value.toLongLong(&ok); break;
        case ParameterField::Rho: v.rho = value.toDouble(&ok); break;
        case ParameterField::Seeds:
            ok = value.canConvert<QString>();
            if (ok) v.seeds = value.toString();
            break;
        case ParameterField::Composition: {
            const int c = value.toInt(&ok);
            ok = ok && (c == 0 || c == 1);
            if (ok) v.composition = static_cast<CompositionMode>(c);
            break;
        }
        case ParameterField::Accountant: {
            const int a = value.toInt(&ok);
            ok = ok && (a == 0 || a == 1);
            if (ok) v.accountant = static_cast<AccountantChoice>(a);
            break;
        }
        case ParameterField::Reproducible:
            ok = value.typeId() == QMetaType::Bool;
            if (ok) v.reproducible = value.toBool();
            break;
        case ParameterField::ClipNorm: v.clipNorm = value.toDouble(&ok); break;
        case ParameterField::BatchSize: v.batchSize = value.toInt(&ok); break;
        case ParameterField::LearningRate: v.learningRate = value.toDouble(&ok); break;
        case ParameterField::Steps: v.steps = value.toInt(&ok); break;
        case ParameterField::PretrainBatch: v.pretrainBatch = value.toInt(&ok); break;
        case ParameterField::PretrainLearningRate: v.pretrainLearningRate = value.toDouble(&ok); break;
        case ParameterField::PretrainSteps: v.pretrainSteps = value.toInt(&ok); break;
        case ParameterField::FinetuneClip: v.finetuneClip = value.toDouble(&ok); break;
        case ParameterField::FinetuneBatch: v.finetuneBatch = value.toInt(&ok); break;
        case ParameterField::FinetuneLearningRate: v.finetuneLearningRate = value.toDouble(&ok); break;
        case ParameterField::FinetuneSteps: v.finetuneSteps = value.toInt(&ok); break;
        case ParameterField::AdamixSteps: v.adamixSteps = value.toInt(&ok); break;
        case ParameterField::AdamixEta: v.adamixEta = value.toDouble(&ok); break;
        case ParameterField::BudgetCap:
            ok = value.canConvert<QString>();
            if (ok) v.budgetCap = value.toString();
            break;
    }
    return ok;
}

}  // namespace dpmix::widgets
