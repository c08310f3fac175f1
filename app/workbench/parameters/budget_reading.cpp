#include "app/workbench/parameters/budget_reading.h"
#include "app/workbench/parameters/accountant_choice.h"

#include "app/workbench/parameters/number_parsing.h"
#include "engine/privacy/ledger.h"
#include "engine/psg/psg_params.h"
#include "engine/privacy/privacy_budget.h"
#include "engine/project/project_budget.h"

#include <cmath>

namespace dpmix::workbench {
namespace {

Result<project::ProjectBudget> budgetOfSnapshot(const ProjectSnapshot& s) {
    std::vector<project::RunLedgers> runs;
    for (const auto& r : s.runs) runs.push_back({r.run, r.ledgers});
    return project::budgetOf(s.spec, runs);
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

Result<widgets::BudgetReading> budgetReadingOf(const ProjectSnapshot& snapshot) {
    auto b = budgetOfSnapshot(snapshot);
    if (!b) return b.error();
    widgets::BudgetReading r;
    r.dataset = QString::fromStdString(snapshot.spec.sensitive.written.name);
    r.unit = unitLabelOf(snapshot.spec);
    r.spent = b->total.epsilon;
    r.delta = b->total.delta;
    r.releases = b->total.releases;
    r.cap = b->cap;
    r.notCounted = static_cast<long long>(b->uncounted.size());
    return r;
}

namespace {
// Before → after of the planned releases composed with what the project spent, against its cap.
SpendPreview previewOf(const ProjectSnapshot& snapshot, const project::ProjectBudget& current,
                       const std::vector<privacy::BudgetRelease>& planned, bool alsoFineTunes) {
    const auto forecast = project::forecastBudget(current, planned);
    SpendPreview out;
    out.dataset = QString::fromStdString(snapshot.spec.sensitive.written.name);
    out.unit = unitLabelOf(snapshot.spec);
    out.before = forecast.before;
    out.after = forecast.after;
    out.cap = current.cap;
    out.releases = static_cast<long long>(planned.size());
    out.overCap = out.cap && !(out.after <= *out.cap * (1.0 + 1e-12));
    out.fineTuningNotShown = alsoFineTunes;
    return out;
}
}  // namespace

// One DP-MixMin release per seed and task at the plan's σ, on each seed's split A.
Status addPlannedMixtureReleases(const ProjectSnapshot& snapshot, const widgets::RunParameters& p,
                                 const PrivacyPlan& plan, std::vector<privacy::BudgetRelease>& planned) {
    if (!plan.mixture) return Error{"the parameters do not give a mixture stage to preview"};
    auto seeds = parseSeeds(p.seeds);
    if (!seeds) return seeds.error();
    const std::size_t tasks = std::max<std::size_t>(1, snapshot.taskNames().size());
    const bool parallel = p.composition == widgets::CompositionMode::Parallel;
    for (long long seed : *seeds) {
        auto entry = privacy::gaussianEntry("mixture", "A",
                                            snapshot.spec.sensitive.userLevel ? privacy::PrivacyUnit::User
                                                                              : privacy::PrivacyUnit::Example,
                                            plan.mixture->q, plan.mixture->sigma, plan.mixture->steps,
                                            plan.mixture->target.delta, p.clipNorm,
                                            engineAccountant(p.accountant));
        for (std::size_t t = 0; t < tasks; ++t)
            planned.push_back({0, "planned", parallel ? privacy::rhoPartition(seed, p.rho) : std::string(), entry});
    }
    return std::nullopt;
}

Result<SpendPreview> previewSpend(const ProjectSnapshot& snapshot, const widgets::RunParameters& p, const PrivacyPlan& plan,
                                  bool alsoFineTunes) {
    auto current = budgetOfSnapshot(snapshot);
    if (!current) return current.error();
    std::vector<privacy::BudgetRelease> planned;
    if (auto e = addPlannedMixtureReleases(snapshot, p, plan, planned)) return *e;
    return previewOf(snapshot, *current, planned, alsoFineTunes);
}

Result<SpendPreview> previewSweepSpend(const ProjectSnapshot& snapshot, const widgets::RunParameters& p,
                                       const std::vector<double>& epsilons, bool fullPipeline) {
    auto current = budgetOfSnapshot(snapshot);
    if (!current) return current.error();
    std::vector<privacy::BudgetRelease> planned;
    for (double epsilon : epsilons) {
        widgets::RunParameters atEpsilon = p;
        atEpsilon.epsilon = epsilon;
        if (auto e = addPlannedMixtureReleases(snapshot, atEpsilon, planPrivacy(atEpsilon), planned)) return *e;
    }
    return previewOf(snapshot, *current, planned, fullPipeline);
}

Result<SpendPreview> previewPsgSpend(const ProjectSnapshot& snapshot, const widgets::RunParameters& p,
                                     const PsgSettings& settings) {
    auto current = budgetOfSnapshot(snapshot);
    if (!current) return current.error();
    long long examples = 0;
    for (const auto& s : snapshot.sources)
        if (s.role == "sensitive") examples = s.facts.examples;
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
    return previewOf(snapshot, *current, planned, false);
}

QString spendPreviewText(const SpendPreview& s) {
    QString text = QObject::tr("<p>This run makes <b>%1 DP release(s)</b> on <b>%2</b> (unit: %3).</p>"
                               "<p>Privacy budget spent on %2: ε <b>%4</b> now → <b>%5</b> after this run")
                       .arg(s.releases)
                       .arg(s.dataset.toHtmlEscaped(), s.unit, num(s.before), num(s.after));
    text += s.cap ? QObject::tr(" (cap %1).</p>").arg(*s.cap) : QObject::tr(" (no cap).</p>");
    if (s.fineTuningNotShown)
        text += QObject::tr("<p>Fine-tuning spends more on top of this; the engine adds it and checks the cap exactly "
                            "before any mechanism runs.</p>");
    text += QObject::tr("<p>Releases are composed by the RDP accountant, not added up. Estimated from the panel "
                        "(split A ≈ round(ρ·n)); the ledger records the realised figures.</p>");
    if (s.overCap)
        text += QObject::tr("<p><b>Over the cap: nothing will be run.</b> Raise privacy.budget in the spec, or spend "
                            "less (a smaller ε, fewer seeds).</p>");
    return text;
}

}  // namespace dpmix::workbench
