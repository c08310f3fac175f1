#include "app/workbench/parameters/privacy_plan.h"

#include "app/workbench/parameters/number_parsing.h"
#include "engine/core/number_text.h"
#include "engine/privacy/gaussian_accountant.h"
#include "engine/privacy/parameters.h"
#include "engine/privacy/prv_accountant.h"
#include "engine/project/spec_json.h"

#include <QLocale>
#include <QRegularExpression>

#include <cmath>
#include <set>
#include <vector>

namespace dpmix::workbench {

using widgets::CompositionMode;
using widgets::FieldMessage;
using widgets::MessageSeverity;
using widgets::ParameterField;

SplitSizes splitSizes(long long n, double rho) {
    const long long a = std::llround(rho * static_cast<double>(n));
    return {a, n - a};
}

StageBudget stageBudget(double epsilon, double delta, CompositionMode mode) {
    if (mode == CompositionMode::Sequential) return {epsilon / 2.0, delta / 2.0};
    return {epsilon, delta};
}

Result<std::vector<long long>> parseSeeds(const QString& text) {
    static const QRegularExpression separators(QStringLiteral("[,\\s]+"));
    const QStringList parts = text.split(separators, Qt::SkipEmptyParts);
    if (parts.isEmpty()) return Error{"seeds: none given: expected at least one whole number >= 0, e.g. 0, 1, 2"};
    std::vector<long long> seeds;
    std::set<long long> seen;
    for (const QString& part : parts) {
        const auto parsed = parseWholeNumberText(part.toStdString());
        if (!parsed || *parsed < 0) return Error{("seeds: \"" + part + "\" is not a whole number >= 0").toStdString()};
        const long long seed = *parsed;
        if (!seen.insert(seed).second)
            return Error{("seeds: " + part + " appears twice: each seed should run once").toStdString()};
        seeds.push_back(seed);
    }
    return seeds;
}

bool PrivacyPlan::hasError(ParameterField field) const {
    for (const FieldMessage& m : messages)
        if (m.field == field && m.severity == MessageSeverity::Error) return true;
    return false;
}

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }
// Shortest round-trip form, with the exponent written as people write it ("1e-5", not "1e-05").
QString num(double v) {
    static const QRegularExpression paddedExponent(QStringLiteral("e([+-]?)0+(\\d)"));
    return qs(privacy::formatNumber(v)).replace(paddedExponent, QStringLiteral("e\\1\\2"));
}
QString count(long long v) { return QLocale(QLocale::English).toString(v); }

// Pretraining and fine-tuning: the spec's ranges for each value (errors), and fine-tuning's batch
// within split B — the study runner refuses a larger one before anything runs, so the panel says
// it while the user types. That one is a warning: it stops only the actions that fine-tune
// (PrivacyPlan::downstreamProblem), not mixture learning.
void checkDownstreamStages(const widgets::RunParameters& p, PrivacyPlan& plan) {
    const std::optional<SplitSizes>& split = plan.split;
    struct StageValue {
        ParameterField field;
        const char* stage;
        const char* key;
        double value;
    };
    std::vector<StageValue> values = {
        {ParameterField::PretrainBatch, "pretrain", "batch", static_cast<double>(p.pretrainBatch)},
        {ParameterField::PretrainLearningRate, "pretrain", "lr", p.pretrainLearningRate},
        {ParameterField::PretrainSteps, "pretrain", "steps", static_cast<double>(p.pretrainSteps)},
    };
    // Only the fine-tuning mechanism's own fields: AdaMix-R has no clip norm or batch
    // (docs/ADAMIX.md, "As a study's fine-tuning mechanism"); its T and η share the spec's ranges.
    if (p.finetunesWithAdamix()) {
        values.push_back({ParameterField::AdamixSteps, "finetune", "steps", static_cast<double>(p.adamixSteps)});
        values.push_back({ParameterField::AdamixEta, "finetune", "lr", p.adamixEta});
    } else {
        values.push_back({ParameterField::FinetuneClip, "finetune", "clip", p.finetuneClip});
        values.push_back({ParameterField::FinetuneBatch, "finetune", "batch", static_cast<double>(p.finetuneBatch)});
        values.push_back({ParameterField::FinetuneLearningRate, "finetune", "lr", p.finetuneLearningRate});
        values.push_back({ParameterField::FinetuneSteps, "finetune", "steps", static_cast<double>(p.finetuneSteps)});
    }
    bool finetuneBatchOk = !p.finetunesWithAdamix();
    for (const StageValue& v : values)
        if (auto e = project::checkStageValue(std::string(v.stage) + "." + v.key, v.key, v.value)) {
            plan.messages << FieldMessage{v.field, MessageSeverity::Error, qs(e->message)};
            if (v.field == ParameterField::FinetuneBatch) finetuneBatchOk = false;
        }
    if (finetuneBatchOk && split && p.finetuneBatch > split->b) {
        plan.downstreamProblem = QStringLiteral(
                                     "fine-tuning batch = %1 is larger than split B (n_B = %2): expected "
                                     "batch <= n_B; lower the batch, or lower ρ or add data")
                                     .arg(count(p.finetuneBatch), count(split->b));
        plan.messages << FieldMessage{
            ParameterField::FinetuneBatch, MessageSeverity::Warning,
            plan.downstreamProblem + QStringLiteral(". Mixture learning can run; the runs that fine-tune cannot.")};
    }
}

}  // namespace

namespace {

// The plan's checks field by field: each step adds its messages to the plan and says whether
// the values it read can be used by the steps after it.
class PlanBuilder {
public:
    explicit PlanBuilder(const widgets::RunParameters& p) : p_(p) {}

    PrivacyPlan build() {
        const bool epsilonOk = engineCheck(ParameterField::Epsilon, privacy::checkPositive("epsilon", p_.epsilon));
        const std::optional<double> delta = checkDelta();
        if (auto cap = parseBudgetCap(p_.budgetCap); !cap) error(ParameterField::BudgetCap, qs(cap.error().message));
        const bool countOk = checkCount(delta);
        checkSplit(countOk);
        if (auto seeds = parseSeeds(p_.seeds); !seeds) error(ParameterField::Seeds, qs(seeds.error().message));
        const bool mixtureOk = checkMixtureValues();
        checkDownstreamStages(p_, plan_);
        if (epsilonOk && delta && plan_.split && mixtureOk) calibrateMixture(*delta);
        plan_.valid = plan_.mixture.has_value();
        for (const FieldMessage& m : std::as_const(plan_.messages))
            if (m.severity == MessageSeverity::Error) plan_.valid = false;
        return plan_;
    }

private:
    void error(ParameterField f, const QString& text) {
        plan_.messages << FieldMessage{f, MessageSeverity::Error, text};
    }
    bool engineCheck(ParameterField f, const Status& e) {
        if (e) error(f, qs(e->message));
        return !e;
    }

    // δ parsed and in (0, 1), or nothing.
    std::optional<double> checkDelta() {
        auto parsed = parseDouble("delta", p_.delta, "a probability in (0, 1), e.g. 1e-5");
        if (!parsed) {
            error(ParameterField::Delta, qs(parsed.error().message));
            return std::nullopt;
        }
        if (!engineCheck(ParameterField::Delta, privacy::checkDelta("delta", *parsed))) return std::nullopt;
        return *parsed;
    }

    // n >= 2; and δ against 1/n: δ >= 1/n allows "release one random record" mechanisms; warn from
    // 1/(10 n), the engine's own test (privacy::deltaWarning), and suggest a power of ten <= 1/(10 n).
    bool checkCount(std::optional<double> delta) {
        const bool countOk = p_.sensitiveCount >= 2;
        if (!countOk)
            error(ParameterField::SensitiveCount,
                  QStringLiteral("n = %1 is out of range: expected at least 2 sensitive examples, so that both "
                                 "splits are non-empty")
                      .arg(p_.sensitiveCount));
        if (delta && countOk && !privacy::deltaWarning(*delta, p_.sensitiveCount, "examples").empty())
            plan_.messages << FieldMessage{
                ParameterField::Delta, MessageSeverity::Warning,
                QStringLiteral("δ = %1 is not well below 1/n = %2: with δ near 1/n a mechanism "
                               "may reveal some person's data outright. Use δ < 1/(10 n), e.g. %3.")
                    .arg(num(*delta), QString::number(1.0 / static_cast<double>(p_.sensitiveCount), 'g', 3),
                         num(std::pow(10.0, std::floor(std::log10(0.1 / static_cast<double>(p_.sensitiveCount))))))};
        return countOk;
    }

    // ρ in (0, 1) leaving both splits non-empty: the plan's split sizes.
    void checkSplit(bool countOk) {
        if (!(p_.rho > 0.0 && p_.rho < 1.0)) {
            error(ParameterField::Rho,
                  QStringLiteral("rho = %1 is out of range: expected a fraction in (0, 1)").arg(num(p_.rho)));
            return;
        }
        if (!countOk) return;
        const SplitSizes s = splitSizes(p_.sensitiveCount, p_.rho);
        if (s.a < 1 || s.b < 1) {
            error(ParameterField::Rho,
                  QStringLiteral("rho = %1 leaves split %2 empty (n_A = %3, n_B = %4 of n = %5): "
                                 "move ρ towards 0.5 or add data")
                      .arg(num(p_.rho), s.a < 1 ? "A" : "B", count(s.a), count(s.b), count(p_.sensitiveCount)));
            return;
        }
        plan_.split = s;
    }

    // The mixture stage's clip, batch (at most n_A), lr and steps; true when batch and steps can
    // be calibrated.
    bool checkMixtureValues() {
        engineCheck(ParameterField::ClipNorm, privacy::checkPositive("clip", p_.clipNorm));
        bool batchOk = p_.batchSize >= 1;
        if (!batchOk)
            error(ParameterField::BatchSize,
                  QStringLiteral("batch = %1 is out of range: expected an expected batch size >= 1").arg(p_.batchSize));
        if (batchOk && plan_.split && p_.batchSize > plan_.split->a) {
            error(ParameterField::BatchSize, QStringLiteral("batch = %1 is larger than split A (n_A = %2): expected "
                                                            "batch <= n_A; lower the batch, or raise ρ or n")
                                                 .arg(count(p_.batchSize), count(plan_.split->a)));
            batchOk = false;
        }
        engineCheck(ParameterField::LearningRate, privacy::checkPositive("lr", p_.learningRate));
        const bool stepsOk = engineCheck(ParameterField::Steps, privacy::checkSteps("steps", p_.steps));
        return batchOk && stepsOk;
    }

    // σ of the mixture stage by the accountant the run will use: its σ is what the mechanism adds.
    void calibrateMixture(double delta) {
        const StageBudget budget = stageBudget(p_.epsilon, delta, p_.composition);
        const double q = static_cast<double>(p_.batchSize) / static_cast<double>(plan_.split->a);
        const auto query =
            privacy::SigmaQueryBuilder().epsilon(budget.epsilon).delta(budget.delta).q(q).steps(p_.steps).build();
        if (!query) {
            error(ParameterField::Epsilon, qs(query.error().message));
        } else if (p_.accountant == widgets::AccountantChoice::Prv) {
            const auto c = privacy::calibrateGaussianSigmaPrv(query->epsilon, query->delta, query->q, query->steps);
            if (c)
                plan_.mixture = MixtureStagePlan{q, p_.steps, c->sigma, c->certificate.epsilon, std::nan(""), budget};
            else
                error(ParameterField::Epsilon, qs(c.error().message));
        } else {
            const auto c = privacy::calibrateGaussianSigma(query->epsilon, query->delta, query->q, query->steps);
            if (c)
                plan_.mixture = MixtureStagePlan{q, p_.steps, c->sigma, c->epsilon, c->order, budget};
            else
                error(ParameterField::Epsilon, qs(c.error().message));
        }
        // Parallel: max over disjoint splits, each at the target; sequential: the halves add up.
        plan_.totalEpsilon = p_.epsilon;
        plan_.totalDelta = delta;
    }

    const widgets::RunParameters& p_;
    PrivacyPlan plan_;
};

}  // namespace

PrivacyPlan planPrivacy(const widgets::RunParameters& p) { return PlanBuilder(p).build(); }

QString privacySummaryHtml(const PrivacyPlan& plan, const widgets::RunParameters& p) {
    if (!plan.valid || !plan.mixture || !plan.split) {
        QString first;
        for (const FieldMessage& m : plan.messages)
            if (m.severity == MessageSeverity::Error) {
                first = m.text;
                break;
            }
        return QStringLiteral("<span style='color:#b00020'>Cannot compute the privacy of this run: %1</span>")
            .arg(first.toHtmlEscaped());
    }
    const MixtureStagePlan& m = *plan.mixture;
    const bool parallel = p.composition == CompositionMode::Parallel;
    QString html;
    const bool prv = p.accountant == widgets::AccountantChoice::Prv;
    html += QStringLiteral(
                "<b>Mixture learning</b> (split A, n<sub>A</sub> ≈ %1): noise σ = <b>%2</b> "
                "for T = %3 steps at q = %4 → ε = %5 (%6)<br>")
                .arg(count(plan.split->a), QString::number(m.sigma, 'g', 5), count(m.steps),
                     QString::number(m.q, 'g', 4), QString::number(m.epsilon, 'g', 4),
                     prv ? QStringLiteral("certified by the PRV accountant")
                         : QStringLiteral("RDP accountant, order α = %1").arg(QString::number(m.order, 'g', 4)));
    const QString finetune = p.finetunesWithAdamix()
                                 ? QStringLiteral("AdaMix-R, T = %1 steps at q = %2, η = %3, clip adapted per step")
                                       .arg(count(p.adamixSteps), num(p.adamixQ), num(p.adamixEta))
                                 : QStringLiteral("T = %1 steps, batch %2, clip %3")
                                       .arg(count(p.finetuneSteps), count(p.finetuneBatch), num(p.finetuneClip));
    if (parallel)
        html +=
            QStringLiteral(
                "<b>Fine-tuning</b> (split B, n<sub>B</sub> ≈ %1; %4): calibrated to ε = %2, δ = %3 when it runs<br>")
                .arg(count(plan.split->b), num(m.target.epsilon), num(m.target.delta), finetune);
    else
        html += QStringLiteral(
                    "<b>Fine-tuning</b> (split B, n<sub>B</sub> ≈ %1; %5): calibrated when it runs to the rest of "
                    "the budget, so that both stages compose (by %4) to ε = %2, δ = %3<br>")
                    .arg(count(plan.split->b), num(plan.totalEpsilon), num(plan.totalDelta),
                         prv ? QStringLiteral("PRV") : QStringLiteral("RDP"), finetune);
    html += QStringLiteral("<b>Total guarantee</b>: (ε, δ) = (<b>%1</b>, <b>%2</b>) — %3")
                .arg(num(plan.totalEpsilon), num(plan.totalDelta),
                     parallel ? QStringLiteral("parallel composition: A and B hold different people, so the run costs "
                                               "max(ε<sub>A</sub>, ε<sub>B</sub>).")
                              : QStringLiteral("sequential composition: both stages charge the same budget; mixture "
                                               "learning spends half of ε and δ, fine-tuning the rest (DP-MixMin runs; "
                                               "methods with one private stage spend the whole budget on it)."));
    if (p.reproducible)
        html += QStringLiteral(
            "<br><span style='color:#b00020'><b>Reproducible randomness</b>: sampling and noise "
            "are derived from the seed this project stores, so anyone holding the file can "
            "regenerate the noise. The guarantee above holds only while the seed stays secret: "
            "these runs are <b>not a release</b>.</span>");
    return html;
}

QString splitSummaryText(const PrivacyPlan& plan) {
    if (!plan.split) return QStringLiteral("Split A: – · Split B: –");
    // Expected sizes: each unit's side is drawn on its own (a stable split), so the realised sizes
    // vary by about √n around these; the mechanisms use the realised ones.
    return QStringLiteral("Split A (mixture): ≈ %1 · Split B (fine-tuning): ≈ %2")
        .arg(count(plan.split->a), count(plan.split->b));
}

}  // namespace dpmix::workbench
