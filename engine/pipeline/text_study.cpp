#include "engine/pipeline/text_study.h"

#include "engine/pipeline/mixture_records.h"
#include "engine/pipeline/release_randomness.h"
#include "engine/pipeline/run_storage.h"
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
#include "engine/text/domain_proxies.h"
#include "engine/text/lm_mixture_inputs.h"
#include "engine/text/perplexity.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <set>

namespace dpmix::pipeline {
namespace {

using LoadControl = data::LoadControl;


Result<data::TextCorpus> loadText(const project::ProjectSpec& spec, const project::SourceRecord& record,
                                  const std::string& role, const LoadControl& control) {
    if (record.facts.kind != "text")
        return Error{role + " source '" + record.name + "' is " + record.facts.kind + " data: a text study needs text"};
    auto loaded = data::loadTextSource(data::SourceSpec{record.name, record.loader, record.path, sourceOptions(spec, record.name)},
                                       control);
    if (!loaded) return Error{role + " source '" + record.name + "': " + loaded.error().message};
    return std::move(loaded).value();
}

std::vector<std::string> distinctUsers(const std::vector<data::TextDocument>& docs, const std::vector<std::size_t>& idx) {
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
                             {"released_iterate", "last"},
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
            units.emplace_back(ex.begin(), ex.begin() + std::min<std::size_t>(ex.size(), static_cast<std::size_t>(groupSize)));
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
    for (double p : {0.1, 0.5, 0.9}) q.push_back(norms.empty() ? 0.0 : norms[static_cast<std::size_t>(p * static_cast<double>(norms.size() - 1) + 0.5)]);
    return q;
}

bool isTextStudy(const std::vector<project::SourceRecord>& sources) {
    for (const auto& s : sources)
        if (s.role == "sensitive") return s.facts.kind == "text";
    return false;
}

Result<TextStudyReport> runTextStudy(project::ProjectFile& project, const StudyRunOptions& options,
                                     const TextStudySettings& settings, const ProgressCallback& progress,
                                     const CancellationToken& cancel, const LogSink& log) {
    // The study runner's checks, repeated here: this library must not link the (LibTorch) runner.
    if (options.stages.empty()) return Error{"--stages: give at least one of proxies, mixture"};
    for (const auto& stage : options.stages)
        if (stage != "proxies" && stage != "mixture")
            return Error{"--stages: stage '" + stage + "' is not available for a text study: expected proxies or mixture"};
    for (double e : options.epsilons)
        if (!(e > 0.0) || !std::isfinite(e)) return Error{"--epsilon = " + std::to_string(e) + " is out of range: expected a finite number > 0"};
    if (options.rho && !(*options.rho > 0.0 && *options.rho < 1.0))
        return Error{"--rho = " + std::to_string(*options.rho) + " is out of range: expected a fraction in (0, 1)"};
    if (options.randomSearchCandidates < 0)
        return Error{"random search candidates = " + std::to_string(options.randomSearchCandidates) + ": expected >= 0"};
    if (settings.maxTokensPerDocument < 1) return Error{"max tokens per document must be >= 1"};
    if (settings.defaultUserGroupSize < 1) return Error{"default user group size must be >= 1"};
    auto say = [&](const std::string& line) { if (log) log(line); };
    const auto& spec = project.spec();
    // The text study's stages calibrate each stage at the full budget: under sequential
    // composition that would report a target the ledger exceeds, so the run refuses.
    if (spec.privacy.composition == privacy::Composition::Sequential)
        return Error{"privacy.composition = sequential is not supported for text studies yet: the mixture and "
                     "fine-tuning stages are calibrated at the full budget each; choose parallel composition"};
    const bool wantMixture = std::find(options.stages.begin(), options.stages.end(), "mixture") != options.stages.end();
    const bool userLevel = spec.sensitive.userLevel;

    std::vector<std::uint64_t> seeds = options.seeds;
    if (seeds.empty())
        for (auto s : spec.seeds) seeds.push_back(static_cast<std::uint64_t>(s));
    if (seeds.empty()) seeds.push_back(0);
    const std::vector<double> epsilons = options.epsilons.empty() ? spec.privacy.epsilons : options.epsilons;
    const double rho = options.rho.value_or(spec.privacy.rho);
    const double delta = spec.privacy.delta;
    const std::uint64_t studySeed = spec.seeds.empty() ? 0 : static_cast<std::uint64_t>(spec.seeds.front());
    const bool reproducible = options.reproducible.value_or(spec.privacy.reproducible);
    const long long groupSize = spec.mixture.userGroupSize > 0 ? spec.mixture.userGroupSize : settings.defaultUserGroupSize;

    // --- Data: every public source is one domain (= one mixture component), named after the source.
    auto sources = project.sources();
    if (!sources) return sources.error();
    const LoadControl control{progress, cancel};
    data::TextCorpus publicText;
    const project::SourceRecord* sensitiveRecord = nullptr;
    std::size_t publicCount = 0;
    say("loading the public text domains");
    for (const auto& s : *sources) {
        if (s.role == "sensitive") { sensitiveRecord = &s; continue; }
        if (s.role != "public") continue;
        auto loaded = loadText(spec, s, "public", control);
        if (!loaded) return loaded.error();
        data::TextCorpus corpus = std::move(loaded).value();
        std::size_t kept = 0;
        for (auto& d : corpus.documents) {
            if (d.text.empty()) continue;
            d.domain = s.name;  // decision: the source is the component, whatever domain field its records carry
            publicText.documents.push_back(std::move(d));
            ++kept;
        }
        if (kept == 0) return Error{"public source '" + s.name + "' (" + s.path + ") has no non-empty document"};
        ++publicCount;
    }
    if (!sensitiveRecord) return Error{"the project has no sensitive source"};
    if (publicCount < 2)
        return Error{"a text study mixes its public sources: this project registers " + std::to_string(publicCount) +
                     " public text source(s), expected at least 2"};
    say("loading the sensitive text '" + sensitiveRecord->name + "'");
    auto sensitiveLoaded = loadText(spec, *sensitiveRecord, "sensitive", control);
    if (!sensitiveLoaded) return sensitiveLoaded.error();
    const std::vector<data::TextDocument>& mail = sensitiveLoaded->documents;
    if (mail.empty()) return Error{"sensitive source '" + sensitiveRecord->name + "' has no document"};
    data::SplitGrouping grouping;
    if (userLevel) {
        for (std::size_t i = 0; i < mail.size(); ++i) {
            if (mail[i].user.empty())
                return Error{"sensitive source '" + sensitiveRecord->name + "': document " + std::to_string(i) +
                             " has no user, but sensitive.user_level is true (every document needs its user)"};
            grouping.users.push_back(mail[i].user);
        }
    } else {
        // Example level: each document's side follows its content alone (a stable split).
        for (const auto& doc : mail) grouping.keys.push_back(data::sha256Hex(doc.text));
    }
    auto threeWay = data::trainValidationTestSplit(mail.size(), studySeed, grouping);
    if (!threeWay) return Error{"splitting the sensitive text: " + threeWay.error().message};
    const std::string task = sensitiveRecord->name;

    // --- Proxies: public text only, no privacy cost; the tokenizer is stored with its run.
    text::DomainProxyOptions proxyOptions;
    proxyOptions.tokenizer.vocabularySize = settings.vocabularySize;
    proxyOptions.tokenizer.seed = studySeed;
    proxyOptions.tokenizerSample.bytesPerDomain = settings.tokenizerBytesPerDomain;
    proxyOptions.tokenizerSample.seed = studySeed;
    proxyOptions.ngram.order = settings.ngramOrder;
    proxyOptions.maxTrainingBytesPerDomain = settings.maxTrainingBytesPerDomain;
    say("training the tokenizer and one Kneser-Ney proxy per public domain (public data only, no privacy cost)");
    std::optional<text::DomainProxies> proxies;
    auto proxyRun = storedRun(project, {"text-proxies", "", std::nullopt, static_cast<long long>(studySeed), proxiesConfigJson(settings)},
                              [&](long long id) -> std::optional<Error> {
                                  auto built = text::buildDomainProxies(publicText, proxyOptions, progress, cancel);
                                  if (!built) return built.error();
                                  proxies = std::move(built).value();
                                  if (auto e = errorOf(project.addMetrics({{id, "vocabulary-size", "", static_cast<double>(proxies->tokenizer().vocabulary().size)}}))) return e;
                                  auto stored = project.storeModel(id, "tokenizer", proxies->tokenizer().serializedModel());
                                  if (!stored) return stored.error();
                                  return std::nullopt;
                              });
    if (!proxyRun) return proxyRun.error();
    publicText = {};  // the proxies hold what they need

    TextStudyReport out;
    out.study.project = project.path().string();
    out.study.componentNames = proxies->domains();
    out.vocabularySize = proxies->tokenizer().vocabulary().size;
    say("proxies ready: k = " + std::to_string(proxies->size()) + " domains, vocabulary " + std::to_string(out.vocabularySize));
    if (!wantMixture) return out;

    // --- Test perplexity inputs: the test users' documents, scored once (token matrix only).
    const auto testDocs = pick(mail, threeWay->test);
    out.testUserIds = distinctUsers(mail, threeWay->test);
    out.testUsers = userLevel ? static_cast<long long>(out.testUserIds.size()) : 0;
    text::LmInputOptions testOptions;
    testOptions.maxTokensPerDocument = settings.maxTokensPerDocument;
    testOptions.sequenceLikelihoods = false;
    auto testInputs = text::computeLmMixtureInputs(*proxies, testDocs, testOptions, {}, cancel);
    if (!testInputs) return Error{"scoring the test documents: " + testInputs.error().message};
    out.testDocuments = static_cast<long long>(testInputs->documents.size());
    if (out.testDocuments == 0) return Error{"the test split of '" + task + "' has no document with text"};
    auto testPerplexity = [&](const Eigen::VectorXd& lambda) -> Result<double> {
        return text::mixturePerplexity(*testInputs, lambda);
    };

    const long long totalRuns = static_cast<long long>(seeds.size() * epsilons.size());
    long long doneRuns = 0;
    const auto& train = threeWay->train;
    const data::SplitGrouping trainGrouping = data::subsetGrouping(grouping, train);
    for (auto seed : seeds) {
        throwIfCancelled(cancel);
        auto rhoSplit = data::rhoSplit(train.size(), rho, seed, trainGrouping);
        if (!rhoSplit) return Error{"the rho split: " + rhoSplit.error().message};
        std::vector<std::size_t> a, b;
        for (auto i : rhoSplit->first) a.push_back(train[i]);
        for (auto i : rhoSplit->second) b.push_back(train[i]);
        TextSeedDetails details;
        details.seed = seed;
        details.userIdsA = distinctUsers(mail, a);
        details.userIdsB = distinctUsers(mail, b);
        details.usersA = userLevel ? static_cast<long long>(details.userIdsA.size()) : 0;
        details.usersB = userLevel ? static_cast<long long>(details.userIdsB.size()) : 0;

        // Split A through the proxies: a deterministic per-document map (no privacy cost here).
        const auto docsA = pick(mail, a);
        text::LmInputOptions inputOptions;
        inputOptions.maxTokensPerDocument = settings.maxTokensPerDocument;
        inputOptions.tokenMatrix = false;
        inputOptions.userLevel = userLevel;
        auto inputs = text::computeLmMixtureInputs(*proxies, docsA, inputOptions, {}, cancel);
        if (!inputs) return Error{"scoring split A: " + inputs.error().message};
        details.documentsA = static_cast<long long>(inputs->documents.size());
        auto objective = mixmin::makeSequenceObjective(inputs->logLikelihoods, inputs->tokenCounts);
        if (!objective) return Error{"task '" + task + "': " + objective.error().message};
        const auto k = objective->sources();
        // User level: F is the mean over users of each user's mean loss (what Algorithm 2 estimates).
        const Eigen::VectorXd weights = userLevel ? inputs->users->userMeanWeights() : Eigen::VectorXd();
        say("task '" + task + "', seed " + std::to_string(seed) + ": mixture learning on split A (" +
            std::to_string(details.documentsA) + " documents" +
            (userLevel ? ", " + std::to_string(inputs->users->users()) + " users" : std::string()) + ")");

        MixtureOutcome o;
        o.task = task;
        o.componentNames = out.study.componentNames;
        o.examples = objective->examples();
        auto star = mixmin::solveNonPrivateMixMin(*objective, {}, weights, {}, cancel);
        if (!star) return Error{"task '" + task + "', non-private MixMin: " + star.error().message};
        o.lambdaStar = star->lambda;
        o.lambdaStarGap = star->gap;
        o.lambdaUniform = Eigen::VectorXd::Constant(k, 1.0 / static_cast<double>(k));
        details.userGradientNormQuantilesUniform = userGradientNormQuantiles(*objective, inputs->users, groupSize, o.lambdaUniform);
        details.userGradientNormQuantilesStar = userGradientNormQuantiles(*objective, inputs->users, groupSize, o.lambdaStar);
        const auto uq = mixmin::compareWithReference(o.lambdaUniform, o.lambdaStar);
        o.uniformCosine = uq.cosine;
        o.uniformL1 = uq.l1;
        mixmin::RandomSearchOptions rs;
        rs.candidates = options.randomSearchCandidates;
        rs.seed = seed;
        auto search = mixmin::randomSearch(*objective, rs, weights, {}, cancel);
        if (!search) return Error{"task '" + task + "', random search: " + search.error().message};
        o.lambdaRandomSearch = search->lambda;
        const auto sq = mixmin::compareWithReference(o.lambdaRandomSearch, o.lambdaStar);
        o.randomSearchCosine = sq.cosine;
        o.randomSearchL1 = sq.l1;

        // The DP-MixMin λ's of this seed are stored after the loop; if the loop stops (cancelled,
        // or a later step fails), each mechanism that had started is stored as a cancelled or
        // failed run with its ledger, so the budget counts what was spent.
        std::vector<std::pair<double, privacy::LedgerEntry>> spent;
        auto keepSpent = [&](project::RunStatus status, const std::string& why) {
            for (const auto& [e, entry] : spent) {
                auto id = project.addRun({"dp-mixmin", task, e, static_cast<long long>(seed),
                                          mixtureConfigJson(spec.mixture, groupSize, rho, delta, "dp-mixmin", settings, userLevel)});
                if (!id) continue;
                privacy::Ledger ledger(spec.privacy.composition);
                ledger.record(entry);
                (void)project.setRunStatus(*id, project::RunStatus::Running);
                (void)project.recordLedger(*id, ledger);
                (void)project.setRunStatus(*id, status, why);
            }
        };
        auto learnPrivately = [&]() -> std::optional<Error> {
            for (double eps : epsilons) {
                throwIfCancelled(cancel);
                const long long units = userLevel ? inputs->users->users() : objective->examples();
                // Expected units per step: the spec's batch (users at user level), capped at all units.
                const double batch = std::min<double>(static_cast<double>(spec.mixture.batch), static_cast<double>(units));
                auto builder = mixmin::DpMixMinParamsBuilder::languageDefaults(userLevel);
                builder.epsilon(eps)
                    .delta(delta)
                    .expectedBatch(batch)
                    .clipNorm(spec.mixture.clip)
                    .stepSize(spec.mixture.lr)
                    .steps(spec.mixture.steps)
                    .randomness(releaseRandomness(reproducible, seed, releaseIdentity("mixture", "dp-mixmin", task, eps, seed)))
                    // λ·∇ℓ_j = −1/L_j for every sequence: the raw gradient always carries that
                    // component, which the EG step ignores; projecting it out spends C on direction.
                    .clippedGradient(mixmin::ClippedGradient::TangentProjected)
                    .split("A");
                if (userLevel) builder.maxExamplesPerUser(groupSize);
                auto params = builder.build(units, userLevel ? privacy::PrivacyUnit::User : privacy::PrivacyUnit::Example);
                if (!params) return Error{"task '" + task + "', mixture parameters: " + params.error().message};
                // The privacy budget's cap, before the mechanism touches split A: this seed's DP-MixMin
                // λ's computed so far (stored after the loop) and this one, against what is stored.
                if (spec.privacy.budget) {
                    const std::string part = privacy::rhoPartition(static_cast<long long>(seed), rho);
                    std::vector<privacy::BudgetRelease> planned;
                    for (const auto& earlier : o.privateLambdas) planned.push_back({0, "planned", part, earlier.ledgerEntry});
                    planned.push_back({0, "planned", part, withSenderAddressUnit(mixmin::plannedLedgerEntry(*params))});
                    auto current = project::projectBudget(project);
                    if (!current) return current.error();
                    if (auto e = project::refuseOverBudget(*current, planned)) return *e;
                }
                spent.push_back({eps, withSenderAddressUnit(mixmin::plannedLedgerEntry(*params))});
                auto dp = userLevel ? mixmin::runUserLevelDpMixMin(*objective, *inputs->users, *params, nullptr, {}, cancel)
                                    : mixmin::runDpMixMin(*objective, *params, nullptr, {}, cancel);
                if (!dp) return Error{"task '" + task + "', DP-MixMin: " + dp.error().message};
                PrivateLambda p = privateLambdaFrom(*dp, eps, seed, o.lambdaStar);
                p.ledgerEntry = withSenderAddressUnit(p.ledgerEntry);
                auto ppl = testPerplexity(p.lambda);
                if (!ppl) return ppl.error();
                details.perplexityDp.push_back(*ppl);
                o.privateLambdas.push_back(std::move(p));
                report(progress, {"mixture", ++doneRuns, totalRuns, "task " + task});
            }
            return std::nullopt;
        };
        try {
            if (auto e = learnPrivately()) {
                keepSpent(project::RunStatus::Failed, e->message);
                return *e;
            }
        } catch (const Cancelled&) {
            keepSpent(project::RunStatus::Cancelled, "cancelled by the user during mixture learning on split A; the "
                                                     "mechanism had started, so its ledger is kept; no lambda was released");
            throw;
        }
        for (auto [lambda, target] : {std::pair{&o.lambdaStar, &details.perplexityStar},
                                      std::pair{&o.lambdaUniform, &details.perplexityUniform},
                                      std::pair{&o.lambdaRandomSearch, &details.perplexityRandomSearch}}) {
            auto ppl = testPerplexity(*lambda);
            if (!ppl) return ppl.error();
            *target = *ppl;
        }

        // --- Storage: one run per method (and per ε for DP-MixMin), as in the image study.
        const auto& names = o.componentNames;
        const long long s = static_cast<long long>(seed);
        auto config = [&](const std::string& method) {
            return mixtureConfigJson(spec.mixture, groupSize, rho, delta, method, settings, userLevel);
        };
        auto r1 = storedRun(project, {"non-private-mixmin", task, std::nullopt, s, config("non-private-mixmin")},
                            [&](long long id) -> std::optional<Error> {
                                privacy::Ledger ledger(spec.privacy.composition);
                                ledger.record(lambdaStarEntry());
                                if (auto e = errorOf(project.recordLedger(id, ledger))) return e;
                                if (auto e = errorOf(project.addLambda({id, "non-private", names, toStdVector(o.lambdaStar)}))) return e;
                                return errorOf(project.addMetrics({{id, "frank-wolfe-gap", "", o.lambdaStarGap},
                                                                 {id, "test-perplexity", "", details.perplexityStar}}));
                            });
        if (!r1) return r1.error();
        auto r2 = storedRun(project, {"uniform", task, std::nullopt, s, config("uniform")},
                            [&](long long id) -> std::optional<Error> {
                                if (auto e = errorOf(project.recordLedger(id, privacy::Ledger(spec.privacy.composition)))) return e;
                                if (auto e = errorOf(project.addLambda({id, "uniform", names, toStdVector(o.lambdaUniform)}))) return e;
                                return errorOf(project.addMetrics({{id, "cosine-to-lambda-star", "", o.uniformCosine},
                                                                 {id, "l1-to-lambda-star", "", o.uniformL1},
                                                                 {id, "test-perplexity", "", details.perplexityUniform}}));
                            });
        if (!r2) return r2.error();
        auto r3 = storedRun(project, {"random-search", task, std::nullopt, s, config("random-search")},
                            [&](long long id) -> std::optional<Error> {
                                privacy::Ledger ledger(spec.privacy.composition);
                                ledger.record(randomSearchEntry());
                                if (auto e = errorOf(project.recordLedger(id, ledger))) return e;
                                if (auto e = errorOf(project.addLambda({id, "random-search", names, toStdVector(o.lambdaRandomSearch)}))) return e;
                                return errorOf(project.addMetrics({{id, "cosine-to-lambda-star", "", o.randomSearchCosine},
                                                                 {id, "l1-to-lambda-star", "", o.randomSearchL1},
                                                                 {id, "test-perplexity", "", details.perplexityRandomSearch}}));
                            });
        if (!r3) return r3.error();
        for (std::size_t pi = 0; pi < o.privateLambdas.size(); ++pi) {
            const auto& p = o.privateLambdas[pi];
            auto r = storedRun(project, {"dp-mixmin", task, p.epsilon, s, config("dp-mixmin")},
                               [&](long long id) -> std::optional<Error> {
                                   privacy::Ledger ledger(spec.privacy.composition);
                                   ledger.record(p.ledgerEntry);
                                   if (auto e = errorOf(project.recordLedger(id, ledger))) return e;
                                   return storePrivateLambda(project, id, o, p, {{id, "test-perplexity", "", details.perplexityDp[pi]}});
                               });
            if (!r) return r.error();
        }
        say("task '" + task + "', seed " + std::to_string(seed) + ": test perplexity lambda* " +
            std::to_string(details.perplexityStar) + ", uniform " + std::to_string(details.perplexityUniform) +
            ", random search " + std::to_string(details.perplexityRandomSearch));
        out.study.mixtures.push_back({seed, rho, static_cast<long long>(a.size()), static_cast<long long>(b.size()), std::move(o)});
        out.seeds.push_back(std::move(details));
    }
    return out;
}

Result<StudyRunReport> runTextStudy(project::ProjectFile& project, const StudyRunOptions& options,
                                    const ProgressCallback& progress, const CancellationToken& cancel, const LogSink& log) {
    auto report = runTextStudy(project, options, TextStudySettings{}, progress, cancel, log);
    if (!report) return report.error();
    return std::move(report->study);
}

}  // namespace dpmix::pipeline
