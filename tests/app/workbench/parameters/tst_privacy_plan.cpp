// The parameter panel's live plan: split sizes, per-stage budgets, validation messages, and
// the mixture stage's σ query.
#include "app/workbench/parameters/privacy_plan.h"
#include "engine/privacy/gaussian_accountant.h"
#include "engine/privacy/prv_accountant.h"

#include <QtTest>

using namespace dpmix::workbench;
using dpmix::widgets::CompositionMode;
using dpmix::widgets::MessageSeverity;
using dpmix::widgets::ParameterField;
using dpmix::widgets::RunParameters;
namespace widgets = dpmix::widgets;

namespace {
QString messagesOf(const PrivacyPlan& plan, ParameterField field, MessageSeverity severity) {
    QStringList out;
    for (const auto& m : plan.messages)
        if (m.field == field && m.severity == severity) out << m.text;
    return out.join('\n');
}
}  // namespace

class TstPrivacyPlan : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void splitSizesReproduceThePaper() {
        // docs/ALGORITHMS.md A.5.1: NIH train split n = 89,696; Table 12 gives n_A ≈ 4,485 / 8,970 / 17,939.
        QCOMPARE(splitSizes(89696, 0.05).a, 4485LL);
        QCOMPARE(splitSizes(89696, 0.1).a, 8970LL);
        QCOMPARE(splitSizes(89696, 0.2).a, 17939LL);
        QCOMPARE(splitSizes(89696, 0.1).b, 89696LL - 8970LL);
    }

    void stageBudgets() {
        const auto p = stageBudget(2.0, 1e-5, CompositionMode::Parallel);
        QCOMPARE(p.epsilon, 2.0);
        QCOMPARE(p.delta, 1e-5);
        const auto s = stageBudget(2.0, 1e-5, CompositionMode::Sequential);
        QCOMPARE(s.epsilon, 1.0);
        QCOMPARE(s.delta, 5e-6);
    }

    void seedParsing() {
        QCOMPARE(*parseSeeds(" 0, 1 2,,3 "), (std::vector<long long>{0, 1, 2, 3}));
        QCOMPARE(QString::fromStdString(parseSeeds("").error().message),
                 QString("seeds: none given: expected at least one whole number >= 0, e.g. 0, 1, 2"));
        QCOMPARE(QString::fromStdString(parseSeeds("1, x").error().message),
                 QString("seeds: \"x\" is not a whole number >= 0"));
        QCOMPARE(QString::fromStdString(parseSeeds("-1").error().message),
                 QString("seeds: \"-1\" is not a whole number >= 0"));
        QCOMPARE(QString::fromStdString(parseSeeds("4 4").error().message),
                 QString("seeds: 4 appears twice: each seed should run once"));
    }

    void defaultsAreValidAndAskTheAccountantTheRightQuestion() {
        const PrivacyPlan plan = planPrivacy(RunParameters{});
        QVERIFY(plan.valid);
        // The paper's δ = 1e-5 with n = 89,696 is δ·n ≈ 0.9: valid, but not well below 1/n, so
        // the one message is that warning.
        QCOMPARE(plan.messages.size(), qsizetype(1));
        QVERIFY(plan.messages.front().field == ParameterField::Delta &&
                plan.messages.front().severity == MessageSeverity::Warning);
        QVERIFY(plan.mixture.has_value());
        // q = B / n_A = 1000 / 8970, T = 100, target (ε, δ) = (2, 1e-5).
        QCOMPARE(plan.mixture->q, 1000.0 / 8970.0);
        QCOMPARE(plan.mixture->steps, 100LL);
        // A new study plans with the PRV accountant (tested against closed forms in tst_prv_accountant).
        const auto expected = dpmix::privacy::calibrateGaussianSigmaPrv(2.0, 1e-5, 1000.0 / 8970.0, 100).value();
        QCOMPARE(plan.mixture->sigma, expected.sigma);
        QVERIFY(plan.mixture->epsilon <= 2.0);
        QCOMPARE(plan.totalEpsilon, 2.0);
        QCOMPARE(plan.totalDelta, 1e-5);
        const QString html = privacySummaryHtml(plan, RunParameters{});
        QVERIFY2(html.contains(QString::number(expected.sigma, 'g', 5)), qPrintable(html));
        QCOMPARE(splitSummaryText(plan), QString("Split A (mixture): ≈ 8,970 · Split B (fine-tuning): ≈ 80,726"));
    }

    void theChosenAccountantSetsTheNoise() {
        RunParameters p;
        p.accountant = dpmix::widgets::AccountantChoice::Rdp;
        const PrivacyPlan rdp = planPrivacy(p);
        QVERIFY(rdp.valid);
        QCOMPARE(rdp.mixture->sigma, dpmix::privacy::calibrateGaussianSigma(2.0, 1e-5, 1000.0 / 8970.0, 100)->sigma);
        QVERIFY(privacySummaryHtml(rdp, p).contains("RDP accountant"));
        const PrivacyPlan prv = planPrivacy(RunParameters{});
        QVERIFY(prv.mixture->sigma < rdp.mixture->sigma);
        QVERIFY(privacySummaryHtml(prv, RunParameters{}).contains("PRV accountant"));
    }

    void sequentialCompositionHalvesTheStageBudget() {
        RunParameters p;
        p.composition = CompositionMode::Sequential;
        const PrivacyPlan plan = planPrivacy(p);
        QVERIFY(plan.valid);
        QCOMPARE(plan.mixture->target.epsilon, 1.0);
        QCOMPARE(plan.mixture->target.delta, 5e-6);
        // Half the budget needs more noise than the whole budget.
        QVERIFY(plan.mixture->sigma > planPrivacy(RunParameters{}).mixture->sigma);
        QCOMPARE(plan.totalEpsilon, 2.0);
    }

    void invalidDeltaIsAnErrorWithTheReason() {
        RunParameters p;
        p.delta = "2";
        PrivacyPlan plan = planPrivacy(p);
        QVERIFY(!plan.valid);
        QVERIFY(!plan.mixture);
        QCOMPARE(messagesOf(plan, ParameterField::Delta, MessageSeverity::Error),
                 QString("delta = 2 is out of range: expected a probability in (0, 1)"));
        QVERIFY(privacySummaryHtml(plan, p).contains("Cannot compute"));

        p.delta = "1e-5x";
        plan = planPrivacy(p);
        QCOMPARE(messagesOf(plan, ParameterField::Delta, MessageSeverity::Error),
                 QString("delta = \"1e-5x\" is not a number: expected a probability in (0, 1), e.g. 1e-5"));
    }

    void deltaNotWellBelowOneOverNIsAWarningOnly() {
        RunParameters p;
        p.sensitiveCount = 1000;
        p.batchSize = 50;
        p.delta = "0.001";  // exactly 1/n
        const PrivacyPlan plan = planPrivacy(p);
        QVERIFY(plan.valid);
        const QString warning = messagesOf(plan, ParameterField::Delta, MessageSeverity::Warning);
        QVERIFY2(warning.startsWith("δ = 0.001 is not well below 1/n = 0.001"), qPrintable(warning));
        QVERIFY2(warning.endsWith("Use δ < 1/(10 n), e.g. 1e-4."), qPrintable(warning));  // 1/(10n) = 1e-4
        p.delta = "0.0001";  // exactly 1/(10 n): still warned
        QVERIFY(!messagesOf(planPrivacy(p), ParameterField::Delta, MessageSeverity::Warning).isEmpty());
        p.delta = "0.00009";
        QVERIFY(planPrivacy(p).messages.isEmpty());
    }

    void batchLargerThanSplitAIsAnError() {
        RunParameters p;
        p.sensitiveCount = 5000;  // n_A = 500 at ρ = 0.1
        const PrivacyPlan plan = planPrivacy(p);
        QVERIFY(!plan.valid);
        QCOMPARE(messagesOf(plan, ParameterField::BatchSize, MessageSeverity::Error),
                 QString("batch = 1,000 is larger than split A (n_A = 500): expected batch <= n_A; lower the "
                         "batch, or raise ρ or n"));
    }

    void rangeChecksOnEveryField() {
        RunParameters p;
        p.rho = 0.0;
        p.sensitiveCount = 1;
        p.clipNorm = 0.0;
        p.learningRate = -1.0;
        p.steps = 0;
        p.seeds = "";
        const PrivacyPlan plan = planPrivacy(p);
        QVERIFY(!plan.valid);
        QCOMPARE(messagesOf(plan, ParameterField::Rho, MessageSeverity::Error),
                 QString("rho = 0 is out of range: expected a fraction in (0, 1)"));
        QVERIFY(messagesOf(plan, ParameterField::SensitiveCount, MessageSeverity::Error)
                    .startsWith("n = 1 is out of range"));
        QCOMPARE(messagesOf(plan, ParameterField::ClipNorm, MessageSeverity::Error),
                 QString("clip = 0 is out of range: expected a finite number > 0"));
        QCOMPARE(messagesOf(plan, ParameterField::LearningRate, MessageSeverity::Error),
                 QString("lr = -1 is out of range: expected a finite number > 0"));
        QCOMPARE(messagesOf(plan, ParameterField::Steps, MessageSeverity::Error),
                 QString("steps = 0 is out of range: expected a whole number of steps >= 1"));
        QVERIFY(plan.hasError(ParameterField::Seeds));
    }

    void pretrainingAndFineTuningValuesAreChecked() {
        RunParameters p;
        p.pretrainSteps = 0;
        p.pretrainLearningRate = -0.5;
        p.finetuneClip = 0.0;
        p.finetuneSteps = 0;
        const PrivacyPlan plan = planPrivacy(p);
        QVERIFY(!plan.valid);
        for (ParameterField f : {ParameterField::PretrainSteps, ParameterField::PretrainLearningRate,
                                 ParameterField::FinetuneClip, ParameterField::FinetuneSteps})
            QVERIFY2(plan.hasError(f), qPrintable(widgets::fieldKey(f)));
        QVERIFY2(messagesOf(plan, ParameterField::PretrainSteps, MessageSeverity::Error).contains("pretrain.steps"),
                 qPrintable(messagesOf(plan, ParameterField::PretrainSteps, MessageSeverity::Error)));
        QVERIFY(messagesOf(plan, ParameterField::FinetuneClip, MessageSeverity::Error).contains("finetune.clip"));
        QVERIFY(!plan.hasError(ParameterField::PretrainBatch) && !plan.hasError(ParameterField::FinetuneBatch));
    }

    void aFineTuningBatchLargerThanSplitBStopsOnlyTheRunsThatFineTune() {
        // n = 1,000, ρ = 0.5: split B holds 500. A batch of 501 cannot be drawn from it.
        RunParameters p;
        p.sensitiveCount = 1000;
        p.rho = 0.5;
        p.batchSize = 100;
        p.finetuneBatch = 501;
        const PrivacyPlan plan = planPrivacy(p);
        QVERIFY(plan.valid);  // mixture learning (split A) is unaffected
        QCOMPARE(plan.downstreamProblem,
                 QString("fine-tuning batch = 501 is larger than split B (n_B = 500): expected batch <= n_B; lower the "
                         "batch, or lower ρ or add data"));
        QVERIFY(messagesOf(plan, ParameterField::FinetuneBatch, MessageSeverity::Warning)
                    .startsWith(plan.downstreamProblem));
        p.finetuneBatch = 500;  // exactly split B is allowed
        const PrivacyPlan fits = planPrivacy(p);
        QVERIFY(fits.downstreamProblem.isEmpty());
        // The summary names the fine-tuning the run will do.
        QVERIFY2(privacySummaryHtml(fits, p).contains("n<sub>B</sub> ≈ 500; T = 1,000 steps, batch 500, clip 2)"),
                 qPrintable(privacySummaryHtml(fits, p)));
    }

    void rhoThatEmptiesASplitIsAnError() {
        RunParameters p;
        p.sensitiveCount = 10;
        p.batchSize = 1;
        p.rho = 0.04;  // round(0.4) = 0
        const PrivacyPlan plan = planPrivacy(p);
        QCOMPARE(
            messagesOf(plan, ParameterField::Rho, MessageSeverity::Error),
            QString("rho = 0.04 leaves split A empty (n_A = 0, n_B = 10 of n = 10): move ρ towards 0.5 or add data"));
    }
};

QTEST_GUILESS_MAIN(TstPrivacyPlan)
#include "tst_privacy_plan.moc"
