#include "engine/pipeline/study_runner.h"

#include "engine/pipeline/downstream_stage.h"
#include "engine/pipeline/mixture_records.h"
#include "engine/pipeline/release_randomness.h"
#include "engine/pipeline/run_storage.h"
#include "engine/privacy/ledger.h"
#include "engine/privacy/parameters.h"
#include "engine/project/project_budget.h"
#include "engine/project/spec_json.h"
#include "engine/mixmin/dp_mixmin.h"
#include "engine/privacy/privacy_budget.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <set>

namespace dpmix::pipeline {
namespace {

const std::vector<std::string> kKnownStages = {"proxies", "mixture", "pretrain", "finetune", "evaluate", "downstream"};
const std::vector<std::string> kMethods = {"dp-mixmin", "uniform", "random-search", "random-init", "non-private-mixmin"};

std::string mixtureConfigJson(const project::MixtureStage& m, double rho, double delta, const std::string& method,
                              std::optional<bool> reproducible, std::optional<long long> userGroupSize) {
    nlohmann::ordered_json j{{"stage", "mixture"}, {"method", method}, {"rho", rho},          {"delta", delta},
                             {"clip", m.clip},     {"batch", m.batch},   {"lr", m.lr},          {"steps", m.steps},
                             {"released_iterate", "last"}};
    if (reproducible) j["randomness"] = *reproducible ? "seeded" : "secret";  // DP runs only
    // The unit every mechanism of the run protects (docs/PRIVACY.md, "Unit of privacy").
    j["privacy_unit"] = userGroupSize ? "user" : "example";
    if (userGroupSize) j["user_group_size"] = *userGroupSize;
    return j.dump();
}

// Stores a DP-MixMin run as running with the ledger its mechanism is about to spend; `id` gets
// the run's id.
std::optional<Error> startMixtureRun(project::ProjectFile& project, const project::NewRun& run,
                                     privacy::Composition composition, const privacy::LedgerEntry& planned, long long& id) {
    auto added = project.addRun(run);
    if (!added) return added.error();
    id = *added;
    if (auto s = project.setRunStatus(id, project::RunStatus::Running); !s) return s.error();
    privacy::Ledger ledger(composition);
    ledger.record(planned);
    if (auto r = project.recordLedger(id, ledger); !r) {
        (void)project.setRunStatus(id, project::RunStatus::Failed, r.error().message);
        return r.error();
    }
    return std::nullopt;
}

// The fine-tuning a method's downstream run does: DP-MixMin and Random Search reserve split A for
// choosing λ and fine-tune on split B; the others fine-tune on the whole training set (A.7).
DownstreamRequest downstreamRequest(const std::string& method, std::size_t task, const std::string& taskName,
                                    double epsilon, std::uint64_t seed, const RhoSplit& split,
                                    const std::vector<std::size_t>& wholeTrain, const project::ProjectSpec& spec,
                                    const StudyRunOptions& options, bool reproducible) {
    DownstreamRequest req;
    req.task = task;
    req.epsilon = epsilon;
    req.delta = spec.privacy.delta;
    req.seed = seed;
    req.finetuneRandomness =
        releaseRandomness(reproducible, seed, releaseIdentity("finetune", method, taskName, epsilon, seed));
    req.pretrain = spec.pretrain;
    req.finetune = spec.finetune;
    if (options.pretrainSteps) req.pretrain.steps = *options.pretrainSteps;
    if (options.finetuneSteps) req.finetune.steps = *options.finetuneSteps;
    if (method == "dp-mixmin" || method == "random-search") {
        req.finetuneIndices = split.b;
    } else {
        req.finetuneIndices = wholeTrain;
        req.finetuneSplit = "train";
    }
    return req;
}

std::vector<std::size_t> wholeTrainOf(const RhoSplit& split) {
    std::vector<std::size_t> all = split.a;
    all.insert(all.end(), split.b.begin(), split.b.end());
    std::sort(all.begin(), all.end());
    return all;
}

// Distinct users among the given sensitive images.
long long distinctUsers(const ImageStudy& study, const std::vector<std::size_t>& indices) {
    std::set<std::string> users;
    for (auto i : indices) users.insert(study.grouping.users.at(i));
    return static_cast<long long>(users.size());
}

// Every DP release a study run will make, with the exact ledger entries its mechanisms will
// record: DP-MixMin's λ for each (seed, task, ε), and each method's fine-tuned model (Random
// Search and λ* runs are not private: they are never releases and are not counted).
Result<std::vector<privacy::BudgetRelease>> plannedReleases(const ImageStudy& study, const std::vector<std::uint64_t>& seeds,
                                                            const std::vector<std::size_t>& tasks,
                                                            const std::vector<double>& epsilons,
                                                            const std::vector<std::string>& methods, bool downstream,
                                                            const MixtureRequest& request, double rho,
                                                            const project::ProjectSpec& spec, const StudyRunOptions& options,
                                                            bool reproducible) {
    const bool sequential = spec.privacy.composition == privacy::Composition::Sequential;
    std::vector<privacy::BudgetRelease> out;
    for (auto seed : seeds) {
        auto split = splitForRun(study, rho, seed);
        if (!split) return split.error();
        const std::string partition = sequential ? std::string() : privacy::rhoPartition(static_cast<long long>(seed), rho);
        const long long unitsA = study.userLevel() ? distinctUsers(study, split->a) : static_cast<long long>(split->a.size());
        const auto wholeTrain = wholeTrainOf(*split);
        for (std::size_t t : tasks) {
            const std::string& task = study.taskNames[t];
            for (double eps : epsilons) {
                auto params = dpMixMinParams(request, unitsA, study.userLevel(), task, eps, seed);
                if (!params) return params.error();
                const privacy::LedgerEntry mixture = mixmin::plannedLedgerEntry(*params);
                const std::string what = "'" + task + "' eps " + privacy::formatNumber(eps) + " seed " + std::to_string(seed);
                if (!downstream) {
                    out.push_back({0, "dp-mixmin " + what + " (planned)", partition, mixture});
                    continue;
                }
                for (const auto& method : methods) {
                    if (method == "random-search" || method == "non-private-mixmin") continue;
                    DownstreamRequest req = downstreamRequest(method, t, task, eps, seed, *split, wholeTrain, spec, options,
                                                              reproducible);
                    if (method == "dp-mixmin") {
                        out.push_back({0, "dp-mixmin " + what + " (planned)", partition, mixture});
                        if (sequential) req.spentBefore = {mixture};
                    }
                    auto plan = planFinetune(study, req);
                    if (!plan) return Error{method + ", task '" + task + "': " + plan.error().message};
                    out.push_back({0, method + " " + what + " (planned)", req.finetuneSplit == "train" ? std::string() : partition,
                                   plan->entry});
                }
            }
        }
    }
    return out;
}

}  // namespace

Result<std::string> canonicalMethod(const std::string& name) {
    if (name == "dpmixmin" || name == "dp-mixmin") return std::string("dp-mixmin");
    if (name == "nonprivate" || name == "non-private" || name == "non-private-mixmin") return std::string("non-private-mixmin");
    if (std::find(kMethods.begin(), kMethods.end(), name) != kMethods.end()) return name;
    return Error{"--methods: unknown method '" + name + "': expected dpmixmin, uniform, random-search, random-init or nonprivate"};
}

std::optional<Error> checkStudyRunOptions(const StudyRunOptions& o) {
    if (o.stages.empty()) return Error{"--stages: give at least one of proxies, mixture, pretrain, finetune, evaluate"};
    for (const auto& s : o.stages)
        if (std::find(kKnownStages.begin(), kKnownStages.end(), s) == kKnownStages.end())
            return Error{"--stages: unknown stage '" + s + "': expected proxies, mixture, pretrain, finetune, evaluate or downstream"};
    for (const auto& m : o.methods)
        if (auto c = canonicalMethod(m); !c) return c.error();
    for (double e : o.epsilons)
        if (!(e > 0.0) || !std::isfinite(e)) return Error{"--epsilon = " + std::to_string(e) + " is out of range: expected a finite number > 0"};
    if (o.rho && !(*o.rho > 0.0 && *o.rho < 1.0))
        return Error{"--rho = " + std::to_string(*o.rho) + " is out of range: expected a fraction in (0, 1)"};
    if (o.proxy.epochs < 1) return Error{"--proxy-epochs = " + std::to_string(o.proxy.epochs) + " is out of range: expected >= 1"};
    if (o.pretrainSteps && *o.pretrainSteps < 1) return Error{"--pretrain-steps = " + std::to_string(*o.pretrainSteps) + " is out of range: expected >= 1"};
    if (o.finetuneSteps && *o.finetuneSteps < 1) return Error{"--finetune-steps = " + std::to_string(*o.finetuneSteps) + " is out of range: expected >= 1"};
    if (o.mixture) {
        const auto& m = *o.mixture;
        if (!(m.clip > 0.0) || !std::isfinite(m.clip)) return Error{"mixture clip = " + std::to_string(m.clip) + " is out of range: expected a finite number > 0"};
        if (m.batch < 1) return Error{"mixture batch = " + std::to_string(m.batch) + " is out of range: expected an expected batch size >= 1"};
        if (!(m.lr > 0.0) || !std::isfinite(m.lr)) return Error{"mixture lr = " + std::to_string(m.lr) + " is out of range: expected a finite step size > 0"};
        if (m.steps < 1) return Error{"mixture steps = " + std::to_string(m.steps) + " is out of range: expected >= 1"};
        if (m.userGroupSize < 0) return Error{"mixture user group size = " + std::to_string(m.userGroupSize) + " is out of range: expected >= 0"};
        // The spec's sane ranges too (a clip of 1e308 would give a NaN mixture).
        for (auto [key, value] : {std::pair<const char*, double>{"clip", m.clip}, {"batch", static_cast<double>(m.batch)},
                                  {"lr", m.lr}, {"steps", static_cast<double>(m.steps)}})
            if (auto e = project::checkStageValue("mixture", key, value)) return e;
    }
    if (o.pretrainSteps)
        if (auto e = project::checkStageValue("pretrain", "steps", static_cast<double>(*o.pretrainSteps))) return e;
    if (o.finetuneSteps)
        if (auto e = project::checkStageValue("finetune", "steps", static_cast<double>(*o.finetuneSteps))) return e;
    return std::nullopt;
}

namespace {

std::string proxyConfigJson(const ProxyOptions& o) {
    return nlohmann::json{{"stage", "proxies"}, {"model", "small-cnn"}, {"epochs", o.epochs}, {"batch", o.batch},
                          {"lr", o.lr}, {"max_examples", o.maxExamples}}
        .dump();
}


}  // namespace

Result<PreparedStudy> prepareStudy(project::ProjectFile& project, const ProxyOptions& proxyOptions,
                                   const ProgressCallback& progress, const CancellationToken& cancel, const LogSink& log,
                                   const std::function<std::optional<Error>(const ImageStudy&)>& beforeProxy) {
    auto say = [&](const std::string& line) { if (log) log(line); };
    const auto& spec = project.spec();
    PreparedStudy prepared;
    prepared.studySeed = spec.seeds.empty() ? 0 : static_cast<std::uint64_t>(spec.seeds.front());

    auto sources = project.sources();
    if (!sources) return sources.error();
    say("loading the study's data");
    auto study = loadImageStudy(*sources, spec, prepared.studySeed);
    if (!study) return study.error();
    prepared.study = std::move(study).value();
    const auto& st = prepared.study;
    say("public: " + std::to_string(st.publicImages.size()) + " images, k = " + std::to_string(st.components()) +
        " label tasks; sensitive: " + std::to_string(st.sensitiveImages.size()) + " images, " +
        std::to_string(st.tasks()) + " task(s); train/validation/test " + std::to_string(st.sensitiveSplit.train.size()) +
        "/" + std::to_string(st.sensitiveSplit.validation.size()) + "/" + std::to_string(st.sensitiveSplit.test.size()));
    if (beforeProxy)
        if (auto e = beforeProxy(st)) return *e;

    const std::string config = proxyConfigJson(proxyOptions);
    auto runs = project.runs();
    if (!runs) return runs.error();
    for (auto it = runs->rbegin(); it != runs->rend(); ++it) {
        if (it->method != "proxy" || it->status != project::RunStatus::Done || it->configJson != config ||
            it->seed != static_cast<long long>(prepared.studySeed))
            continue;
        auto models = project.models(it->id);
        if (!models || models->empty()) continue;
        auto bytes = project.loadModel(models->front());  // verifies the content hash
        if (!bytes) {
            say("stored proxy of run " + std::to_string(it->id) + " not usable (" + bytes.error().message + "); retraining");
            break;
        }
        auto proxy = restoreProxy(st, bytesToFloats(*bytes), prepared.studySeed);
        if (!proxy) {
            say("stored proxy of run " + std::to_string(it->id) + " not usable (" + proxy.error().message + "); retraining");
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
                              [&](long long runId) -> std::optional<Error> {
                                  auto trained = trainProxy(st, proxyOptions, prepared.studySeed, progress, cancel);
                                  if (!trained) return trained.error();
                                  prepared.proxy = std::move(trained).value();
                                  if (auto e = errorOf(project.addMetrics({{runId, "public-validation-auc", "", prepared.proxy.publicValidationAuc}}))) return e;
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

Result<StudyRunReport> runStudy(project::ProjectFile& project, const StudyRunOptions& options,
                                const ProgressCallback& progress, const CancellationToken& cancel, const LogSink& log) {
    if (auto err = checkStudyRunOptions(options)) return *err;
    // A text study (sensitive source of kind "text") runs in engine/pipeline/text_study.h, which cannot share a
    // process with LibTorch (sentencepiece's embedded protobuf 3.14 vs LibTorch's 3.21 abort at start-up).
    if (auto srcs = project.sources(); srcs)
        for (const auto& s : *srcs)
            if (s.role == "sensitive" && s.facts.kind == "text")
                return Error{"'" + project.path().string() + "' is a text study (sensitive source '" + s.name + "' is text): run it with "
                             "`dpmix run` (which hands it to dpmix-text, a process without LibTorch) or dpmix-text run PROJECT"};
    auto say = [&](const std::string& line) { if (log) log(line); };
    const auto& spec = project.spec();
    auto wants = [&](const char* stage) {
        return std::find(options.stages.begin(), options.stages.end(), stage) != options.stages.end();
    };
    const bool wantDownstream = wants("pretrain") || wants("finetune") || wants("evaluate") || wants("downstream");
    const bool wantMixture = wants("mixture") || wantDownstream;
    std::vector<std::string> methods;
    for (const auto& m : options.methods) methods.push_back(*canonicalMethod(m));

    std::vector<std::uint64_t> seeds = options.seeds;
    if (seeds.empty())
        for (auto s : spec.seeds) seeds.push_back(static_cast<std::uint64_t>(s));
    if (seeds.empty()) seeds.push_back(0);
    const std::vector<double> epsilons = options.epsilons.empty() ? spec.privacy.epsilons : options.epsilons;
    const double rho = options.rho.value_or(spec.privacy.rho);
    const double delta = spec.privacy.delta;
    const project::MixtureStage mixtureStage = options.mixture.value_or(spec.mixture);
    const bool reproducible = options.reproducible.value_or(spec.privacy.reproducible);

    // One unit of privacy for every mechanism of the run: refuse before anything runs (or is
    // stored) if one cannot honour it, rather than downgrade it silently.
    if (wantDownstream)
        if (auto refusal = finetuneUnitRefusal(spec.sensitive.userLevel, spec.finetune)) return *refusal;

    const bool userLevel = spec.sensitive.userLevel;
    const std::optional<long long> mixtureGroupSize =
        userLevel ? std::optional<long long>(spec.mixture.userGroupSize > 0 ? spec.mixture.userGroupSize : kDefaultUserGroupSize)
                  : std::nullopt;
    auto mixtureConfig = [&](const std::string& method, std::optional<bool> dp = std::nullopt) {
        return mixtureConfigJson(mixtureStage, rho, delta, method, dp, mixtureGroupSize);
    };
    MixtureRequest request;
    request.epsilons = epsilons;
    request.delta = delta;
    request.stage = mixtureStage;
    request.randomSearchCandidates = options.randomSearchCandidates;
    request.reproducible = reproducible;
    // Sequential composition: DP-MixMin and DP fine-tuning both charge the same people, so mixture
    // learning spends half of (ε, δ) and fine-tuning the rest (docs/PRIVACY.md, "Composition").
    const bool sequential = spec.privacy.composition == privacy::Composition::Sequential;
    request.budgetShare = sequential ? 0.5 : 1.0;
    if (mixtureGroupSize) request.maxExamplesPerUser = *mixtureGroupSize;

    // The tasks asked for, checked against the study's.
    std::vector<std::size_t> taskIndices;
    auto chooseTasks = [&](const ImageStudy& st) -> std::optional<Error> {
        for (const auto& name : options.tasks)
            if (std::find(st.taskNames.begin(), st.taskNames.end(), name) == st.taskNames.end()) {
                std::string known;
                for (const auto& t : st.taskNames) known += (known.empty() ? "'" : ", '") + t + "'";
                return Error{"--tasks: the study has no task '" + name + "': its tasks are " + known};
            }
        taskIndices.clear();
        for (std::size_t t = 0; t < st.tasks(); ++t)
            if (options.tasks.empty() || std::find(options.tasks.begin(), options.tasks.end(), st.taskNames[t]) != options.tasks.end())
                taskIndices.push_back(t);
        return std::nullopt;
    };
    // The privacy budget: with a cap, every DP release this run will make is composed with what
    // the project has spent, and a run that would exceed it stops here, before anything is stored.
    auto checkBudget = [&](const ImageStudy& st) -> std::optional<Error> {
        if (auto e = chooseTasks(st)) return e;
        if (!spec.privacy.budget || !wantMixture) return std::nullopt;
        auto current = project::projectBudget(project);
        if (!current) return current.error();
        auto planned = plannedReleases(st, seeds, taskIndices, epsilons, methods, wantDownstream, request, rho, spec,
                                       options, reproducible);
        if (!planned) return planned.error();
        const auto forecast = project::forecastBudget(*current, *planned);
        say("privacy budget: epsilon " + privacy::formatNumber(forecast.before) + " spent, " +
            privacy::formatNumber(forecast.after) + " after this run, cap " + privacy::formatNumber(*spec.privacy.budget));
        return project::refuseOverBudget(*current, *planned);
    };

    auto prepared = prepareStudy(project, options.proxy, progress, cancel, log, checkBudget);
    if (!prepared) return prepared.error();
    const ImageStudy* study = &prepared->study;
    const Proxy& proxy = prepared->proxy;

    StudyRunReport report;
    report.project = project.path().string();
    report.componentNames = study->componentNames;
    report.proxyPublicAuc = proxy.publicValidationAuc;
    if (!wantMixture) return report;

    // Pretraining sees public data only, so one pretrained model serves every ε and task with the
    // same λ and seed (uniform, λ*, Random Search; DP-MixMin's λ differs per ε).
    PretrainCache pretrainCache;
    const long long totalRuns = static_cast<long long>(seeds.size() * taskIndices.size() * epsilons.size());
    long long doneRuns = 0;
    for (auto seed : seeds) {
        throwIfCancelled(cancel);
        auto split = splitForRun(*study, rho, seed);
        if (!split) return split.error();
        auto probabilities = proxy.predict(study->sensitiveImages, split->a);
        if (!probabilities) return probabilities.error();
        for (std::size_t t : taskIndices) {
            MixtureInputs in;
            in.task = study->taskNames[t];
            in.componentNames = study->componentNames;
            in.proxyProbabilities = *probabilities;
            for (auto i : split->a) in.labels.push_back(study->sensitiveLabel(i, t) > 0.5f ? 1 : 0);
            if (userLevel)
                for (auto i : split->a) in.users.push_back(study->grouping.users[i]);
            request.seeds = {seed};
            const long long unitsA = userLevel ? distinctUsers(*study, split->a) : static_cast<long long>(split->a.size());
            const long long unitsB = userLevel ? distinctUsers(*study, split->b) : static_cast<long long>(split->b.size());
            for (const auto& [part, size] : {std::pair{"A", unitsA}, std::pair{"B", unitsB}})
                if (auto w = privacy::deltaWarning(delta, size, userLevel ? "users" : "examples"); !w.empty())
                    say("warning: split " + std::string(part) + ": " + w);
            say("task '" + in.task + "', seed " + std::to_string(seed) + ": mixture learning on split A (n = " +
                std::to_string(split->a.size()) +
                (userLevel ? " images of " + std::to_string(unitsA) + " users, user-level DP" : std::string()) + ")");
            // Mixture runs are stored with their conservative ledger before the mechanism touches
            // split A: a run cancelled, failed or killed midway keeps the entry it may have spent.
            std::map<double, long long> started;  // ε → its dp-mixmin run (mixture-only runs)
            request.beforeMechanism = nullptr;
            if (!wantDownstream)
                // Labelled with what the run spends: under sequential composition the mixture stage
                // is half of the target (ε/2), and its ledger says so.
                request.beforeMechanism = [&](double eps, std::uint64_t, const privacy::LedgerEntry& planned) {
                    return startMixtureRun(project, {"dp-mixmin", in.task, eps * request.budgetShare, static_cast<long long>(seed),
                                                     mixtureConfig("dp-mixmin", reproducible)},
                                           spec.privacy.composition, planned, started[eps]);
                };
            Result<MixtureOutcome> outcome = Error{""};
            try {
                outcome = runMixtureStage(in, request,
                                          [&](const ProgressEvent& e) {
                                              dpmix::report(progress, {"mixture", doneRuns + e.done, totalRuns, e.message});
                                          },
                                          cancel);
            } catch (const Cancelled&) {
                for (double eps : epsilons) {
                    if (auto it = started.find(eps); it != started.end() && it->second > 0)
                        (void)project.setRunStatus(it->second, project::RunStatus::Cancelled,
                                                   "cancelled by the user during mixture learning on split A; the "
                                                   "mechanism had started, so its ledger is kept; no lambda was released");
                    else
                        recordCancelledRun(project, {"dp-mixmin", in.task, eps * request.budgetShare, static_cast<long long>(seed),
                                                     mixtureConfig("dp-mixmin", reproducible)},
                                           "mixture learning on split A");
                }
                throw;
            }
            if (!outcome) {
                for (const auto& [eps, id] : started)
                    if (id > 0) (void)project.setRunStatus(id, project::RunStatus::Failed, outcome.error().message);
                return outcome.error();
            }
            doneRuns += static_cast<long long>(epsilons.size());
            const auto& o = *outcome;
            const auto names = o.componentNames;
            const long long s = static_cast<long long>(seed);
            if (wantDownstream) {
                const std::vector<std::size_t> wholeTrain = wholeTrainOf(*split);
                for (std::size_t e = 0; e < epsilons.size(); ++e) {
                    for (const auto& method : methods) {
                        throwIfCancelled(cancel);
                        DownstreamRequest req = downstreamRequest(method, t, in.task, epsilons[e], seed, *split, wholeTrain,
                                                                  spec, options, reproducible);
                        req.pretrainCache = &pretrainCache;
                        privacy::Ledger ledger(spec.privacy.composition);
                        std::vector<project::LambdaRecord> lambdas;
                        if (method == "dp-mixmin") {
                            const auto& p = o.privateLambdas[e];
                            req.lambda = p.lambda;
                            ledger.record(p.ledgerEntry);
                            if (sequential) req.spentBefore = {p.ledgerEntry};
                            lambdas.push_back({0, "private", names, toStdVector(p.lambda)});
                        } else if (method == "random-search") {
                            req.lambda = o.lambdaRandomSearch;
                            ledger.record(privacy::nonPrivateEntry("random-search", "A", "the best of the random mixtures is chosen on split A without differential privacy, as in the paper's baseline"));
                            lambdas.push_back({0, "random-search", names, toStdVector(o.lambdaRandomSearch)});
                        } else if (method == "non-private-mixmin") {
                            req.lambda = o.lambdaStar;
                            ledger.record(privacy::nonPrivateEntry("mixture", "A", "lambda* is fitted on split A without differential privacy (the upper-bound baseline)"));
                            lambdas.push_back({0, "non-private", names, toStdVector(o.lambdaStar)});
                        } else if (method == "uniform") {
                            req.lambda = o.lambdaUniform;
                            lambdas.push_back({0, "uniform", names, toStdVector(o.lambdaUniform)});
                        }  // random-init: no pretraining
                        say(method + ", task '" + o.task + "', eps " + std::to_string(epsilons[e]) + ", seed " +
                            std::to_string(seed) + ": " + (req.lambda ? "pretraining on the mixture, " : "") +
                            "private fine-tuning on " +
                            (userLevel ? std::to_string(distinctUsers(*study, req.finetuneIndices)) + " users (" +
                                             std::to_string(req.finetuneIndices.size()) + " images)"
                                       : std::to_string(req.finetuneIndices.size()) + " examples"));
                        DownstreamOutcome result;
                        auto run = storedRun(project, {method, o.task, epsilons[e], s,
                                                       nlohmann::ordered_json{{"stage", "downstream"}, {"method", method}, {"rho", rho},
                                                                              {"delta", delta}, {"finetune_split", req.finetuneSplit},
                                                                              {"finetune_mechanism", spec.finetune.mechanism},
                                                                              {"finetune_steps", req.finetune.steps},
                                                                              {"randomness", reproducible ? "seeded" : "secret"},
                                                                              {"privacy_unit", userLevel ? "user" : "example"},
                                                                              {"pretrain_steps", req.lambda ? req.pretrain.steps : 0}}.dump()},
                                             [&](long long id) -> std::optional<Error> {
                                                 // A cancelled or failed run keeps what its mechanisms
                                                 // recorded before they touched the data.
                                                 Result<DownstreamOutcome> r = Error{""};
                                                 try {
                                                     r = runDownstream(*study, req, ledger, progress, cancel);
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
                                                 for (auto l : lambdas) {
                                                     l.runId = id;
                                                     if (auto err = errorOf(project.addLambda(l))) return err;
                                                 }
                                                 // Not stored: the fraction of clipped gradients is a
                                                 // non-private statistic of split B (docs/PRIVACY.md).
                                                 std::vector<project::MetricRecord> metrics{
                                                     {id, "test-auc", o.task, result.testAuc},
                                                     {id, "finetune-noise", "", result.noise}};
                                                 if (std::isfinite(result.pretrainedTestAuc))
                                                     metrics.push_back({id, "pretrained-test-auc", o.task, result.pretrainedTestAuc});
                                                 if (auto err = errorOf(project.addMetrics(metrics))) return err;
                                                 auto stored = project.storeWeights(id, "finetuned", result.weights);
                                                 if (!stored) return stored.error();
                                                 return std::nullopt;
                                             });
                        if (!run) return run.error();
                        const auto total = ledger.total();
                        report.downstream.push_back({method, o.task, seed, epsilons[e], result.testAuc,
                                                     result.pretrainedTestAuc, total.epsilon, total.established, *run});
                        say("  test AUC " + std::to_string(result.testAuc) +
                            (result.pretrainingReused ? " (pretrained model reused from an earlier run of this study)" : "") +
                            " (ledger epsilon " +
                            (std::isinf(total.epsilon) ? std::string("inf: a step was non-private") : std::to_string(total.epsilon)) + ")");
                    }
                }
                report.mixtures.push_back({seed, rho, static_cast<long long>(split->a.size()),
                                           static_cast<long long>(split->b.size()), o});
                continue;
            }

            // The non-private reference and the baselines' λ, each a run of its own.
            auto r1 = storedRun(project, {"non-private-mixmin", o.task, std::nullopt, s, mixtureConfig("non-private-mixmin")},
                                [&](long long id) -> std::optional<Error> {
                                    privacy::Ledger ledger(spec.privacy.composition);
                                    ledger.record(privacy::nonPrivateEntry("mixture", "A", "lambda* is fitted on split A without differential privacy (the upper-bound baseline)"));
                                    if (auto e = errorOf(project.recordLedger(id, ledger))) return e;
                                    if (auto e = errorOf(project.addLambda({id, "non-private", names, toStdVector(o.lambdaStar)}))) return e;
                                    return errorOf(project.addMetrics({{id, "frank-wolfe-gap", "", o.lambdaStarGap}}));
                                });
            if (!r1) return r1.error();
            auto r2 = storedRun(project, {"uniform", o.task, std::nullopt, s, mixtureConfig("uniform")},
                                [&](long long id) -> std::optional<Error> {
                                    if (auto e = errorOf(project.recordLedger(id, privacy::Ledger(spec.privacy.composition)))) return e;
                                    if (auto e = errorOf(project.addLambda({id, "uniform", names, toStdVector(o.lambdaUniform)}))) return e;
                                    return errorOf(project.addMetrics({{id, "cosine-to-lambda-star", "", o.uniformCosine},
                                                                     {id, "l1-to-lambda-star", "", o.uniformL1}}));
                                });
            if (!r2) return r2.error();
            auto r3 = storedRun(project, {"random-search", o.task, std::nullopt, s, mixtureConfig("random-search")},
                                [&](long long id) -> std::optional<Error> {
                                    privacy::Ledger ledger(spec.privacy.composition);
                                    ledger.record(privacy::nonPrivateEntry("random-search", "A", "the best of the random mixtures is chosen on split A without differential privacy, as in the paper's baseline"));
                                    if (auto e = errorOf(project.recordLedger(id, ledger))) return e;
                                    if (auto e = errorOf(project.addLambda({id, "random-search", names, toStdVector(o.lambdaRandomSearch)}))) return e;
                                    return errorOf(project.addMetrics({{id, "cosine-to-lambda-star", "", o.randomSearchCosine},
                                                                     {id, "l1-to-lambda-star", "", o.randomSearchL1}}));
                                });
            if (!r3) return r3.error();
            for (const auto& p : o.privateLambdas) {
                // The run and its ledger were stored when the mechanism started (startMixtureRun).
                const long long id = started.at(p.epsilon);
                if (auto e = storePrivateLambda(project, id, o, p)) {
                    (void)project.setRunStatus(id, project::RunStatus::Failed, e->message);
                    return *e;
                }
                if (auto done = project.setRunStatus(id, project::RunStatus::Done); !done) return done.error();
            }
            report.mixtures.push_back({seed, rho, static_cast<long long>(split->a.size()),
                                       static_cast<long long>(split->b.size()), o});
        }
    }
    return report;
}

}  // namespace dpmix::pipeline
