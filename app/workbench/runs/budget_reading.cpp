#include "app/workbench/runs/budget_reading.h"
#include "app/workbench/parameters/accountant_choice.h"

#include "app/workbench/parameters/number_parsing.h"
#include "engine/privacy/ledger.h"
#include "engine/privacy/privacy_budget.h"
#include "engine/project/project_budget.h"
#include "engine/psg_set/psg_params.h"

#include <cmath>

namespace dpmix::workbench {
namespace {

Result<project::ProjectBudget> budgetOfSnapshot(const ProjectSnapshot& s) {
    std::vector<project::RunLedgers> runs;
    for (const auto& r : s.runs) runs.push_back({r.run, r.ledgers});
    return project::budgetOf(s.spec, runs, s.budgetStore ? &*s.budgetStore : nullptr);
}

// The smallest of the data set's caps and the panel's, and where it comes from.
std::optional<double> effectiveCap(const project::ProjectBudget& b, std::optional<double> panelCap, QString* from) {
    std::optional<double> cap = b.cap;
    if (from && cap)
        *from = b.storeCap && *b.storeCap == *cap ? QObject::tr("the budget store")
                                                  : QObject::tr("the spec (privacy.budget)");
    if (panelCap && (!cap || *panelCap < *cap)) {
        cap = panelCap;
        if (from) *from = QObject::tr("the privacy settings");
    }
    return cap;
}

std::optional<double> panelCapOf(const widgets::RunParameters& p) {
    auto cap = parseBudgetCap(p.budgetCap);
    return cap ? *cap : std::nullopt;  // a malformed cap is the panel's error; the plan refuses the run
}

QString num(double v) { return std::isinf(v) ? QStringLiteral("∞") : QString::number(v, 'f', 3); }

}  // namespace

QString unitLabelOf(const project::ProjectSpec& spec) {
    if (!spec.sensitive.userLevel) return QObject::tr("examples");
    const auto& options = spec.sensitive.written.options;
    if (auto it = options.find("user_column"); it != options.end() && !it->second.empty()) {
        QString name = QString::fromStdString(it->second).toLower();
        if (!name.endsWith('s')) name += 's';
        return name;
    }
    return QObject::tr("users");
}

Result<widgets::BudgetReading> budgetReadingOf(const ProjectSnapshot& snapshot, std::optional<double> panelCap) {
    auto b = budgetOfSnapshot(snapshot);
    if (!b) return b.error();
    widgets::BudgetReading r;
    r.dataset = QString::fromStdString(snapshot.spec.sensitive.written.name);
    r.unit = unitLabelOf(snapshot.spec);
    r.spent = b->total.epsilon;
    r.delta = b->total.delta;
    r.releases = b->total.releases;
    r.cap = effectiveCap(*b, panelCap, &r.capFrom);
    r.notCounted = static_cast<long long>(b->uncounted.size());
    r.otherReleases = b->otherReleases;
    r.inProgress = static_cast<long long>(b->reservations.size());
    r.store = QString::fromStdString(b->storePath);
    if (!snapshot.budgetStoreError.isEmpty())
        r.storeNote =
            QObject::tr("The budget store cannot be read (%1): this file's runs only").arg(snapshot.budgetStoreError);
    else if (snapshot.budgetStore && !b->storeKnowsDataset)
        r.storeNote =
            QObject::tr("The budget store has no record of this data set yet: spending recorded elsewhere is not seen");
    return r;
}

namespace {
// Before → after of the planned releases composed with what the project spent, against its cap.
SpendPreview previewOf(const ProjectSnapshot& snapshot, const project::ProjectBudget& current,
                       const std::vector<privacy::BudgetRelease>& planned, bool alsoFineTunes,
                       const widgets::RunParameters& p, const QString& why) {
    const auto forecast = project::forecastBudget(current, planned);
    SpendPreview out;
    out.dataset = QString::fromStdString(snapshot.spec.sensitive.written.name);
    out.unit = unitLabelOf(snapshot.spec);
    out.before = forecast.before;
    out.after = forecast.after;
    out.cap = effectiveCap(current, panelCapOf(p), nullptr);
    out.why = why;
    out.accountant = p.accountant == widgets::AccountantChoice::Prv ? QStringLiteral("PRV") : QStringLiteral("RDP");
    out.store = QString::fromStdString(current.storePath);
    out.releases = static_cast<long long>(planned.size());
    out.overCap = out.cap && !(out.after <= *out.cap * (1.0 + 1e-12));
    out.fineTuningNotShown = alsoFineTunes;
    return out;
}
}  // namespace

// One DP-MixMin release per seed and task at the plan's σ, on each seed's split A; `tasks` 0:
// every task of the study.
Status addPlannedMixtureReleases(const ProjectSnapshot& snapshot, const widgets::RunParameters& p,
                                 const PrivacyPlan& plan, std::vector<privacy::BudgetRelease>& planned,
                                 std::size_t tasks = 0) {
    if (!plan.mixture) return Error{"the parameters do not give a mixture stage to preview"};
    auto seeds = parseSeeds(p.seeds);
    if (!seeds) return seeds.error();
    if (tasks == 0) tasks = std::max<std::size_t>(1, snapshot.taskNames().size());
    const bool parallel = p.composition == widgets::CompositionMode::Parallel;
    for (long long seed : *seeds) {
        auto entry = privacy::gaussianEntry(
            "mixture", "A",
            snapshot.spec.sensitive.userLevel ? privacy::PrivacyUnit::User : privacy::PrivacyUnit::Example,
            plan.mixture->q, plan.mixture->sigma, plan.mixture->steps, plan.mixture->target.delta, p.clipNorm,
            engineAccountant(p.accountant));
        for (std::size_t t = 0; t < tasks; ++t)
            planned.push_back({0, "planned", parallel ? privacy::rhoPartition(seed, p.rho) : std::string(), entry});
    }
    return std::nullopt;
}

Result<SpendPreview> previewSpend(const ProjectSnapshot& snapshot, const widgets::RunParameters& p,
                                  const PrivacyPlan& plan, bool alsoFineTunes) {
    auto current = budgetOfSnapshot(snapshot);
    if (!current) return current.error();
    std::vector<privacy::BudgetRelease> planned;
    if (auto e = addPlannedMixtureReleases(snapshot, p, plan, planned)) return *e;
    const auto seeds = parseSeeds(p.seeds);
    const std::size_t tasks = std::max<std::size_t>(1, snapshot.taskNames().size());
    const QString why = QObject::tr("one DP-MixMin λ per sensitive task (%1) and seed (%2), each a release of its own")
                            .arg(tasks)
                            .arg(seeds ? seeds->size() : 0);
    return previewOf(snapshot, *current, planned, alsoFineTunes, p, why);
}

Result<SpendPreview> previewPlannedSpend(const ProjectSnapshot& snapshot, const widgets::RunParameters& p,
                                         const std::vector<privacy::BudgetRelease>& planned) {
    auto current = budgetOfSnapshot(snapshot);
    if (!current) return current.error();
    long long lambdas = 0;
    for (const auto& r : planned)
        if (r.entry.stage == "mixture") ++lambdas;
    const long long models = static_cast<long long>(planned.size()) - lambdas;
    // A comparison that plans no λ reuses the ones the project released (pipeline/mixture_reuse.h).
    const QString why =
        models == 0    ? QObject::tr("%1 DP-MixMin λ(s), one per sensitive task, ε and seed").arg(lambdas)
        : lambdas == 0 ? QObject::tr(
                             "%1 privately fine-tuned model(s); no new DP-MixMin λ: the comparison reuses "
                             "the λ this project already released, without a second spend")
                             .arg(models)
                       : QObject::tr("%1 DP-MixMin λ(s) and %2 privately fine-tuned model(s)").arg(lambdas).arg(models);
    SpendPreview out = previewOf(snapshot, *current, planned, false, p, why);
    out.exact = true;
    return out;
}

Result<SpendPreview> previewSweepSpend(const ProjectSnapshot& snapshot, const widgets::RunParameters& p,
                                       const SweepScope& scope) {
    auto current = budgetOfSnapshot(snapshot);
    if (!current) return current.error();
    std::vector<privacy::BudgetRelease> planned;
    for (double epsilon : scope.epsilons) {
        widgets::RunParameters atEpsilon = p;
        atEpsilon.epsilon = epsilon;
        if (auto e =
                addPlannedMixtureReleases(snapshot, atEpsilon, planPrivacy(atEpsilon), planned, scope.tasks.size()))
            return *e;
    }
    const QString why =
        scope.tasks.empty()
            ? QObject::tr("one DP-MixMin λ per ε of the sweep (%1), sensitive task and seed").arg(scope.epsilons.size())
            : QObject::tr("one DP-MixMin λ per ε of the sweep (%1), chosen task (%2) and seed")
                  .arg(scope.epsilons.size())
                  .arg(scope.tasks.size());
    return previewOf(snapshot, *current, planned, scope.fullPipeline, p, why);
}

Result<SpendPreview> previewPsgSpend(const ProjectSnapshot& snapshot, const widgets::RunParameters& p,
                                     const PsgSettings& settings) {
    auto current = budgetOfSnapshot(snapshot);
    if (!current) return current.error();
    long long examples = 0;
    for (const auto& s : snapshot.sources)
        if (s.role == project::SourceRole::Sensitive) examples = s.facts.examples;
    const auto train = static_cast<std::int64_t>(std::llround(0.8 * static_cast<double>(examples)));
    auto delta = parseDouble(QStringLiteral("delta"), p.delta, QStringLiteral("a number in (0, 1)"));
    if (!delta) return delta.error();
    const project::PsgSection g = snapshot.spec.psg.value_or(project::PsgSection{});
    auto params = psg::PsgParamsBuilder()
                      .imagesPerClass(settings.imagesPerClass)
                      .iterations(static_cast<int>(settings.iterations))
                      .batchLoop(static_cast<int>(g.batchLoop))
                      .epsilon(p.epsilon)
                      .delta(*delta)
                      .accountant(engineAccountant(p.accountant))
                      .clipNorm(g.clip)
                      .expectedBatchSize(static_cast<int>(g.batch))
                      .build();
    if (!params) return params.error();
    auto entry = psg::plannedPsgEntry(*params, train);
    if (!entry) return entry.error();
    std::vector<privacy::BudgetRelease> planned{{0, "planned psg", "", *entry}};
    if (settings.references && settings.dpSgdSteps > 0) {
        const double q = static_cast<double>(g.batch) / static_cast<double>(train);
        auto sigma = privacy::calibrateSigma(params->accountant, p.epsilon, *delta, q, settings.dpSgdSteps);
        if (!sigma) return sigma.error();
        planned.push_back({0, "planned psg-dp-sgd", "",
                           privacy::gaussianEntry("finetune", "train", privacy::PrivacyUnit::Example, q, sigma->sigma,
                                                  settings.dpSgdSteps, *delta, g.dpSgdClip, params->accountant)});
    }
    const QString why = planned.size() > 1 ? QObject::tr("the private set, and the DP-SGD reference trained beside it")
                                           : QObject::tr("the private set");
    return previewOf(snapshot, *current, planned, false, p, why);
}

QString estimatedDurationText(double seconds, double stepMilliseconds, int batch) {
    const auto s = static_cast<long long>(std::llround(std::max(0.0, seconds)));
    QString about;
    if (s < 60)
        about = QObject::tr("%1 s").arg(s);
    else if (s < 3600)
        about = QObject::tr("%1 min").arg(std::llround(seconds / 60.0));
    else
        about = QObject::tr("%1 h %2 min").arg(s / 3600).arg((s % 3600 + 30) / 60);
    return QObject::tr(
               "Estimated time on this machine: about %1 (a training step of %2 images measured at %3 ms "
               "just now, times the run's planned steps; other work on the machine slows it).")
        .arg(about)
        .arg(batch)
        .arg(std::llround(stepMilliseconds));
}

QString spendPreviewText(const SpendPreview& s) {
    QString text = QObject::tr("<p>This run makes <b>%1 DP release(s)</b> on <b>%2</b> (unit: %3)")
                       .arg(s.releases)
                       .arg(s.dataset.toHtmlEscaped(), s.unit);
    text += s.why.isEmpty() ? QStringLiteral(".</p>") : QStringLiteral(": %1.</p>").arg(s.why.toHtmlEscaped());
    text += QObject::tr("<p>The data set's total, over every project on it: ε <b>%1</b> now → <b>%2</b> after this run")
                .arg(num(s.before), num(s.after));
    text += s.cap ? QObject::tr(" (cap %1).</p>").arg(*s.cap) : QObject::tr(" (no cap).</p>");
    if (!s.accountant.isEmpty())
        text += QObject::tr(
                    "<p>Each release is calibrated and certified by the %1 accountant (the panel's choice); the "
                    "total composes the releases by RDP, and also by PRV when every release is PRV-certified, "
                    "keeping the smaller.</p>")
                    .arg(s.accountant);
    if (s.fineTuningNotShown)
        text += QObject::tr(
            "<p>Fine-tuning spends more on top of this; the engine adds it and checks the cap exactly "
            "before any mechanism runs.</p>");
    text += s.exact ? QObject::tr(
                          "<p>Releases are composed, not added up. Planned by the engine on the realised splits: "
                          "this is what the run reserves on the data set's budget when it starts.</p>")
                    : QObject::tr(
                          "<p>Releases are composed, not added up. Estimated from the panel (split A ≈ round(ρ·n)); "
                          "the ledger records the realised figures.</p>");
    if (!s.duration.isEmpty()) text += QStringLiteral("<p>%1</p>").arg(s.duration.toHtmlEscaped());
    if (s.overCap)
        text += QObject::tr(
            "<p><b>Over the cap: nothing will be run.</b> Raise “Data set's total cap ε” in the privacy "
            "settings (or the budget store's cap: <code>dpmix budget --cap</code>), or spend less (a "
            "smaller ε, fewer seeds or tasks).</p>");
    return text;
}

}  // namespace dpmix::workbench
