#include "engine/text_study/text_study.h"

#include "engine/methods/method_plan.h"
#include "engine/pipeline/mixture_records.h"
#include "engine/pipeline/release_randomness.h"
#include "engine/pipeline/run_storage.h"
#include "engine/pipeline/stored_mixture.h"
#include "engine/privacy/privacy_budget.h"
#include "engine/project/project_budget.h"

#include "engine/data/sha256.h"
#include "engine/data/splits.h"
#include "engine/mixmin/dp_mixmin.h"
#include "engine/mixmin/nonprivate_mixmin.h"
#include "engine/mixmin/objective.h"
#include "engine/mixmin/params.h"
#include "engine/mixmin/random_search.h"
#include "engine/mixmin/weight_metrics.h"
#include "engine/privacy/ledger.h"
#include "engine/project/study_seed.h"
#include "engine/text/domain_proxies.h"
#include "engine/text/lm_mixture_inputs.h"
#include "engine/text/perplexity.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace dpmix::text_study {
namespace {

using LoadControl = data::LoadControl;

Result<data::TextCorpus> loadText(const project::ProjectSpec& spec, const project::SourceRecord& record,
                                  const std::string& role, const LoadControl& control) {
    if (record.facts.kind != data::SourceKind::Text)
        return Error{role + " source '" + record.name + "' is " + data::nameOf(record.facts.kind) +
                     " data: a text study needs text"};
    auto loaded = data::loadTextSource(
        data::SourceSpec{record.name, record.loader, record.path, pipeline::sourceOptions(spec, record.name)}, control);
    if (!loaded) return Error{role + " source '" + record.name + "': " + loaded.error().message};
    return std::move(loaded).value();
}

std::vector<std::string> distinctUsers(const std::vector<data::TextDocument>& docs,
                                       const std::vector<std::size_t>& idx) {
    std::set<std::string> users;
    for (auto i : idx) users.insert(docs[i].user);
    return {users.begin(), users.end()};
}

std::vector<data::TextDocument> pick(const std::vector<data::TextDocument>& docs, const std::vector<std::size_t>& idx) {
    std::vector<data::TextDocument> out;
    out.reserve(idx.size());
    for (auto i : idx) out.push_back(docs[i]);
    return out;
}

std::string proxiesConfigJson(const TextStudySettings& s) {
    return nlohmann::ordered_json{{"stage", "proxies"},
                                  {"model", "kneser-ney"},
                                  {"order", s.ngramOrder},
                                  {"vocabulary", s.vocabularySize},
                                  {"tokenizer_bytes_per_domain", s.tokenizerBytesPerDomain},
                                  {"max_training_bytes_per_domain", s.maxTrainingBytesPerDomain}}
        .dump();
}

std::string mixtureConfigJson(const project::MixtureStage& m, long long groupSize, double rho, double delta,
                              const std::string& method, const TextStudySettings& s, bool userLevel) {
    nlohmann::ordered_json j{{"stage", "mixture"},
                             {"method", method},
                             {"objective", "sequence-likelihood"},
                             {"privacy_unit", userLevel ? "user" : "example"},
                             {"rho", rho},
                             {"delta", delta},
                             {"clip", m.clip},
                             {"clipped_gradient", "tangent-projected"},
                             {"batch", m.batch},
                             {"lr", m.lr},
                             {"steps", m.steps},
                             {"released_iterate", m.releaseAverage ? "average" : "last"},
                             {"max_tokens_per_document", s.maxTokensPerDocument}};
    if (userLevel) j["user_group_size"] = groupSize;
    return j.dump();
}

}  // namespace

std::vector<double> userGradientNormQuantiles(const mixmin::MixtureObjective& objective,
                                              const std::optional<mixmin::UserGroups>& users, long long groupSize,
                                              const Eigen::VectorXd& lambda) {
    std::vector<std::vector<Eigen::Index>> units;
    if (users) {
        for (Eigen::Index u = 0; u < users->users(); ++u) {
            const auto& ex = users->examplesOf(u);
            units.emplace_back(ex.begin(),
                               ex.begin() + std::min<std::size_t>(ex.size(), static_cast<std::size_t>(groupSize)));
        }
    } else {
        for (Eigen::Index j = 0; j < objective.examples(); ++j) units.push_back({j});
    }
    std::vector<double> norms;
    mixmin::RowMatrix g;
    for (const auto& idx : units) {
        objective.exampleGradients(lambda, idx, g);
        Eigen::VectorXd mean = g.colwise().mean().transpose();
        mean.array() -= mean.mean();
        norms.push_back(mean.norm());
    }
    std::sort(norms.begin(), norms.end());
    std::vector<double> q;
    for (double p : {0.1, 0.5, 0.9})
        q.push_back(norms.empty() ? 0.0
                                  : norms[static_cast<std::size_t>(p * static_cast<double>(norms.size() - 1) + 0.5)]);
    return q;
}

namespace {

// The plan's checks (the same as the image study's: ε in range and each once, ...), then the
// text study's own settings.
Status checkTextStudyOptions(const pipeline::StudyRunOptions& options, const TextStudySettings& settings) {
    if (auto e = study_plan::checkStudyRunOptions(options, study_plan::StudyKind::Text)) return e;
    if (settings.maxTokensPerDocument < 1) return Error{"max tokens per document must be >= 1"};
    if (settings.defaultUserGroupSize < 1) return Error{"default user group size must be >= 1"};
    return std::nullopt;
}

// Everything a text study run resolves once from its options and the spec.
struct TextStudyRun {
    project::ProjectFile& project;
    const project::ProjectSpec& spec;
    const pipeline::StudyRunOptions& options;
    const TextStudySettings& settings;
    const ProgressCallback& progress;
    const CancellationToken& cancel;
    std::function<void(const std::string&)> say;
    bool userLevel = false, reproducible = false;
    privacy::Accountant accountant = privacy::Accountant::Rdp;
    std::vector<std::uint64_t> seeds;
    std::vector<double> epsilons;
    double rho = 0.0, delta = 0.0;
    std::uint64_t studySeed = 0;
    long long groupSize = 0;
    long long totalRuns = 0, doneRuns = 0;
    // Each DP-MixMin mechanism's hold on the data set's budget, settled when the run ends.
    std::vector<project::BudgetReservation> reservations;

    std::string mixtureConfig(const std::string& method) const {
        return mixtureConfigJson(spec.mixture, groupSize, rho, delta, method, settings, userLevel);
    }
};

TextStudyRun resolveTextStudyRun(project::ProjectFile& project, const pipeline::StudyRunOptions& options,
                                 const TextStudySettings& settings, const ProgressCallback& progress,
                                 const CancellationToken& cancel, const pipeline::LogSink& log) {
    TextStudyRun r{project, project.spec(), options, settings, progress, cancel, [log](const std::string& line) {
                       if (log) log(line);
                   }};
    const auto& spec = r.spec;
    r.userLevel = spec.sensitive.userLevel;
    auto choices = study_plan::resolveRunChoices(spec, options);
    r.seeds = std::move(choices.seeds);
    r.epsilons = std::move(choices.epsilons);
    r.rho = choices.rho;
    r.delta = choices.delta;
    r.reproducible = choices.reproducible;
    r.accountant = choices.accountant;
    r.studySeed = project::studySeedOf(spec);
    r.groupSize = spec.mixture.userGroupSize > 0 ? spec.mixture.userGroupSize : settings.defaultUserGroupSize;
    r.totalRuns = static_cast<long long>(r.seeds.size() * r.epsilons.size());
    return r;
}

// The study's text: every public source is one domain (= one mixture component, named after the
// source), and the sensitive corpus split train/validation/test by the study seed.
struct TextStudyData {
    data::TextCorpus publicText;
    std::vector<data::TextDocument> mail;
    std::string task;  // the sensitive source's name
    data::SplitGrouping grouping;
    data::ThreeWaySplit threeWay;
    data::SplitGrouping trainGrouping;  // grouping restricted to the training split (every seed's ρ split)
};

Result<TextStudyData> loadTextStudyData(const TextStudyRun& run) {
    const auto& spec = run.spec;
    auto sources = run.project.sources();
    if (!sources) return sources.error();
    const LoadControl control{run.progress, run.cancel};
    TextStudyData d;
    const project::SourceRecord* sensitiveRecord = nullptr;
    std::size_t publicCount = 0;
    run.say("loading the public text domains");
    for (const auto& s : *sources) {
        if (s.role == project::SourceRole::Sensitive) {
            sensitiveRecord = &s;
            continue;
        }
        if (s.role != project::SourceRole::Public) continue;
        auto loaded = loadText(spec, s, "public", control);
        if (!loaded) return loaded.error();
        data::TextCorpus corpus = std::move(loaded).value();
        std::size_t kept = 0;
        for (auto& doc : corpus.documents) {
            if (doc.text.empty()) continue;
            doc.domain = s.name;  // decision: the source is the component, whatever domain field its records carry
            d.publicText.documents.push_back(std::move(doc));
            ++kept;
        }
        if (kept == 0) return Error{"public source '" + s.name + "' (" + s.path + ") has no non-empty document"};
        ++publicCount;
    }
    if (!sensitiveRecord) return Error{"the project has no sensitive source"};
    if (publicCount < 2)
        return Error{"a text study mixes its public sources: this project registers " + std::to_string(publicCount) +
                     " public text source(s), expected at least 2"};
    run.say("loading the sensitive text '" + sensitiveRecord->name + "'");
    auto sensitiveLoaded = loadText(spec, *sensitiveRecord, "sensitive", control);
    if (!sensitiveLoaded) return sensitiveLoaded.error();
    d.mail = std::move(sensitiveLoaded->documents);
    if (d.mail.empty()) return Error{"sensitive source '" + sensitiveRecord->name + "' has no document"};
    if (run.userLevel) {
        for (std::size_t i = 0; i < d.mail.size(); ++i) {
            if (d.mail[i].user.empty())
                return Error{"sensitive source '" + sensitiveRecord->name + "': document " + std::to_string(i) +
                             " has no user, but sensitive.user_level is true (every document needs its user)"};
            d.grouping.users.push_back(d.mail[i].user);
        }
    } else {
        // Example level: each document's side follows its content alone (a stable split).
        for (const auto& doc : d.mail) d.grouping.keys.push_back(data::sha256Hex(doc.text));
    }
    auto threeWay = data::trainValidationTestSplit(d.mail.size(), run.studySeed, d.grouping);
    if (!threeWay) return Error{"splitting the sensitive text: " + threeWay.error().message};
    d.threeWay = std::move(threeWay).value();
    d.trainGrouping = data::subsetGrouping(d.grouping, d.threeWay.train);
    d.task = sensitiveRecord->name;
    return d;
}

// Proxies: public text only, no privacy cost; the tokenizer is stored with its run.
Result<text::DomainProxies> buildProxies(const TextStudyRun& run, const data::TextCorpus& publicText) {
    const auto& settings = run.settings;
    text::DomainProxyOptions proxyOptions;
    proxyOptions.tokenizer.vocabularySize = settings.vocabularySize;
    proxyOptions.tokenizer.seed = run.studySeed;
    proxyOptions.tokenizerSample.bytesPerDomain = settings.tokenizerBytesPerDomain;
    proxyOptions.tokenizerSample.seed = run.studySeed;
    proxyOptions.ngram.order = settings.ngramOrder;
    proxyOptions.maxTrainingBytesPerDomain = settings.maxTrainingBytesPerDomain;
    run.say("training the tokenizer and one Kneser-Ney proxy per public domain (public data only, no privacy cost)");
    auto& project = run.project;
    std::optional<text::DomainProxies> proxies;
    auto proxyRun = pipeline::storedRun(
        project, {"text-proxies", "", std::nullopt, static_cast<long long>(run.studySeed), proxiesConfigJson(settings)},
        [&](long long id) -> Status {
            auto built = text::buildDomainProxies(publicText, proxyOptions, run.progress, run.cancel);
            if (!built) return built.error();
            proxies = std::move(built).value();
            const double vocabulary = static_cast<double>(proxies->tokenizer().vocabulary().size);
            if (auto e = pipeline::errorOf(project.addMetrics({{id, "vocabulary-size", "", vocabulary}}))) return e;
            auto stored = project.storeModel(id, "tokenizer", proxies->tokenizer().serializedModel());
            if (!stored) return stored.error();
            return std::nullopt;
        });
    if (!proxyRun) return proxyRun.error();
    return std::move(*proxies);
}

// Test perplexity: the test users' documents, scored once (token matrix only).
Result<text::LmMixtureInputs> scoreTestDocuments(const TextStudyRun& run, const text::DomainProxies& proxies,
                                                 const TextStudyData& d, TextStudyReport& out) {
    const auto testDocs = pick(d.mail, d.threeWay.test);
    out.testUserIds = distinctUsers(d.mail, d.threeWay.test);
    out.testUsers = run.userLevel ? static_cast<long long>(out.testUserIds.size()) : 0;
    text::LmInputOptions testOptions;
    testOptions.maxTokensPerDocument = run.settings.maxTokensPerDocument;
    testOptions.sequenceLikelihoods = false;
    auto testInputs = text::computeLmMixtureInputs(proxies, testDocs, testOptions, {}, run.cancel);
    if (!testInputs) return Error{"scoring the test documents: " + testInputs.error().message};
    out.testDocuments = static_cast<long long>(testInputs->documents.size());
    if (out.testDocuments == 0) return Error{"the test split of '" + d.task + "' has no document with text"};
    return testInputs;
}

// One seed's split A through the proxies, as the MixMin objective (no privacy cost here).
struct SeedObjective {
    std::vector<std::size_t> a, b;  // indices into the sensitive corpus
    text::LmMixtureInputs inputs;
    std::optional<mixmin::MixtureObjective> objective;
    Eigen::VectorXd weights;  // user level: F is the mean over users of each user's mean loss
};

Result<SeedObjective> seedObjective(const TextStudyRun& run, const text::DomainProxies& proxies, const TextStudyData& d,
                                    std::uint64_t seed, TextSeedDetails& details) {
    const auto& train = d.threeWay.train;
    auto rhoSplit = data::rhoSplit(train.size(), run.rho, seed, d.trainGrouping);
    if (!rhoSplit) return Error{"the rho split: " + rhoSplit.error().message};
    SeedObjective so;
    for (auto i : rhoSplit->first) so.a.push_back(train[i]);
    for (auto i : rhoSplit->second) so.b.push_back(train[i]);
    details.seed = seed;
    details.userIdsA = distinctUsers(d.mail, so.a);
    details.userIdsB = distinctUsers(d.mail, so.b);
    details.usersA = run.userLevel ? static_cast<long long>(details.userIdsA.size()) : 0;
    details.usersB = run.userLevel ? static_cast<long long>(details.userIdsB.size()) : 0;
    const auto docsA = pick(d.mail, so.a);
    text::LmInputOptions inputOptions;
    inputOptions.maxTokensPerDocument = run.settings.maxTokensPerDocument;
    inputOptions.tokenMatrix = false;
    inputOptions.userLevel = run.userLevel;
    auto inputs = text::computeLmMixtureInputs(proxies, docsA, inputOptions, {}, run.cancel);
    if (!inputs) return Error{"scoring split A: " + inputs.error().message};
    so.inputs = std::move(inputs).value();
    details.documentsA = static_cast<long long>(so.inputs.documents.size());
    auto objective = mixmin::makeSequenceObjective(so.inputs.logLikelihoods, so.inputs.tokenCounts);
    if (!objective) return Error{"task '" + d.task + "': " + objective.error().message};
    so.objective = std::move(objective).value();
    if (run.userLevel) so.weights = so.inputs.users->userMeanWeights();
    return so;
}

// The non-private reference λ*, uniform and Random Search's pick, with their distances to λ*.
Result<pipeline::MixtureOutcome> baselineMixtures(const TextStudyRun& run, const SeedObjective& so,
                                                  const std::string& task,
                                                  const std::vector<std::string>& componentNames, std::uint64_t seed,
                                                  TextSeedDetails& details) {
    const auto& objective = *so.objective;
    pipeline::MixtureOutcome o;
    o.task = task;
    o.componentNames = componentNames;
    o.examples = objective.examples();
    if (run.userLevel) o.users = so.inputs.users->users();  // the baselines' entries name the unit
    const auto k = objective.sources();
    auto star = mixmin::solveNonPrivateMixMin(objective, {}, so.weights, {}, run.cancel);
    if (!star) return Error{"task '" + task + "', non-private MixMin: " + star.error().message};
    o.lambdaStar = star->lambda;
    o.lambdaStarGap = star->gap;
    o.lambdaUniform = Eigen::VectorXd::Constant(k, 1.0 / static_cast<double>(k));
    details.userGradientNormQuantilesUniform =
        userGradientNormQuantiles(objective, so.inputs.users, run.groupSize, o.lambdaUniform);
    details.userGradientNormQuantilesStar =
        userGradientNormQuantiles(objective, so.inputs.users, run.groupSize, o.lambdaStar);
    const auto uq = mixmin::compareWithReference(o.lambdaUniform, o.lambdaStar);
    o.uniformCosine = uq.cosine;
    o.uniformL1 = uq.l1;
    mixmin::RandomSearchOptions rs;
    rs.candidates = run.options.randomSearchCandidates;
    rs.seed = seed;
    auto search = mixmin::randomSearch(objective, rs, so.weights, {}, run.cancel);
    if (!search) return Error{"task '" + task + "', random search: " + search.error().message};
    o.lambdaRandomSearch = search->lambda;
    const auto sq = mixmin::compareWithReference(o.lambdaRandomSearch, o.lambdaStar);
    o.randomSearchCosine = sq.cosine;
    o.randomSearchL1 = sq.l1;
    return o;
}

// The DP-MixMin mechanism's parameters for one ε on split A.
Result<mixmin::DpMixMinParams> textMixtureParams(const TextStudyRun& run, const SeedObjective& so,
                                                 const std::string& task, double eps, std::uint64_t seed) {
    const long long units = run.userLevel ? so.inputs.users->users() : so.objective->examples();
    // Expected units per step: the spec's batch (users at user level), capped at all units.
    const double batch = std::min<double>(static_cast<double>(run.spec.mixture.batch), static_cast<double>(units));
    const std::string method = methods::nameOf(methods::Method::DpMixMin);
    auto builder = mixmin::DpMixMinParamsBuilder::languageDefaults(run.userLevel);
    builder.epsilon(eps)
        .delta(run.delta)
        .expectedBatch(batch)
        .clipNorm(run.spec.mixture.clip)
        .stepSize(run.spec.mixture.lr)
        .steps(run.spec.mixture.steps)
        .release(run.spec.mixture.releaseAverage ? mixmin::ReleasedIterate::Average : mixmin::ReleasedIterate::Last)
        .randomness(pipeline::releaseRandomness(run.reproducible, seed,
                                                pipeline::releaseIdentity("mixture", method, task, eps, seed)))
        // λ·∇ℓ_j = −1/L_j for every sequence: the raw gradient always carries that
        // component, which the EG step ignores; projecting it out spends C on direction.
        .clippedGradient(mixmin::ClippedGradient::TangentProjected)
        .accountant(run.accountant)
        .split("A");
    if (run.userLevel) builder.maxExamplesPerUser(run.groupSize);
    auto params = builder.build(units, run.userLevel ? privacy::PrivacyUnit::User : privacy::PrivacyUnit::Example);
    if (!params) return Error{"task '" + task + "', mixture parameters: " + params.error().message};
    return params;
}

// The DP-MixMin runs of one seed whose mechanism started and that are not done: marked `status`
// with `why`; each keeps the ledger stored when it started (a run already done stays done).
void markStartedRuns(project::ProjectFile& project, const std::map<double, long long>& started,
                     project::RunStatus status, const std::string& why) {
    for (const auto& [eps, id] : started) {
        if (id <= 0) continue;  // its storage failed: startMechanismRun marked nothing to keep
        if (auto r = project.run(id); r && r->status != project::RunStatus::Done)
            (void)project.setRunStatus(id, status, why);
    }
}

// Before the mechanism touches split A, it is reserved on the data set's budget (refused over the
// cap). The λ's computed so far are stored after the loop; their own reservations, still open,
// count them until the run ends and settles.
Status reserveMixtureBudget(TextStudyRun& run, const pipeline::MixtureOutcome& o, std::uint64_t seed,
                            const privacy::LedgerEntry& planned) {
    const std::string part = privacy::rhoPartition(static_cast<long long>(seed), run.rho);
    auto held = project::reserveBudget(run.project, {{0, "dp-mixmin '" + o.task + "' (planned)", part, planned}},
                                       run.options.budgetCap, "dpmix-text run: DP-MixMin");
    if (!held) return held.error();
    run.reservations.push_back(std::move(held).value());
    return std::nullopt;
}

// The stored DP-MixMin releases of one seed that this downstream run reuses instead of learning
// λ again: the image study's rule (pipeline/stored_mixture.h) on this seed's split A. None in a
// mixture-only run or when asked to learn λ again.
Result<pipeline::StoredMixtures> reusableMixtures(const TextStudyRun& run, const SeedObjective& so,
                                                  const pipeline::MixtureOutcome& o, std::uint64_t seed) {
    pipeline::StoredMixtures reused;
    if (!run.settings.downstream || run.options.relearnMixture) return reused;
    const auto runs = run.project.runs();
    if (!runs) return runs.error();
    const std::string dpName = methods::nameOf(methods::Method::DpMixMin);
    for (double eps : run.epsilons) {
        auto params = textMixtureParams(run, so, o.task, eps, seed);
        if (!params) return params.error();
        // Text studies refuse sequential composition: the mixture spends the whole ε.
        const pipeline::MixtureReuseQuery query{seed,
                                                o.task,
                                                eps,
                                                eps,
                                                run.mixtureConfig(dpName),
                                                run.spec.privacy.composition,
                                                pipeline::withSenderAddressUnit(mixmin::plannedLedgerEntry(*params)),
                                                o.componentNames};
        if (auto stored = pipeline::findStoredMixture(run.project, *runs, query))
            reused.emplace(std::make_tuple(seed, o.task, eps), std::move(*stored));
    }
    return reused;
}

// DP-MixMin on split A for every ε of one seed that `reused` does not hold. Each run is stored
// with its ledger before its mechanism starts (`started`: ε → run id) and completed with its λ
// after the loop; if it stops (cancelled, or a later step fails), each run that had started is
// marked cancelled or failed and keeps its ledger, so the budget counts what was spent.
Status learnPrivateLambdas(TextStudyRun& run, const SeedObjective& so, std::uint64_t seed,
                           const pipeline::StoredMixtures& reused, pipeline::MixtureOutcome& o,
                           std::map<double, long long>& started) {
    const std::string dpName = methods::nameOf(methods::Method::DpMixMin);
    auto keepSpent = [&](project::RunStatus status, const std::string& why) {
        markStartedRuns(run.project, started, status, why);
    };
    auto learnPrivately = [&]() -> Status {
        for (double eps : run.epsilons) {
            throwIfCancelled(run.cancel);
            if (reused.count({seed, o.task, eps})) {  // released by a stored run: nothing runs on split A
                report(run.progress, {"mixture", ++run.doneRuns, run.totalRuns, "task " + o.task});
                continue;
            }
            auto params = textMixtureParams(run, so, o.task, eps, seed);
            if (!params) return params.error();
            const privacy::LedgerEntry planned = pipeline::withSenderAddressUnit(mixmin::plannedLedgerEntry(*params));
            if (auto e = reserveMixtureBudget(run, o, seed, planned)) return e;
            // The run and its ledger are stored before the mechanism touches split A, as in the
            // image study: a run cancelled, failed or killed midway keeps what it may have spent.
            if (auto e = pipeline::startMechanismRun(
                    run.project, {dpName, o.task, eps, static_cast<long long>(seed), run.mixtureConfig(dpName)},
                    run.spec.privacy.composition, planned, started[eps]))
                return e;
            auto dp = run.userLevel ? mixmin::runUserLevelDpMixMin(*so.objective, *so.inputs.users, *params, nullptr,
                                                                   {}, run.cancel)
                                    : mixmin::runDpMixMin(*so.objective, *params, nullptr, {}, run.cancel);
            if (!dp) return Error{"task '" + o.task + "', DP-MixMin: " + dp.error().message};
            pipeline::PrivateLambda p = pipeline::privateLambdaFrom(*dp, eps, seed, o.lambdaStar);
            p.ledgerEntry = pipeline::withSenderAddressUnit(p.ledgerEntry);
            o.privateLambdas.push_back(std::move(p));
            report(run.progress, {"mixture", ++run.doneRuns, run.totalRuns, "task " + o.task});
        }
        return std::nullopt;
    };
    try {
        if (auto e = learnPrivately()) {
            keepSpent(project::RunStatus::Failed, e->message);
            return e;
        }
    } catch (const Cancelled&) {
        keepSpent(project::RunStatus::Cancelled,
                  "cancelled by the user during mixture learning on split A; the "
                  "mechanism had started, so its ledger is kept; no lambda was released");
        throw;
    }
    return std::nullopt;
}

// Storage: one run per method (and per ε for DP-MixMin), as in the image study; every baseline's
// run carries the test perplexity of its λ-mixture.
Status storeTextSeedRuns(const TextStudyRun& run, const pipeline::MixtureOutcome& o, std::uint64_t seed,
                         const TextSeedDetails& details, const text::LmMixtureInputs& testInputs,
                         const std::map<double, long long>& started) {
    auto& project = run.project;
    const long long s = static_cast<long long>(seed);
    auto config = [&](const std::string& method) { return run.mixtureConfig(method); };
    auto perplexityOf = [&](const std::vector<double>& lambda,
                            long long id) -> Result<std::vector<project::MetricRecord>> {
        const Eigen::VectorXd l =
            Eigen::Map<const Eigen::VectorXd>(lambda.data(), static_cast<Eigen::Index>(lambda.size()));
        auto ppl = text::mixturePerplexity(testInputs, l);
        if (!ppl) return ppl.error();
        return std::vector<project::MetricRecord>{{id, "test-perplexity", "", *ppl}};
    };
    if (auto e = pipeline::storeMixtureBaselines(project, o, s, run.spec.privacy.composition, config, perplexityOf))
        return e;
    const std::string dpName = methods::nameOf(methods::Method::DpMixMin);
    // The DP-MixMin runs were stored with their ledger when their mechanism started: completed here
    // (a reused λ is its own run's, stored there).
    for (std::size_t pi = 0; pi < o.privateLambdas.size(); ++pi) {
        const auto& p = o.privateLambdas[pi];
        const auto startedHere = started.find(p.epsilon);
        if (startedHere == started.end()) continue;
        const long long id = startedHere->second;
        if (auto e = pipeline::storePrivateLambda(project, id, o, p,
                                                  {{id, "test-perplexity", "", details.perplexityDp[pi]}}))
            return e;
        if (auto done = project.setRunStatus(id, project::RunStatus::Done); !done) return done.error();
    }
    return std::nullopt;
}

// One seed: split A's objective, the baselines, DP-MixMin for every ε, test perplexities, storage.
Status runTextSeed(TextStudyRun& run, const text::DomainProxies& proxies, const TextStudyData& d,
                   const text::LmMixtureInputs& testInputs, std::uint64_t seed, TextStudyReport& out) {
    TextSeedDetails details;
    auto so = seedObjective(run, proxies, d, seed, details);
    if (!so) return so.error();
    run.say("task '" + d.task + "', seed " + std::to_string(seed) + ": mixture learning on split A (" +
            std::to_string(details.documentsA) + " documents" +
            (run.userLevel ? ", " + std::to_string(so->inputs.users->users()) + " users" : std::string()) + ")");
    auto baselines = baselineMixtures(run, *so, d.task, out.study.componentNames, seed, details);
    if (!baselines) return baselines.error();
    pipeline::MixtureOutcome o = std::move(baselines).value();
    auto testPerplexity = [&](const Eigen::VectorXd& lambda) -> Result<double> {
        return text::mixturePerplexity(testInputs, lambda);
    };
    auto reused = reusableMixtures(run, *so, o, seed);
    if (!reused) return reused.error();
    std::map<double, long long> started;  // ε → the DP-MixMin run stored when its mechanism started
    if (auto e = learnPrivateLambdas(run, *so, seed, *reused, o, started)) return e;
    o = pipeline::withReusedLambdas(*reused, run.epsilons, d.task, seed, std::move(o), run.say);
    auto finish = [&]() -> Status {
        for (auto [lambda, target] : {std::pair{&o.lambdaStar, &details.perplexityStar},
                                      std::pair{&o.lambdaUniform, &details.perplexityUniform},
                                      std::pair{&o.lambdaRandomSearch, &details.perplexityRandomSearch}}) {
            auto ppl = testPerplexity(*lambda);
            if (!ppl) return ppl.error();
            *target = *ppl;
        }
        for (const auto& p : o.privateLambdas) {
            auto ppl = testPerplexity(p.lambda);
            if (!ppl) return ppl.error();
            details.perplexityDp.push_back(*ppl);
        }
        return storeTextSeedRuns(run, o, seed, details, testInputs, started);
    };
    if (auto e = finish()) {
        markStartedRuns(run.project, started, project::RunStatus::Failed, e->message);  // λ computed, not stored
        return e;
    }
    // The language-model stages' DP-MixMin runs carry each λ's entry marked with the run that
    // released it — stored just now, or reused — so the budget counts it there, once.
    if (run.settings.downstream)
        for (auto& p : o.privateLambdas)
            if (auto here = started.find(p.epsilon); here != started.end()) p.ledgerEntry.spentInRun = here->second;
    run.say("task '" + d.task + "', seed " + std::to_string(seed) + ": test perplexity lambda* " +
            std::to_string(details.perplexityStar) + ", uniform " + std::to_string(details.perplexityUniform) +
            ", random search " + std::to_string(details.perplexityRandomSearch));
    out.study.mixtures.push_back(
        {seed, run.rho, static_cast<long long>(so->a.size()), static_cast<long long>(so->b.size()), std::move(o)});
    out.seeds.push_back(std::move(details));
    return std::nullopt;
}

}  // namespace

Result<TextStudyReport> runTextStudy(project::ProjectFile& project, const pipeline::StudyRunOptions& options,
                                     const TextStudySettings& settings, const ProgressCallback& progress,
                                     const CancellationToken& cancel, const pipeline::LogSink& log) {
    if (auto e = checkTextStudyOptions(options, settings)) return *e;
    // The text study's stages calibrate each stage at the full budget: under sequential
    // composition that would report a target the ledger exceeds, so the run refuses.
    if (project.spec().privacy.composition == privacy::Composition::Sequential)
        return Error{
            "privacy.composition = sequential is not supported for text studies yet: the mixture and "
            "fine-tuning stages are calibrated at the full budget each; choose parallel composition"};
    TextStudyRun run = resolveTextStudyRun(project, options, settings, progress, cancel, log);
    auto loaded = loadTextStudyData(run);
    if (!loaded) return loaded.error();
    TextStudyData data = std::move(loaded).value();
    auto proxies = buildProxies(run, data.publicText);
    if (!proxies) return proxies.error();
    data.publicText = {};  // the proxies hold what they need

    TextStudyReport out;
    out.study.project = project.path().string();
    out.study.componentNames = proxies->domains();
    out.vocabularySize = proxies->tokenizer().vocabulary().size;
    run.say("proxies ready: k = " + std::to_string(proxies->size()) + " domains, vocabulary " +
            std::to_string(out.vocabularySize));
    if (std::find(options.stages.begin(), options.stages.end(), "mixture") == options.stages.end()) return out;

    auto testInputs = scoreTestDocuments(run, *proxies, data, out);
    if (!testInputs) return testInputs.error();
    for (auto seed : run.seeds) {
        throwIfCancelled(cancel);
        if (auto e = runTextSeed(run, *proxies, data, *testInputs, seed, out)) return *e;
    }
    return out;
}

Result<pipeline::StudyRunReport> runTextStudy(project::ProjectFile& project, const pipeline::StudyRunOptions& options,
                                              const ProgressCallback& progress, const CancellationToken& cancel,
                                              const pipeline::LogSink& log) {
    auto report = runTextStudy(project, options, TextStudySettings{}, progress, cancel, log);
    if (!report) return report.error();
    return std::move(report->study);
}

}  // namespace dpmix::text_study
