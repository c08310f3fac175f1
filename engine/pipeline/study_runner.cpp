#include "engine/pipeline/study_runner.h"

#include "engine/core/job_meter.h"
#include "engine/methods/method_plan.h"
#include "engine/mixmin/dp_mixmin.h"
#include "engine/pipeline/downstream_stage.h"
#include "engine/pipeline/mixture_records.h"
#include "engine/pipeline/planned_releases.h"
#include "engine/pipeline/release_randomness.h"
#include "engine/pipeline/run_configs.h"
#include "engine/pipeline/run_storage.h"
#include "engine/pipeline/step_calibration.h"
#include "engine/pipeline/study_work_plan.h"
#include "engine/privacy/ledger.h"
#include "engine/privacy/parameters.h"
#include "engine/privacy/privacy_budget.h"
#include "engine/project/project_budget.h"
#include "engine/project/spec_json.h"
#include "engine/project/study_seed.h"
#include "engine/study_plan/study_work.h"
#include "engine/train/model.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <set>

namespace dpmix::pipeline {

Result<PreparedStudy> prepareStudy(project::ProjectFile& project, const ProxyOptions& proxyOptions,
                                   const ProgressCallback& progress, const CancellationToken& cancel,
                                   const LogSink& log, const std::function<Status(const ImageStudy&)>& beforeProxy) {
    auto say = [&](const std::string& line) {
        if (log) log(line);
    };
    if (auto e = train::checkDevice(proxyOptions.device)) return *e;
    const auto& spec = project.spec();
    PreparedStudy prepared;
    prepared.studySeed = project::studySeedOf(spec);

    auto sources = project.sources();
    if (!sources) return sources.error();
    say("loading the study's data");
    auto study = loadImageStudy(*sources, spec, prepared.studySeed);
    if (!study) return study.error();
    prepared.study = std::move(study).value();
    const auto& st = prepared.study;
    say("public: " + std::to_string(st.publicImages.size()) + " images" +
        (st.multiSource() ? " of " + std::to_string(st.publicSourceNames.size()) + " sources" : std::string()) +
        ", k = " + std::to_string(st.components()) + " label tasks; sensitive: " +
        std::to_string(st.sensitiveImages.size()) + " images, " + std::to_string(st.tasks()) +
        " task(s); train/validation/test " + std::to_string(st.sensitiveSplit.train.size()) + "/" +
        std::to_string(st.sensitiveSplit.validation.size()) + "/" + std::to_string(st.sensitiveSplit.test.size()));
    if (beforeProxy)
        if (auto e = beforeProxy(st)) return *e;

    const std::string config = proxyConfigJson(proxyOptions);
    auto runs = project.runs();
    if (!runs) return runs.error();
    for (auto it = runs->rbegin(); it != runs->rend(); ++it) {
        if (it->method != "proxy" || it->status != project::RunStatus::Done ||
            !sameProxySettings(it->configJson, proxyOptions) || it->seed != static_cast<long long>(prepared.studySeed))
            continue;
        auto models = project.models(it->id);
        if (!models || models->empty()) continue;
        auto bytes = project.loadModel(models->front());  // verifies the content hash
        if (!bytes) {
            say("stored proxy of run " + std::to_string(it->id) + " not usable (" + bytes.error().message +
                "); retraining");
            break;
        }
        auto proxy = restoreProxy(st, bytesToFloats(*bytes), prepared.studySeed, proxyOptions.device);
        if (!proxy) {
            say("stored proxy of run " + std::to_string(it->id) + " not usable (" + proxy.error().message +
                "); retraining");
            break;
        }
        prepared.proxy = std::move(proxy).value();
        prepared.proxyRunId = it->id;
        prepared.proxyReused = true;
        say("reusing the proxy of run " + std::to_string(it->id) + " (held-out public AUC " +
            std::to_string(prepared.proxy.publicValidationAuc) + ")");
        return prepared;
    }

    // Proxies: public data only, no privacy cost, stored as a run of its own with its weights.
    say("training the proxy on public data (no privacy cost)");
    auto proxyRun = storedRun(project, {"proxy", "", std::nullopt, static_cast<long long>(prepared.studySeed), config},
                              [&](long long runId) -> Status {
                                  auto trained = trainProxy(st, proxyOptions, prepared.studySeed, progress, cancel);
                                  if (!trained) return trained.error();
                                  prepared.proxy = std::move(trained).value();
                                  if (auto e = errorOf(project.addMetrics(
                                          {{runId, "public-validation-auc", "", prepared.proxy.publicValidationAuc}})))
                                      return e;
                                  auto stored = project.storeWeights(runId, "proxy", prepared.proxy.parameters());
                                  if (!stored) return stored.error();
                                  return std::nullopt;
                              });
    if (!proxyRun) return proxyRun.error();
    prepared.proxyRunId = *proxyRun;
    say("proxy ready: mean AUC over the k public tasks on held-out public images = " +
        std::to_string(prepared.proxy.publicValidationAuc));
    return prepared;
}

namespace {

// Everything a study run resolves once from its options and the spec: the seeds, ε's, tasks and
// methods it covers, and the mixture request every (seed, task) shares.
struct StudyRun {
    project::ProjectFile& project;
    const StudyRunOptions& options;
    project::ProjectSpec spec;  // the project's, with the options' stage values (withStageOptions)
    const ProgressCallback& progress;
    const CancellationToken& cancel;
    std::function<void(const std::string&)> say;
    bool downstream = false, mixture = false;
    std::vector<methods::Method> methods;
    std::vector<std::uint64_t> seeds;
    std::vector<double> epsilons;
    std::vector<std::size_t> tasks;  // chosen once the study is loaded
    double rho = 0.0, delta = 0.0;
    project::MixtureStage mixtureStage;
    bool reproducible = false, userLevel = false, sequential = false;
    std::optional<long long> mixtureGroupSize;  // G_ULS at user level
    MixtureRequest request;
    long long totalRuns = 0, doneRuns = 0;
    // DP-MixMin releases the project already holds that this downstream run reuses (mixture_reuse.h).
    StoredMixtures reused;
    // The whole run's progress (one bar, one ETA); none when only planning.
    JobMeter* meter = nullptr;
    ProgressCallback phase(double cost, std::vector<JobMeter::Part> parts = {}) const {
        return meter ? meter->phase(cost, std::move(parts)) : progress;
    }
    // The run's hold on the data set's budget, taken before any private computation and settled
    // when the run ends (when this object goes, whatever the way out).
    std::optional<project::BudgetReservation> reservation;

    std::string mixtureConfig(const std::string& method, std::optional<bool> dp = std::nullopt) const {
        return mixtureConfigJson(mixtureStage, rho, delta, method, dp, mixtureGroupSize, request.accountant);
    }
};

StudyRun resolveStudyRun(project::ProjectFile& project, const StudyRunOptions& options,
                         const ProgressCallback& progress, const CancellationToken& cancel, const LogSink& log) {
    StudyRun r{
        project, options, withStageOptions(project.spec(), options), progress, cancel, [log](const std::string& line) {
            if (log) log(line);
        }};
    const auto& spec = r.spec;
    auto wants = [&](const char* stage) {
        return std::find(options.stages.begin(), options.stages.end(), stage) != options.stages.end();
    };
    r.downstream = wants("pretrain") || wants("finetune") || wants("evaluate") || wants("downstream");
    r.mixture = wants("mixture") || r.downstream;
    for (const auto& m : options.methods) r.methods.push_back(*methods::parseMethod(m));
    auto choices = resolveRunChoices(spec, options);
    r.seeds = std::move(choices.seeds);
    r.epsilons = std::move(choices.epsilons);
    r.rho = choices.rho;
    r.delta = choices.delta;
    r.reproducible = choices.reproducible;
    r.mixtureStage = options.mixture.value_or(spec.mixture);
    r.userLevel = spec.sensitive.userLevel;
    if (r.userLevel)
        r.mixtureGroupSize = spec.mixture.userGroupSize > 0 ? spec.mixture.userGroupSize : kDefaultUserGroupSize;
    // Sequential composition: DP-MixMin and DP fine-tuning both charge the same people, so mixture
    // learning spends half of (ε, δ) and fine-tuning the rest (docs/PRIVACY.md, "Sequential composition").
    r.sequential = spec.privacy.composition == privacy::Composition::Sequential;
    r.request.epsilons = r.epsilons;
    r.request.delta = r.delta;
    r.request.stage = r.mixtureStage;
    r.request.randomSearchCandidates = options.randomSearchCandidates;
    r.request.reproducible = r.reproducible;
    r.request.accountant = choices.accountant;
    r.request.budgetShare = r.sequential ? 0.5 : 1.0;
    if (r.mixtureGroupSize) r.request.maxExamplesPerUser = *r.mixtureGroupSize;
    return r;
}

// One unit of privacy for every mechanism of the run: refused before anything runs (or is stored)
// if a fine-tuning mechanism cannot honour it, rather than downgraded silently.
Status refuseUnhonouredUnit(const StudyRun& run) {
    return run.downstream ? finetuneUnitRefusal(run.userLevel, run.spec.finetune) : Status{};
}

// A run resolved only to be checked, planned or reserved, never executed: it reports no progress
// and is never cancelled, and the callback and token its StudyRun refers to live beside it.
struct PlanningRun {
    ProgressCallback noProgress;
    CancellationToken neverCancelled;
    StudyRun run;
    PlanningRun(project::ProjectFile& project, const StudyRunOptions& options, const LogSink& log)
        : run(resolveStudyRun(project, options, noProgress, neverCancelled, log)) {}
};

// The tasks asked for, checked against the study's.
Status chooseTasks(StudyRun& run, const ImageStudy& st) {
    for (const auto& name : run.options.tasks)
        if (std::find(st.taskNames.begin(), st.taskNames.end(), name) == st.taskNames.end()) {
            std::string known;
            for (const auto& t : st.taskNames) known += (known.empty() ? "'" : ", '") + t + "'";
            return Error{"tasks: the study has no task '" + name + "': its tasks are " + known, "tasks"};
        }
    run.tasks.clear();
    for (std::size_t t = 0; t < st.tasks(); ++t)
        if (run.options.tasks.empty() ||
            std::find(run.options.tasks.begin(), run.options.tasks.end(), st.taskNames[t]) != run.options.tasks.end())
            run.tasks.push_back(t);
    run.totalRuns = static_cast<long long>(run.seeds.size() * run.tasks.size() * run.epsilons.size());
    return std::nullopt;
}

// The stored DP-MixMin releases this downstream run can reuse instead of learning λ again
// (mixture_reuse.h); none when it does not run DP-MixMin or is asked to learn λ again.
Status findReusableMixtures(StudyRun& run, const ImageStudy& st) {
    run.reused.clear();
    if (!run.downstream || run.options.relearnMixture ||
        std::find(run.methods.begin(), run.methods.end(), methods::Method::DpMixMin) == run.methods.end())
        return std::nullopt;
    auto reused = pipeline::findReusableMixtures(
        run.project, st,
        {run.seeds, run.tasks, run.epsilons, run.rho, &run.request, run.mixtureConfig("dp-mixmin", run.reproducible),
         run.spec.privacy.composition});
    if (!reused) return reused.error();
    run.reused = std::move(reused).value();
    return std::nullopt;
}

// Before anything runs or is stored, the whole run is planned: every DP mechanism's parameters
// on the realised splits of every seed (a batch larger than its split, a budget no noise can
// meet), so a bad setting fails now and not after minutes of proxies or pretraining. The planned
// releases are then reserved on the data set's budget (dataset_budget.h) — refused over its cap —
// unless this is only a check for a run that executes elsewhere (`reserve` false), which composes
// them with what is spent and refuses alike but stores nothing.
Status preflight(StudyRun& run, const ImageStudy& st, bool reserve, const std::string& who = "dpmix run") {
    if (!run.mixture) return std::nullopt;
    if (auto e = findReusableMixtures(run, st)) return e;
    auto planned = plannedReleases(st, run.seeds, run.tasks, run.epsilons, run.methods, run.downstream, run.request,
                                   run.rho, run.spec, run.options, run.reproducible, run.reused);
    if (!planned) return planned.error();
    if (run.options.budgetReservedByCaller) return std::nullopt;  // a cluster unit's attempt holds them
    auto current = project::projectBudget(run.project);
    if (!current) return current.error();
    std::optional<double> cap = current->cap;
    if (run.options.budgetCap && (!cap || *run.options.budgetCap < *cap)) cap = run.options.budgetCap;
    const auto forecast = project::forecastBudget(*current, *planned);
    if (cap)
        run.say("privacy budget of the data set: epsilon " + privacy::formatNumber(forecast.before) + " spent, " +
                privacy::formatNumber(forecast.after) + " after this run, cap " + privacy::formatNumber(*cap));
    if (!current->storeKnowsDataset)
        run.say("budget store " + current->storePath +
                " has no record of this data set yet: spending on it recorded "
                "elsewhere is not counted (docs/PRIVACY.md, \"The budget store\")");
    if (!reserve) {
        project::ProjectBudget capped = *current;
        capped.cap = cap;
        return project::refuseOverBudget(capped, *planned);
    }
    auto held = project::reserveBudget(run.project, *planned, run.options.budgetCap,
                                       who + ": " + std::to_string(planned->size()) + " planned release(s)");
    if (!held) return held.error();
    run.reservation.emplace(std::move(held).value());
    return std::nullopt;
}

// Split A of one seed for one task, through the proxies: the mixture stage's inputs.
MixtureInputs mixtureInputs(const StudyRun& run, const ImageStudy& study, const RhoSplit& split,
                            const Eigen::MatrixXd& probabilities, std::size_t t) {
    MixtureInputs in;
    in.task = study.taskNames[t];
    in.componentNames = study.componentNames;
    in.proxyProbabilities = probabilities;
    for (auto i : split.a) in.labels.push_back(study.sensitiveLabel(i, t) > 0.5f ? 1 : 0);
    if (run.userLevel)
        for (auto i : split.a) in.users.push_back(study.grouping.users[i]);
    return in;
}

// DP-MixMin on split A for every ε of one (seed, task). In a mixture-only run each DP-MixMin run
// is stored with its conservative ledger before its mechanism touches split A (`started`: ε →
// run id), so a run cancelled, failed or killed midway keeps the entry it may have spent; runs
// are labelled with what they spend (ε/2 under sequential composition).
Result<MixtureOutcome> learnMixtures(StudyRun& run, const MixtureInputs& in, std::uint64_t seed,
                                     std::map<double, long long>& started) {
    auto& project = run.project;
    const long long s = static_cast<long long>(seed);
    run.request.seeds = {seed};
    // A λ the project already released for this (seed, task, ε) is reused, not learned again.
    auto reusedAt = [&](double eps) { return run.reused.find({seed, in.task, eps}); };
    run.request.epsilons.clear();
    for (double eps : run.epsilons)
        if (reusedAt(eps) == run.reused.end()) run.request.epsilons.push_back(eps);
    // In a downstream run the λ feeds the DP-MixMin method's run, stored after fine-tuning; what
    // each mechanism was about to spend is remembered, so a cancelled or failed mixture stage
    // still charges it (a kill midway cannot: docs/PRIVACY.md, "Cancelled, failed and interrupted runs").
    std::map<double, privacy::LedgerEntry> spending;
    const bool released = !run.downstream || std::find(run.methods.begin(), run.methods.end(),
                                                       methods::Method::DpMixMin) != run.methods.end();
    run.request.beforeMechanism = [&](double eps, std::uint64_t, const privacy::LedgerEntry& planned) -> Status {
        if (run.downstream) {
            if (released) spending[eps] = planned;
            return std::nullopt;
        }
        return startMechanismRun(
            project,
            {"dp-mixmin", in.task, eps * run.request.budgetShare, s, run.mixtureConfig("dp-mixmin", run.reproducible)},
            run.spec.privacy.composition, planned, started[eps]);
    };
    // A downstream study's mixture stage stopped: the DP-MixMin runs that started keep a row
    // with their ledger, marked as `status`.
    auto keepSpent = [&](project::RunStatus status, const std::string& why) {
        for (const auto& [eps, entry] : spending)
            keepStartedMechanism(project,
                                 {"dp-mixmin", in.task, eps, s, run.mixtureConfig("dp-mixmin", run.reproducible)},
                                 run.spec.privacy.composition, entry, status, why);
    };
    Result<MixtureOutcome> outcome = Error{""};
    const ProgressCallback progress = run.phase(study_plan::mixtureWork(
        static_cast<long long>(in.labels.size()), static_cast<long long>(run.request.epsilons.size())));
    try {
        outcome = runMixtureStage(
            in, run.request,
            [&](const ProgressEvent& e) {
                dpmix::report(progress, {"mixture", run.doneRuns + e.done, run.totalRuns, e.message});
            },
            run.cancel);
    } catch (const Cancelled&) {
        const std::string kept =
            "cancelled by the user during mixture learning on split A; the mechanism had started, "
            "so its ledger is kept; no lambda was released";
        keepSpent(project::RunStatus::Cancelled, kept);
        for (double eps : run.request.epsilons) {
            if (auto it = started.find(eps); it != started.end() && it->second > 0)
                (void)project.setRunStatus(it->second, project::RunStatus::Cancelled, kept);
            else if (!spending.count(eps))
                recordCancelledRun(project,
                                   {"dp-mixmin", in.task, eps * run.request.budgetShare, s,
                                    run.mixtureConfig("dp-mixmin", run.reproducible)},
                                   "mixture learning on split A");
        }
        throw;
    }
    if (!outcome) {
        keepSpent(project::RunStatus::Failed, outcome.error().message);
        for (const auto& [eps, id] : started)
            if (id > 0) (void)project.setRunStatus(id, project::RunStatus::Failed, outcome.error().message);
        return outcome.error();
    }
    run.doneRuns += static_cast<long long>(run.epsilons.size());
    return withReusedLambdas(run.reused, run.epsilons, in.task, seed, std::move(outcome).value(), run.say);
}

// A mixture-only (seed, task): the baselines as runs of their own, and the DP-MixMin runs
// (stored when their mechanism started) completed with their λ.
Status storeMixtureRuns(StudyRun& run, const MixtureOutcome& o, std::uint64_t seed,
                        const std::map<double, long long>& started) {
    auto& project = run.project;
    if (auto e = storeMixtureBaselines(project, o, static_cast<long long>(seed), run.spec.privacy.composition,
                                       [&](const std::string& method) { return run.mixtureConfig(method); }))
        return e;
    for (const auto& p : o.privateLambdas) {
        const long long id = started.at(p.epsilon);
        if (auto e = storePrivateLambda(project, id, o, p)) {
            (void)project.setRunStatus(id, project::RunStatus::Failed, e->message);
            return e;
        }
        if (auto done = project.setRunStatus(id, project::RunStatus::Done); !done) return done.error();
    }
    return std::nullopt;
}

std::string downstreamConfigJson(const StudyRun& run, const std::string& method, const DownstreamRequest& req,
                                 const ImageStudy& study) {
    nlohmann::ordered_json j{{"stage", "downstream"},
                             {"method", method},
                             {"rho", run.rho},
                             {"delta", run.delta},
                             {"finetune_split", req.finetuneSplit},
                             {"finetune_mechanism", methods::nameOf(run.spec.finetune.mechanism)},
                             {"finetune_steps", req.finetune.steps},
                             {"finetune_clip", req.finetune.clip},
                             {"finetune_batch", req.finetune.batch},
                             {"finetune_lr", req.finetune.lr},
                             {"randomness", run.reproducible ? "seeded" : "secret"},
                             {"privacy_unit", run.userLevel ? "user" : "example"},
                             {"pretrain_steps", req.lambda ? req.pretrain.steps : 0},
                             {"pretrain_batch", req.pretrain.batch},
                             {"pretrain_lr", req.pretrain.lr},
                             {"model", study.downstreamModel},
                             {"device", req.device}};
    if (study.downstreamModel == "resnet18") j["resnet_width"] = study.resnetWidth;
    if (req.finetune.adamix()) {
        // AdaMix-R's parameters (a rerun repeats them: the spec's, with T and η as finetune_steps
        // and finetune_lr); σ is in the ledger entry.
        const auto& f = req.finetune;
        const long long m = 2 * f.publicShots;
        nlohmann::ordered_json a{
            {"public_shots", f.publicShots},
            {"shots_source", f.shotsSource},
            {"shots_seed", shotSeed(req.seed, study.taskNames.at(req.task))},
            {"shots_drawn_from", "the images of the source the proxy holds out"},
            {"public_examples", m},
            {"rank", f.rank ? nlohmann::ordered_json(*f.rank) : nlohmann::ordered_json(nullptr)},
            {"rank_default", "min(public_examples, 64)"},
            {"clip_quantile", f.clipQuantile},
            {"q", f.adamixQ},
            {"steps", f.steps},
            {"eta", f.lr},
            {"accountant", privacy::toString(req.accountant)},
            {"features", "penultimate activations of the pretrained model, frozen; L2-normalised, 1 appended"},
            {"finetuned_model", "frozen-extractor + adamix-head (score z1 - z0)"}};
        // finetune_clip and finetune_batch stay (a rerun reads them back) but AdaMix-R uses neither.
        j["adamix"] = a;
    }
    return j.dump();
}

// The run as the work plan reads it (study_work_plan.h).
StudyWorkScope workScope(const StudyRun& run) {
    return {run.seeds,     run.tasks,        run.epsilons, run.methods, run.mixture,  run.downstream,
            run.userLevel, run.reproducible, run.rho,      &run.spec,   &run.options, &run.reused};
}

std::string collapseNote(const DownstreamOutcome& r) {
    return "pretraining collapsed on public images, " + r.pretrainingCollapse + "; fine-tuning started from it";
}

// A downstream run's metrics, and a collapsed pretraining's warning in its log (public images
// only: no privacy cost). Not stored: the fraction of clipped gradients is a non-private
// statistic of split B (docs/PRIVACY.md).
Status storeDownstreamFigures(project::ProjectFile& project, long long id, const std::string& task,
                              const DownstreamOutcome& r) {
    std::vector<project::MetricRecord> metrics{{id, "test-auc", task, r.testAuc}, {id, "finetune-noise", "", r.noise}};
    if (std::isfinite(r.pretrainedTestAuc)) metrics.push_back({id, "pretrained-test-auc", task, r.pretrainedTestAuc});
    if (!r.pretrainingCollapse.empty()) {
        metrics.push_back({id, "pretraining-collapsed", task, 1.0});
        if (auto err = errorOf(project.addLog(id, "warning", collapseNote(r)))) return err;
    }
    return errorOf(project.addMetrics(metrics));
}

// One method's downstream run for (seed, task, ε): pretrain on its λ, DP fine-tune, evaluate,
// store. A cancelled or failed run keeps what its mechanisms recorded before touching the data.
Status runMethodDownstream(StudyRun& run, const ImageStudy& study, const MixtureOutcome& o, const RhoSplit& split,
                           const std::vector<std::size_t>& wholeTrain, std::size_t t, std::size_t e, std::uint64_t seed,
                           methods::Method m, PretrainCache& pretrainCache, StudyRunReport& report) {
    auto& project = run.project;
    const double eps = run.epsilons[e];
    const std::string method = methods::nameOf(m);
    DownstreamRequest req =
        downstreamRequest(m, t, o.task, eps, seed, split, wholeTrain, run.spec, run.options, run.reproducible);
    req.pretrainCache = &pretrainCache;
    const methods::MethodPlan plan = methods::planMethod(m, choicesOf(o, &o.privateLambdas[e]));
    if (plan.lambda)
        req.lambda =
            Eigen::Map<const Eigen::VectorXd>(plan.lambda->data(), static_cast<Eigen::Index>(plan.lambda->size()));
    privacy::Ledger ledger(run.spec.privacy.composition);
    for (const auto& entry : plan.mixtureEntries) ledger.record(entry);
    // Sequential composition: fine-tuning is calibrated after what choosing λ spent on the same people.
    if (methods::traitsOf(m).choice == methods::Choice::Private && run.sequential)
        req.spentBefore = plan.mixtureEntries;
    run.say(method + ", task '" + o.task + "', eps " + std::to_string(eps) + ", seed " + std::to_string(seed) + ": " +
            (req.lambda ? "pretraining on the mixture, " : "") + "private fine-tuning on " +
            (run.userLevel ? std::to_string(distinctUsers(study, req.finetuneIndices)) + " users (" +
                                 std::to_string(req.finetuneIndices.size()) + " images)"
                           : std::to_string(req.finetuneIndices.size()) + " examples"));
    DownstreamOutcome result;
    const bool pretrains = req.lambda && !pretrainCache.find(PretrainCache::key(*req.lambda, seed, req.pretrain, {}));
    const ProgressCallback progress =
        run.phase(downstreamWork(req, study, run.userLevel, pretrains), downstreamParts(req, run.userLevel, pretrains));
    auto stored = storedRun(
        project, {method, o.task, eps, static_cast<long long>(seed), downstreamConfigJson(run, method, req, study)},
        [&](long long id) -> Status {
            Result<DownstreamOutcome> r = Error{""};
            req.beforePrivateWork = [&](const privacy::Ledger& planned) -> Status {
                return errorOf(project.recordLedger(id, planned));
            };
            try {
                r = runDownstream(study, req, ledger, progress, run.cancel);
            } catch (const Cancelled&) {
                if (!ledger.entries().empty()) (void)project.recordLedger(id, ledger);
                throw;
            }
            if (!r) {
                if (!ledger.entries().empty()) (void)project.recordLedger(id, ledger);
                return r.error();
            }
            result = std::move(r).value();
            if (auto err = errorOf(project.recordLedger(id, ledger))) return err;
            if (!plan.lambdaKind.empty() && plan.lambda)
                if (auto err = errorOf(project.addLambda({id, plan.lambdaKind, o.componentNames, *plan.lambda})))
                    return err;
            if (auto err = storeDownstreamFigures(project, id, o.task, result)) return err;
            if (req.finetune.adamix()) {
                // The fine-tuned model is the frozen extractor with AdaMix-R's head.
                auto extractor = project.storeWeights(id, "frozen-extractor", result.weights);
                if (!extractor) return extractor.error();
                auto head = project.storeWeights(id, "adamix-head", result.head);
                if (!head) return head.error();
                return std::nullopt;
            }
            auto weights = project.storeWeights(id, "finetuned", result.weights);
            if (!weights) return weights.error();
            return std::nullopt;
        });
    if (!stored) return stored.error();
    const auto total = ledger.total();
    report.downstream.push_back({method, o.task, seed, eps, result.testAuc, result.pretrainedTestAuc, total.epsilon,
                                 total.established, *stored});
    run.say("  test AUC " + std::to_string(result.testAuc) +
            (result.pretrainingReused ? " (pretrained model reused from an earlier run of this study)" : "") +
            (result.pretrainingCollapse.empty() ? "" : " (" + collapseNote(result) + ")") + " (ledger epsilon " +
            (std::isinf(total.epsilon) ? std::string("inf: a step was non-private") : std::to_string(total.epsilon)) +
            ")");
    return std::nullopt;
}

// δ checked against each split's units, and what mixture learning is about to see.
void announceSplit(const StudyRun& run, const ImageStudy& study, const RhoSplit& split, const std::string& task,
                   std::uint64_t seed) {
    const long long unitsA = run.userLevel ? distinctUsers(study, split.a) : static_cast<long long>(split.a.size());
    const long long unitsB = run.userLevel ? distinctUsers(study, split.b) : static_cast<long long>(split.b.size());
    for (const auto& [part, size] : {std::pair{"A", unitsA}, std::pair{"B", unitsB}})
        if (auto w = privacy::deltaWarning(run.delta, size, run.userLevel ? "users" : "examples"); !w.empty())
            run.say("warning: split " + std::string(part) + ": " + w);
    run.say("task '" + task + "', seed " + std::to_string(seed) +
            ": mixture learning on split A (n = " + std::to_string(split.a.size()) +
            (run.userLevel ? " images of " + std::to_string(unitsA) + " users, user-level DP" : std::string()) + ")");
}

}  // namespace

Status checkImageStudyRun(const project::ProjectSpec& spec, const StudyRunOptions& options) {
    if (auto err = study_plan::checkStudyRunOptions(options, study_plan::StudyKind::Image)) return err;
    if (auto err = train::checkDevice(options.device)) return err;
    return study_plan::checkStageOptionsFitSpec(spec, options);
}

Status preflightStudyRun(project::ProjectFile& project, const StudyRunOptions& options, const ImageStudy& study,
                         const LogSink& log) {
    if (auto err = checkImageStudyRun(project.spec(), options)) return err;
    PlanningRun planning(project, options, log);
    StudyRun& run = planning.run;
    if (auto refusal = refuseUnhonouredUnit(run)) return refusal;
    if (auto e = chooseTasks(run, study)) return e;
    return preflight(run, study, /*reserve=*/false);
}

Result<std::vector<privacy::BudgetRelease>> planStudyReleases(project::ProjectFile& project,
                                                              const StudyRunOptions& options, const LogSink& log) {
    if (auto err = checkImageStudyRun(project.spec(), options)) return *err;
    {  // refusals and a run without private stages need no data
        PlanningRun planning(project, options, log);
        if (auto refusal = refuseUnhonouredUnit(planning.run)) return *refusal;
        if (!planning.run.mixture) return std::vector<privacy::BudgetRelease>{};
    }
    auto sources = project.sources();
    if (!sources) return sources.error();
    // Loaded with the study seed prepareStudy uses: the same splits, so the same planned entries.
    auto study = loadImageStudy(*sources, project.spec(), project::studySeedOf(project.spec()));
    if (!study) return study.error();
    return planStudyReleasesOn(project, options, *study, log);
}

Result<std::vector<privacy::BudgetRelease>> planStudyReleasesOn(project::ProjectFile& project,
                                                                const StudyRunOptions& options, const ImageStudy& study,
                                                                const LogSink& log) {
    if (auto err = checkImageStudyRun(project.spec(), options)) return *err;
    PlanningRun planning(project, options, log);
    StudyRun& run = planning.run;
    if (auto refusal = refuseUnhonouredUnit(run)) return *refusal;
    if (!run.mixture) return std::vector<privacy::BudgetRelease>{};
    if (auto e = chooseTasks(run, study)) return *e;
    if (auto e = findReusableMixtures(run, study)) return *e;
    return plannedReleases(study, run.seeds, run.tasks, run.epsilons, run.methods, run.downstream, run.request, run.rho,
                           run.spec, run.options, run.reproducible, run.reused);
}

Result<StudyRunEstimate> estimateStudyRun(project::ProjectFile& project, const StudyRunOptions& options,
                                          const LogSink& log) {
    if (auto err = checkImageStudyRun(project.spec(), options)) return *err;
    PlanningRun planning(project, options, log);
    StudyRun& run = planning.run;
    if (auto refusal = refuseUnhonouredUnit(run)) return *refusal;
    auto sources = project.sources();
    if (!sources) return sources.error();
    auto study = loadImageStudy(*sources, project.spec(), project::studySeedOf(project.spec()));
    if (!study) return study.error();
    if (auto e = chooseTasks(run, *study)) return *e;
    if (auto e = findReusableMixtures(run, *study)) return *e;
    ProxyOptions proxy = options.proxy;
    proxy.device = options.device;
    auto step = calibrateTrainingStep(*study, options.device);
    if (!step) return step.error();
    auto work = plannedStudyWork(workScope(run), *study, proxy, step->stepOverheadExamples());
    if (!work) return work.error();
    const int batch =
        static_cast<int>(std::clamp<long long>(run.downstream ? run.spec.finetune.batch : proxy.batch, 1, 4096));
    return StudyRunEstimate{*work * step->secondsPerExample, *work, 1000.0 * step->stepSeconds(batch), batch};
}

Result<project::BudgetReservation> reserveStudyRun(project::ProjectFile& project, const StudyRunOptions& options,
                                                   const ImageStudy& study, const LogSink& log,
                                                   const std::string& who) {
    if (auto err = checkImageStudyRun(project.spec(), options)) return *err;
    PlanningRun planning(project, options, log);
    StudyRun& run = planning.run;
    if (auto refusal = refuseUnhonouredUnit(run)) return *refusal;
    if (auto e = chooseTasks(run, study)) return *e;
    if (auto e = preflight(run, study, /*reserve=*/true, who)) return *e;
    if (!run.reservation) return project::BudgetReservation();
    return std::move(*run.reservation);
}

Result<StudyRunReport> runStudy(project::ProjectFile& project, const StudyRunOptions& options,
                                const ProgressCallback& progress, const CancellationToken& cancel, const LogSink& log) {
    if (auto err = checkImageStudyRun(project.spec(), options)) return *err;
    // A text study (sensitive source of kind "text") runs in engine/text_study/text_study.h, which cannot share a
    // process with LibTorch (sentencepiece's embedded protobuf 3.14 vs LibTorch's 3.21 abort at start-up).
    if (auto srcs = project.sources(); srcs && project::isTextStudy(*srcs))
        return Error{"'" + project.path().string() + "' is a text study (sensitive source '" +
                     project::sensitiveSourceOf(*srcs)->name +
                     "' is text): run it with `dpmix run` (which hands it to dpmix-text, a process without LibTorch) "
                     "or dpmix-text run PROJECT"};
    StudyRun run = resolveStudyRun(project, options, progress, cancel, log);
    if (auto refusal = refuseUnhonouredUnit(run)) return *refusal;
    JobMeter meter(progress);
    run.meter = &meter;

    ProxyOptions proxyOptions = options.proxy;
    proxyOptions.device = options.device;
    // Loading reports as it goes; the proxy's phase begins once the plan is known.
    ProgressCallback proxyProgress = progress;
    auto prepared = prepareStudy(
        project, proxyOptions, [&](const ProgressEvent& e) { dpmix::report(proxyProgress, e); }, cancel, log,
        [&](const ImageStudy& st) -> Status {
            if (auto e = chooseTasks(run, st)) return e;
            if (auto e = preflight(run, st, /*reserve=*/true)) return e;
            auto work = plannedStudyWork(workScope(run), st, proxyOptions);
            if (!work) return work.error();
            meter.setTotal(*work);
            proxyProgress =
                meter.phase(study_plan::proxyWork(static_cast<long long>(st.publicImages.size()), proxyOptions));
            return std::nullopt;
        });
    if (!prepared) return prepared.error();
    const ImageStudy& study = prepared->study;
    const Proxy& proxy = prepared->proxy;

    StudyRunReport report;
    report.project = project.path().string();
    report.componentNames = study.componentNames;
    report.proxyPublicAuc = proxy.publicValidationAuc;
    if (!run.mixture) return report;

    // Pretraining sees public data only, so one pretrained model serves every ε and task with the
    // same λ and seed (uniform, λ*, Random Search; DP-MixMin's λ differs per ε).
    PretrainCache pretrainCache;
    for (auto seed : run.seeds) {
        throwIfCancelled(cancel);
        auto split = splitForRun(study, run.rho, seed);
        if (!split) return split.error();
        auto probabilities = proxy.predict(study.sensitiveImages, split->a);
        if (!probabilities) return probabilities.error();
        const std::vector<std::size_t> wholeTrain = wholeTrainOf(*split);
        for (std::size_t t : run.tasks) {
            const MixtureInputs in = mixtureInputs(run, study, *split, *probabilities, t);
            announceSplit(run, study, *split, in.task, seed);
            std::map<double, long long> started;
            auto outcome = learnMixtures(run, in, seed, started);
            if (!outcome) return outcome.error();
            if (run.downstream) {
                for (std::size_t e = 0; e < run.epsilons.size(); ++e)
                    for (const auto method : run.methods) {
                        throwIfCancelled(cancel);
                        if (auto err = runMethodDownstream(run, study, *outcome, *split, wholeTrain, t, e, seed, method,
                                                           pretrainCache, report))
                            return *err;
                    }
            } else if (auto err = storeMixtureRuns(run, *outcome, seed, started)) {
                return *err;
            }
            report.mixtures.push_back({seed, run.rho, static_cast<long long>(split->a.size()),
                                       static_cast<long long>(split->b.size()), *outcome});
        }
    }
    if (run.reservation)
        if (auto err = run.reservation->settle()) return *err;
    return report;
}

}  // namespace dpmix::pipeline
