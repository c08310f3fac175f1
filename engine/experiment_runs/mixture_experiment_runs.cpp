#include "engine/experiment_runs/mixture_experiment_runs.h"

#include "engine/audit/objective_builder.h"
#include "engine/core/mean_std.h"
#include "engine/data/source_loader.h"
#include "engine/mixmin/objective.h"
#include "engine/mixmin/params.h"
#include "engine/privacy/ledger.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace dpmix::experiment_runs {
namespace {

std::vector<std::uint64_t> seedList(long long count) {
    std::vector<std::uint64_t> seeds;
    for (long long s = 0; s < count; ++s) seeds.push_back(static_cast<std::uint64_t>(s));
    return seeds;
}

std::string number(double v) {
    std::ostringstream s;
    s << v;
    return s.str();
}

double firstEpsilon(const project::ProjectSpec& spec, const std::optional<double>& given) {
    return given.value_or(spec.privacy.epsilons.empty() ? 1.0 : spec.privacy.epsilons.front());
}

// Every DP-MixMin setting of the study's mixture stage except ε and the seed. q = B / n is
// capped at 1 by passing min(B, n) as the expected batch.
mixmin::DpMixMinParamsBuilder baseBuilder(const project::MixtureStage& mixture, double delta,
                                          privacy::Accountant accountant, double epsilon, long long n) {
    return mixmin::DpMixMinParamsBuilder()
        .epsilon(epsilon)
        .delta(delta)
        .expectedBatch(std::min<double>(static_cast<double>(mixture.batch), static_cast<double>(n)))
        .clipNorm(mixture.clip)
        .stepSize(mixture.lr)
        .steps(mixture.steps)
        .release(mixture.releaseAverage ? mixmin::ReleasedIterate::Average : mixmin::ReleasedIterate::Last)
        .accountant(accountant)
        .split("A");
}

mixmin::DpMixMinParamsBuilder baseBuilder(const project::ProjectSpec& spec, double epsilon, long long n) {
    return baseBuilder(spec.mixture, spec.privacy.delta, spec.privacy.accountant, epsilon, n);
}

// A stored run around `body`: running → done, or failed / cancelled. The ledger holds one
// NonPrivate entry: these experiments compare with references fitted without privacy.
template <typename Body>
Result<long long> storedDiagnosticRun(project::ProjectFile& project, const project::NewRun& run, const std::string& why,
                                      Body&& body) {
    auto id = project.addRun(run);
    if (!id) return id.error();
    if (auto s = project.setRunStatus(*id, project::RunStatus::Running); !s) return s.error();
    auto fail = [&](const Error& e) -> Result<long long> {
        (void)project.setRunStatus(*id, project::RunStatus::Failed, e.message);
        return e;
    };
    privacy::Ledger ledger(project.spec().privacy.composition);
    ledger.record(privacy::nonPrivateEntry(run.method, "A", why));
    if (auto s = project.recordLedger(*id, ledger); !s) return fail(s.error());
    if (auto err = body(*id)) return fail(*err);
    if (auto s = project.setRunStatus(*id, project::RunStatus::Done); !s) return s.error();
    return *id;
}

Status checked(const Result<long long>& r) {
    if (!r) return r.error();
    return std::nullopt;
}

Status checkSeeds(long long seeds) {
    if (seeds < 1)
        return Error{"seeds = " + std::to_string(seeds) + " is out of range: expected an integer >= 1", "seeds"};
    return std::nullopt;
}

}  // namespace

Eigen::MatrixXd classProbabilitiesFromComponents(const Eigen::MatrixXd& componentProbabilities,
                                                 const std::vector<std::size_t>& componentOfClass) {
    const Eigen::Index n = componentProbabilities.rows();
    const Eigen::Index c = static_cast<Eigen::Index>(componentOfClass.size());
    Eigen::MatrixXd p(n, c);
    for (Eigen::Index j = 0; j < c; ++j)
        p.col(j) = componentProbabilities.col(static_cast<Eigen::Index>(componentOfClass[j]));
    for (Eigen::Index i = 0; i < n; ++i) {
        const double sum = p.row(i).sum();
        if (sum > 0.0)
            p.row(i) /= sum;
        else
            p.row(i).setConstant(1.0 / static_cast<double>(c));
    }
    return p;
}

Result<std::vector<std::size_t>> singleClassComponents(const project::ProjectSpec& spec,
                                                       const std::vector<std::string>& componentNames,
                                                       const std::vector<std::string>& classes) {
    std::vector<std::size_t> out;
    for (const auto& cls : classes) {
        std::optional<std::size_t> found;
        if (!spec.publicTasks.empty()) {
            for (std::size_t i = 0; i < spec.publicTasks.size() && !found; ++i)
                if (spec.publicTasks[i].classes == std::vector<std::string>{cls}) found = i;
        } else {
            for (std::size_t i = 0; i < componentNames.size() && !found; ++i)
                if (componentNames[i] == cls) found = i;
        }
        if (!found)
            return Error{"k-scaling needs a public task that is exactly the class '" + cls +
                         "' (the 10-class proxy is derived from the single-class public tasks); the spec has none"};
        out.push_back(*found);
    }
    return out;
}

Status checkKScalingStageOptions(const KScalingStageOptions& o) {
    if (o.ks.size() < 2) return Error{"ks: give at least 2 values of k", "ks"};
    for (auto k : o.ks)
        if (k < 2) return Error{"ks: k = " + std::to_string(k) + " is out of range: expected an integer >= 2", "ks"};
    if (auto e = checkSeeds(o.seeds)) return e;
    if (o.epsilon && (!(*o.epsilon > 0.0) || !std::isfinite(*o.epsilon)))
        return Error{"epsilon = " + number(*o.epsilon) + " is out of range: expected a finite number > 0", "epsilon"};
    if (!(o.gapTolerance > 0.0))
        return Error{"gap-tolerance = " + number(o.gapTolerance) + " is out of range: expected > 0", "gap-tolerance"};
    if (o.maxClasses < 0)
        return Error{"classes = " + std::to_string(o.maxClasses) + " is out of range: expected >= 1 (0 = all)",
                     "classes"};
    return std::nullopt;
}

Status checkRhoSweepStageOptions(const SweepStageOptions& o) {
    if (o.values.empty()) return Error{"rhos: give at least one fraction", "rhos"};
    for (double r : o.values)
        if (!(r > 0.0 && r < 1.0))
            return Error{"rhos: rho = " + number(r) + " is out of range: expected a fraction in (0, 1)", "rhos"};
    if (o.epsilon && (!(*o.epsilon > 0.0) || !std::isfinite(*o.epsilon)))
        return Error{"epsilon = " + number(*o.epsilon) + " is out of range: expected a finite number > 0", "epsilon"};
    return checkSeeds(o.seeds);
}

Status checkEpsilonSweepStageOptions(const SweepStageOptions& o) {
    if (o.values.empty()) return Error{"epsilons: give at least one epsilon", "epsilons"};
    for (double e : o.values)
        if (!(e > 0.0))
            return Error{"epsilons: epsilon = " + number(e) + " is out of range: expected a number > 0 or inf",
                         "epsilons"};
    return checkSeeds(o.seeds);
}

namespace {

// The raw classes of the sensitive examples: the study's sensitive labels are the derived
// tasks, so the source is read again without them (its one-hot class columns).
Result<data::ImageDataset> rawSensitiveSource(project::ProjectFile& project, const pipeline::ImageStudy& study,
                                              const pipeline::LogSink& log) {
    auto sources = project.sources();
    if (!sources) return sources.error();
    const project::SourceRecord* sensitive = nullptr;
    for (const auto& s : *sources)
        if (s.role == project::SourceRole::Sensitive) sensitive = &s;
    if (!sensitive) return Error{"the project has no sensitive source"};
    if (log) log("reading the sensitive source's raw classes");
    auto raw = data::loadImageSource(
        {sensitive->name, sensitive->loader, sensitive->path, project.spec().sensitive.written.options});
    if (!raw) return Error{"sensitive source '" + sensitive->name + "': " + raw.error().message};
    if (raw->size() != study.sensitiveImages.size())
        return Error{"sensitive source '" + sensitive->name + "' changed size since the study was loaded"};
    return raw;
}

// Mean excess over the classes at each k, the largest non-private gap, and the log-log slope.
void summariseKScaling(KScalingStageReport& report, const std::vector<long long>& ks) {
    for (std::size_t r = 0; r < ks.size(); ++r) {
        std::vector<double> means;
        for (const auto& pc : report.perClass) means.push_back(pc.rows[r].meanExcess.mean);
        const auto ms = meanStd(means);
        report.meanExcess.push_back(ms.mean);
        report.stdOverClasses.push_back(ms.std);
        double gap = 0.0;
        for (const auto& pc : report.perClass) gap = std::max(gap, pc.rows[r].nonPrivateGap);
        report.maxGap.push_back(gap);
    }
    std::vector<double> kx(ks.begin(), ks.end());
    auto fit = experiments::fitLogLogSlope(kx, report.meanExcess, 32.0);
    if (fit) {
        report.fit = *fit;
        report.fitted = true;
    } else {
        report.fitError = fit.error().message;
    }
}

Result<long long> storeKScaling(project::ProjectFile& project, const KScalingStageReport& report,
                                const KScalingStageOptions& options, std::uint64_t splitSeed,
                                const std::string& provenance) {
    const auto& spec = project.spec();
    const auto& classes = report.classes;
    const nlohmann::json config{{"stage", "k-scaling"},        {"ks", options.ks},
                                {"seeds", options.seeds},      {"epsilon", report.epsilon},
                                {"delta", spec.privacy.delta}, {"rho", spec.privacy.rho},
                                {"split_a", report.splitA},    {"classes", classes},
                                {"min_k_for_fit", 32},         {"gap_tolerance", options.gapTolerance},
                                {"clip", spec.mixture.clip},   {"batch", spec.mixture.batch},
                                {"lr", spec.mixture.lr},       {"steps", spec.mixture.steps}};
    return storedDiagnosticRun(
        project, {"k-scaling", "", report.epsilon, static_cast<long long>(splitSeed), config.dump()},
        "excess error of DP-MixMin against the non-private lambda* on split A, per class-subset source set; a "
        "diagnostic of the mechanism, not a release",
        [&](long long id) -> Status {
            std::vector<project::CurvePoint> excess;
            for (std::size_t r = 0; r < options.ks.size(); ++r) excess.push_back({options.ks[r], report.meanExcess[r]});
            if (auto e = checked(project.addCurve(id, "excess", excess))) return e;
            for (std::size_t c = 0; c < classes.size(); ++c) {
                std::vector<project::CurvePoint> points;
                for (const auto& row : report.perClass[c].rows) points.push_back({row.k, row.meanExcess.mean});
                if (auto e = checked(project.addCurve(id, "excess/" + classes[c], points))) return e;
            }
            if (!provenance.empty())
                if (auto e = checked(project.addLog(id, "info", provenance))) return e;
            if (!report.fitted) return std::nullopt;
            return checked(project.addMetrics({{id, "slope", "", report.fit.slope},
                                               {id, "slope-r-squared", "", report.fit.rSquared},
                                               {id, "slope-points", "", static_cast<double>(report.fit.points)}}));
        });
}

}  // namespace

Result<KScalingInputs> prepareKScaling(project::ProjectFile& project, const KScalingStageOptions& options,
                                       const ProgressCallback& progress, const CancellationToken& cancel,
                                       const pipeline::LogSink& log) {
    if (auto err = checkKScalingStageOptions(options)) return *err;
    const auto& spec = project.spec();
    auto prepared = pipeline::prepareStudy(project, options.proxy, progress, cancel, log);
    if (!prepared) return prepared.error();
    const pipeline::ImageStudy& study = prepared->study;
    if (study.multiSource())
        return Error{
            "k-scaling needs a study with one public source: its 10-class proxy is derived from that "
            "source's single-class tasks (this study has " +
            std::to_string(study.publicSourceNames.size()) + ")"};
    auto raw = rawSensitiveSource(project, study, log);
    if (!raw) return raw.error();
    KScalingInputs in;
    in.classes = raw->labelNames;
    if (options.maxClasses > 0 && options.maxClasses < static_cast<long long>(in.classes.size()))
        in.classes.resize(static_cast<std::size_t>(options.maxClasses));
    // p(c | x) is renormalised over ALL the source's classes, whichever tasks are run.
    auto components = singleClassComponents(spec, study.componentNames, raw->labelNames);
    if (!components) return components.error();
    in.epsilon = firstEpsilon(spec, options.epsilon);
    in.splitSeed = options.splitSeed.value_or(prepared->studySeed);
    auto split = pipeline::splitForRun(study, spec.privacy.rho, in.splitSeed);
    if (!split) return split.error();
    auto componentProbabilities = prepared->proxy.predict(study.sensitiveImages, split->a);
    if (!componentProbabilities) return componentProbabilities.error();
    in.classProbabilities = classProbabilitiesFromComponents(*componentProbabilities, *components);
    in.splitA = static_cast<long long>(split->a.size());
    for (std::size_t c = 0; c < in.classes.size(); ++c) {
        std::vector<int> labels;
        for (auto i : split->a) labels.push_back(raw->labels[i * raw->numLabels() + c] > 0.5f ? 1 : 0);
        in.labels.push_back(std::move(labels));
    }
    in.mixture = spec.mixture;
    in.delta = spec.privacy.delta;
    in.accountant = spec.privacy.accountant;
    return in;
}

Result<experiments::KScalingResult> runKScalingClass(const KScalingInputs& in, std::size_t c,
                                                     const KScalingStageOptions& options,
                                                     const ProgressCallback& progress,
                                                     const CancellationToken& cancel) {
    if (c >= in.classes.size()) return Error{"k-scaling: class index " + std::to_string(c) + " is out of range"};
    experiments::KScalingOptions ko;
    ko.ks = options.ks;
    ko.seeds = seedList(options.seeds);
    ko.threads = options.threads;
    ko.gapTolerance = options.gapTolerance;
    const auto base = baseBuilder(in.mixture, in.delta, in.accountant, in.epsilon, in.splitA);
    auto result = experiments::runKScaling(in.classProbabilities, in.labels[c], base, ko, progress, cancel);
    if (!result) return Error{"k-scaling, task '" + in.classes[c] + "': " + result.error().message};
    return result;
}

Result<KScalingStageReport> storeKScalingResults(project::ProjectFile& project, const KScalingInputs& in,
                                                 const KScalingStageOptions& options,
                                                 std::vector<experiments::KScalingResult> perClass,
                                                 const std::string& provenance) {
    if (perClass.size() != in.classes.size())
        return Error{"k-scaling: " + std::to_string(perClass.size()) + " class results for " +
                     std::to_string(in.classes.size()) + " classes"};
    for (const auto& pc : perClass)
        if (pc.rows.size() != options.ks.size()) return Error{"k-scaling: a class result does not cover every k"};
    KScalingStageReport report;
    report.classes = in.classes;
    report.epsilon = in.epsilon;
    report.ks = options.ks;
    report.splitA = in.splitA;
    report.perClass = std::move(perClass);
    summariseKScaling(report, options.ks);
    auto run = storeKScaling(project, report, options, in.splitSeed, provenance);
    if (!run) return run.error();
    report.runId = *run;
    return report;
}

Result<KScalingStageReport> runKScalingExperiment(project::ProjectFile& project, const KScalingStageOptions& options,
                                                  const ProgressCallback& progress, const CancellationToken& cancel,
                                                  const pipeline::LogSink& log) {
    auto in = prepareKScaling(project, options, progress, cancel, log);
    if (!in) return in.error();
    const long long perClass = static_cast<long long>(options.ks.size()) * options.seeds;
    const long long total = perClass * static_cast<long long>(in->classes.size());
    std::vector<experiments::KScalingResult> results;
    for (std::size_t c = 0; c < in->classes.size(); ++c) {
        throwIfCancelled(cancel);
        if (log)
            log("k-scaling, one-vs-rest task '" + in->classes[c] + "' (" + std::to_string(c + 1) + "/" +
                std::to_string(in->classes.size()) + ")");
        const long long offset = perClass * static_cast<long long>(c);
        auto result = runKScalingClass(
            *in, c, options,
            [&](const ProgressEvent& e) {
                dpmix::report(progress, {"k-scaling", offset + e.done, total, in->classes[c]});
            },
            cancel);
        if (!result) return result.error();
        results.push_back(std::move(result).value());
    }
    return storeKScalingResults(project, *in, options, std::move(results), {});
}

namespace {

// Split-A style inputs of one task: the proxy's predictions on `rows` and the task labels.
std::vector<int> taskLabels(const pipeline::ImageStudy& study, const std::vector<std::size_t>& rows, std::size_t task) {
    std::vector<int> labels;
    for (auto i : rows) labels.push_back(study.sensitiveLabel(i, task) > 0.5f ? 1 : 0);
    return labels;
}

}  // namespace

Result<RhoSweepStageReport> runRhoSweepExperiment(project::ProjectFile& project, const SweepStageOptions& options,
                                                  const ProgressCallback& progress, const CancellationToken& cancel,
                                                  const pipeline::LogSink& log) {
    if (auto err = checkRhoSweepStageOptions(options)) return *err;
    auto say = [&](const std::string& line) {
        if (log) log(line);
    };
    const auto& spec = project.spec();
    auto prepared = pipeline::prepareStudy(project, options.proxy, progress, cancel, log);
    if (!prepared) return prepared.error();
    const pipeline::ImageStudy& study = prepared->study;
    const auto& train = study.sensitiveSplit.train;
    say("proxy predictions on the full sensitive train set (" + std::to_string(train.size()) + " examples)");
    auto probabilities = prepared->proxy.predict(study.sensitiveImages, train);
    if (!probabilities) return probabilities.error();

    RhoSweepStageReport report;
    report.epsilon = firstEpsilon(spec, options.epsilon);
    report.tasks = study.taskNames;
    experiments::RhoSweepOptions ro;
    ro.rhos = options.values;
    ro.seeds = seedList(options.seeds);
    ro.threads = options.threads;
    for (std::size_t t = 0; t < study.tasks(); ++t) {
        throwIfCancelled(cancel);
        auto builder = audit::binaryObjectiveBuilder(*probabilities, taskLabels(study, train, t));
        if (!builder) return builder.error();
        say("rho sweep, task '" + study.taskNames[t] + "'");
        // q = B / n_A is set per ρ by the sweep from the expected batch.
        auto base = baseBuilder(spec, report.epsilon, static_cast<long long>(train.size()));
        auto result = experiments::rhoSweep(*builder, base, ro, progress, cancel);
        if (!result) return Error{"rho sweep, task '" + study.taskNames[t] + "': " + result.error().message};
        std::vector<long long> ids;
        for (const auto& row : result->rows) {
            const nlohmann::json config{{"stage", "rho-sweep"},
                                        {"rho", row.rho},
                                        {"split_a", row.examples},
                                        {"seeds", options.seeds},
                                        {"epsilon", report.epsilon},
                                        {"delta", spec.privacy.delta},
                                        {"reference", "non-private lambda* on the full train set"}};
            auto run = storedDiagnosticRun(
                project, {"rho-sweep", study.taskNames[t], report.epsilon, 0, config.dump()},
                "lambda_DP compared with the non-private lambda* of the full sensitive train set: a diagnostic for "
                "choosing rho, not a release",
                [&](long long id) -> Status {
                    return checked(project.addMetrics({{id, "rho", "", row.rho},
                                                       {id, "split-a", "", static_cast<double>(row.examples)},
                                                       {id, "cosine-to-lambda-star", "", row.cosine.mean},
                                                       {id, "cosine-to-lambda-star-std", "", row.cosine.std},
                                                       {id, "l1-to-lambda-star", "", row.l1.mean},
                                                       {id, "l1-to-lambda-star-std", "", row.l1.std},
                                                       {id, "excess", "", row.excess.mean},
                                                       {id, "excess-std", "", row.excess.std},
                                                       {id, "uniform-cosine", "", result->uniformCosine}}));
                });
            if (!run) return run.error();
            ids.push_back(*run);
        }
        report.runIds.push_back(ids);
        report.perTask.push_back(std::move(result).value());
    }
    return report;
}

Result<EpsilonSweepStageReport> runEpsilonSweepExperiment(project::ProjectFile& project,
                                                          const SweepStageOptions& options,
                                                          const ProgressCallback& progress,
                                                          const CancellationToken& cancel,
                                                          const pipeline::LogSink& log) {
    if (auto err = checkEpsilonSweepStageOptions(options)) return *err;
    auto say = [&](const std::string& line) {
        if (log) log(line);
    };
    const auto& spec = project.spec();
    auto prepared = pipeline::prepareStudy(project, options.proxy, progress, cancel, log);
    if (!prepared) return prepared.error();
    const pipeline::ImageStudy& study = prepared->study;
    const std::uint64_t splitSeed = options.splitSeed.value_or(prepared->studySeed);
    auto split = pipeline::splitForRun(study, spec.privacy.rho, splitSeed);
    if (!split) return split.error();
    auto probabilities = prepared->proxy.predict(study.sensitiveImages, split->a);
    if (!probabilities) return probabilities.error();
    const long long n = static_cast<long long>(split->a.size());

    EpsilonSweepStageReport report;
    report.splitA = n;
    report.tasks = study.taskNames;
    experiments::EpsilonSweepOptions eo;
    eo.epsilons = options.values;
    eo.seeds = seedList(options.seeds);
    eo.threads = options.threads;
    for (std::size_t t = 0; t < study.tasks(); ++t) {
        throwIfCancelled(cancel);
        auto objective = mixmin::makeBinaryObjective(*probabilities, taskLabels(study, split->a, t));
        if (!objective) return Error{"task '" + study.taskNames[t] + "': " + objective.error().message};
        say("epsilon sweep, task '" + study.taskNames[t] + "'");
        auto result = experiments::epsilonSweep(*objective, baseBuilder(spec, 1.0, n), eo, progress, cancel);
        if (!result) return Error{"epsilon sweep, task '" + study.taskNames[t] + "': " + result.error().message};
        std::vector<long long> ids;
        for (const auto& row : result->rows) {
            nlohmann::json config{{"stage", "epsilon-sweep"},
                                  {"epsilon", row.nonPrivate ? nlohmann::json("inf") : nlohmann::json(row.epsilon)},
                                  {"non_private", row.nonPrivate},
                                  {"seeds", options.seeds},
                                  {"rho", spec.privacy.rho},
                                  {"split_a", n},
                                  {"delta", spec.privacy.delta}};
            const std::optional<double> eps = row.nonPrivate ? std::nullopt : std::optional<double>(row.epsilon);
            auto run = storedDiagnosticRun(
                project, {"epsilon-sweep", study.taskNames[t], eps, static_cast<long long>(splitSeed), config.dump()},
                "lambda_DP compared with the non-private lambda* on split A (weight recovery): a diagnostic, not a "
                "release",
                [&](long long id) -> Status {
                    return checked(project.addMetrics({{id, "cosine-to-lambda-star", "", row.cosine.mean},
                                                       {id, "cosine-to-lambda-star-std", "", row.cosine.std},
                                                       {id, "l1-to-lambda-star", "", row.l1.mean},
                                                       {id, "l1-to-lambda-star-std", "", row.l1.std},
                                                       {id, "sigma", "", row.sigma},
                                                       {id, "uniform-cosine", "", result->uniformCosine},
                                                       {id, "uniform-l1", "", result->uniformL1}}));
                });
            if (!run) return run.error();
            ids.push_back(*run);
        }
        report.runIds.push_back(ids);
        report.perTask.push_back(std::move(result).value());
    }
    return report;
}

}  // namespace dpmix::experiment_runs
