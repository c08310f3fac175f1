#include "engine/text_downstream/text_downstream.h"

#include "engine/core/seed_derivation.h"
#include "engine/methods/method_plan.h"
#include "engine/pipeline/release_randomness.h"
#include "engine/pipeline/run_storage.h"
#include "engine/privacy/ledger_json.h"
#include "engine/privacy/privacy_budget.h"
#include "engine/project/project_budget.h"
#include "engine/train/lm_training.h"
#include "engine/train/model.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>

namespace dpmix::text_downstream {
namespace {

// One text downstream run's releases (its λ's entries and its planned fine-tuning) reserved on
// the data set's budget before anything is stored; refused over the cap. Counted as the stored
// run will be: its config names no ρ split, so its entries count against everyone
// (conservative), and a λ's entry carried from the run that released it (spent_in_run) is not
// planned again when that run holds it (project::carriedReleases, as the budget reads it). A run
// with a non-private step is no release: nothing is reserved.
Result<project::BudgetReservation> reserveTextRunBudget(project::ProjectFile& project, const privacy::Ledger& ledger,
                                                        const privacy::LedgerEntry& finetune) {
    auto runs = project::runLedgersOf(project);
    if (!runs) return runs.error();
    const auto carried = project::carriedReleases(ledger, *runs);
    std::vector<privacy::BudgetRelease> planned;
    for (const auto& e : ledger.entries()) {
        if (e.mechanism == privacy::MechanismKind::NonPrivate)
            return project::reserveBudget(project, {}, std::nullopt, "");
        if (std::find(carried.begin(), carried.end(), &e) == carried.end()) planned.push_back({0, "planned", "", e});
    }
    planned.push_back({0, "planned", "", pipeline::withSenderAddressUnit(finetune)});
    return project::reserveBudget(project, planned, std::nullopt, "dpmix-text run: downstream");
}

std::vector<std::int32_t> unionOf(std::vector<std::int32_t> a, const std::vector<std::int32_t>& b) {
    a.insert(a.end(), b.begin(), b.end());
    std::sort(a.begin(), a.end());
    a.erase(std::unique(a.begin(), a.end()), a.end());
    return a;
}

train::TokenStreams spans(const std::vector<std::vector<std::int32_t>>& streams) {
    return {streams.begin(), streams.end()};
}

// The tokenizer stored by the newest finished proxies run, which the cache must have been made with.
Result<std::string> projectTokenizerHash(project::ProjectFile& project) {
    auto runs = project.runs();
    if (!runs) return runs.error();
    for (auto it = runs->rbegin(); it != runs->rend(); ++it) {
        if (it->method != "text-proxies" || it->status != project::RunStatus::Done) continue;
        auto models = project.models(it->id);
        if (!models) return models.error();
        for (const auto& m : *models)
            if (m.name == "tokenizer") return m.contentHash;
    }
    return Error{"no finished text-proxies run with a tokenizer in " + project.path().string() +
                 ": run the proxies stage first"};
}

}  // namespace

TextDownstreamSettings textDownstreamSettings(const project::ProjectSpec& spec, std::optional<long long> pretrainSteps,
                                              std::optional<long long> finetuneSteps) {
    TextDownstreamSettings s;
    s.pretrainSteps = pretrainSteps.value_or(spec.pretrain.steps);
    s.pretrainBatch = static_cast<int>(spec.pretrain.batch);
    s.pretrainLr = spec.pretrain.lr;
    s.finetuneSteps = finetuneSteps.value_or(spec.finetune.steps);
    s.finetuneUsers = static_cast<int>(spec.finetune.batch);
    s.finetuneLr = spec.finetune.lr;
    s.clip = spec.finetune.clip;
    s.reproducible = spec.privacy.reproducible;
    s.accountant = spec.privacy.accountant;
    return s;
}

namespace {

// Everything the text downstream runs of one call share.
struct TextDownstreamContext {
    project::ProjectFile& project;
    const project::ProjectSpec& spec;
    const text_tokens::TokenCache& cache;
    const TextDownstreamSettings& settings;
    const ProgressCallback& progress;
    const CancellationToken& cancel;
    std::function<void(const std::string&)> say;
    train::TransformerSpec model;
    train::LmPretrainParams pretrainBase;
    train::TokenStreams domains;
    std::vector<std::vector<std::int32_t>> testStreams;
    long long total = 0, done = 0;
};

// One seed's fine-tuning data and the models pretrained so far (same λ, same seed → same model).
struct SeedData {
    const text_tokens::SeedMixtures& mixtures;
    std::vector<std::vector<std::int32_t>> streamsB, streamsTrain;
    std::map<std::string, std::vector<float>> pretrained;
};

train::LmDpParams finetuneParams(const TextDownstreamContext& c, const std::string& method, double eps,
                                 std::uint64_t seed, const std::string& split) {
    const auto& settings = c.settings;
    train::LmDpParams ft;
    ft.epsilon = eps;
    ft.delta = c.spec.privacy.delta;
    ft.clipNorm = settings.clip;
    ft.learningRate = settings.finetuneLr;
    ft.expectedUsers = settings.finetuneUsers;
    ft.steps = settings.finetuneSteps;
    ft.trainLastBlocks = settings.trainLastBlocks;
    ft.split = split;
    ft.randomness = pipeline::releaseRandomness(settings.reproducible, seed,
                                                pipeline::releaseIdentity("finetune", method, c.cache.task, eps, seed));
    ft.evaluateEvery = settings.evaluateEvery;
    ft.accountant = settings.accountant;
    return ft;
}

std::string textDownstreamConfig(const TextDownstreamContext& c, const std::string& method,
                                 const methods::MethodPlan& plan, const train::LmDpParams& ft) {
    const auto& settings = c.settings;
    const auto& model = c.model;
    return nlohmann::ordered_json{
        {"stage", "downstream"},
        {"method", method},
        {"model", "causal-transformer"},
        {"layers", model.layers},
        {"width", model.width},
        {"heads", model.heads},
        {"context", model.context},
        {"vocabulary", model.vocabulary},
        {"pretrain_steps", plan.lambda ? settings.pretrainSteps : 0},
        {"pretrain_batch", settings.pretrainBatch},
        {"pretrain_lr", settings.pretrainLr},
        {"pretrain_sampling", "domain by lambda, then a uniform window of the domain's token stream"},
        {"finetune_split", ft.split},
        {"privacy_unit", "user"},
        {"windows_per_user", 1},
        {"finetune_steps", ft.steps},
        {"finetune_users_per_step", ft.expectedUsers},
        {"finetune_lr", ft.learningRate},
        {"finetune_optimizer", "adam"},
        {"clip", ft.clipNorm},
        {"train_last_blocks", ft.trainLastBlocks},
        {"delta", ft.delta},
        {"evaluation_tokens", settings.evaluationTokens},
        {"tokenizer_sha256", c.cache.tokenizerSha256},
        {"randomness", settings.reproducible ? "seeded" : "secret"},
        {"device", settings.device}}
        .dump();
}

// The method plan of one (seed, ε): the cache's λ's, and DP-MixMin's ledger as it was stored.
Result<methods::MethodPlan> textMethodPlan(methods::Method m, const text_tokens::SeedMixtures& mix,
                                           const text_tokens::SeedMixtures::Private& priv) {
    methods::MixtureChoices choices;
    choices.lambdaStar = mix.lambdaStar;
    choices.lambdaUniform = mix.lambdaUniform;
    choices.lambdaRandomSearch = mix.lambdaRandomSearch;
    choices.unit = privacy::PrivacyUnit::User;  // the language-model stages run at user level only
    if (methods::traitsOf(m).choice == methods::Choice::Private) {
        auto mixLedger = privacy::ledgerFromJson(priv.ledgerJson);
        if (!mixLedger)
            return Error{"token cache, seed " + std::to_string(mix.seed) + ": " + mixLedger.error().message};
        choices.lambdaPrivate = priv.lambda;
        choices.privateEntries = mixLedger->entries();
    }
    return methods::planMethod(m, choices);
}

// Pretrains (or reuses) the model on λ, fine-tunes it with user-level DP-SGD, evaluates and stores
// the run's results; `out` gets the figures.
Status trainTextRun(TextDownstreamContext& c, SeedData& seed, const methods::MethodPlan& plan,
                    const std::string& pretrainKey, const std::vector<std::vector<std::int32_t>>& users,
                    const train::LmDpParams& ft, privacy::Ledger& ledger, long long id, TextDownstreamRun& out) {
    auto& project = c.project;
    train::CausalLm lm = train::CausalLm::create(c.model, seeds::textModelInit(seed.mixtures.seed), c.settings.device);
    if (plan.lambda) {
        if (auto it = seed.pretrained.find(pretrainKey); it != seed.pretrained.end()) {
            if (auto e = lm.setParameters(it->second)) return e;
        } else {
            train::LmPretrainParams pp = c.pretrainBase;
            pp.seed = seeds::textPretraining(seed.mixtures.seed);
            auto loss = train::pretrainCausalLm(lm, c.domains, *plan.lambda, pp, c.progress, c.cancel);
            if (!loss) return loss.error();
            seed.pretrained[pretrainKey] = lm.parameters();
        }
    }
    const auto test = spans(c.testStreams);
    std::vector<project::CurvePoint> curve;
    Status evalError;
    auto evaluate = [&](long long step) {
        auto ppl = train::causalLmPerplexity(lm, test, c.settings.evaluationTokens);
        if (!ppl) {
            evalError = ppl.error();
            return;
        }
        curve.push_back({step, *ppl});
        c.say("  step " + std::to_string(step) + ": test perplexity " + std::to_string(*ppl));
    };
    auto tuned = train::finetuneCausalLmDpSgd(lm, spans(users), ft, ledger, evaluate, c.progress, c.cancel);
    if (!tuned) return tuned.error();
    if (evalError) return evalError;
    if (curve.size() < 2) {  // evaluation every K steps was off: evaluate the end
        evaluate(ft.steps);
        if (evalError) return evalError;
    }
    out.testPerplexity = curve.back().value;
    out.pretrainedPerplexity = curve.front().step == 0 ? curve.front().value : NAN;
    out.sigma = tuned->sigma;
    out.q = tuned->q;
    out.finetuneUsers = static_cast<long long>(users.size());
    ledger = pipeline::withSenderAddressUnit(ledger);  // every entry here is at user level
    if (auto e = pipeline::errorOf(project.recordLedger(id, ledger))) return e;
    if (plan.lambda)
        if (auto e = pipeline::errorOf(project.addLambda({id, plan.lambdaKind, c.cache.domains, *plan.lambda})))
            return e;
    // The clipped fraction is a non-private statistic of split B: not stored.
    std::vector<project::MetricRecord> metrics{{id, "test-perplexity", "", out.testPerplexity},
                                               {id, "finetune-noise", "", tuned->sigma}};
    if (std::isfinite(out.pretrainedPerplexity))
        metrics.push_back({id, "pretrained-test-perplexity", "", out.pretrainedPerplexity});
    if (auto e = pipeline::errorOf(project.addMetrics(metrics))) return e;
    if (auto e = pipeline::errorOf(project.addCurve(id, "test-perplexity", curve))) return e;
    auto stored = project.storeWeights(id, "finetuned", lm.parameters());
    if (!stored) return stored.error();
    return std::nullopt;
}

// One method's downstream run for (seed, ε): its plan, the budget's cap, the stored run.
Status runTextMethod(TextDownstreamContext& c, SeedData& seed, const text_tokens::SeedMixtures::Private& priv,
                     methods::Method m, TextDownstreamReport& report) {
    const double eps = priv.epsilon;
    const std::string method = methods::nameOf(m);
    auto plan = textMethodPlan(m, seed.mixtures, priv);
    if (!plan) return plan.error();
    privacy::Ledger ledger(c.spec.privacy.composition);
    for (const auto& e : plan->mixtureEntries) ledger.record(e);
    const bool onB = plan->finetuneOn == methods::FinetuneData::SplitB;
    const auto& users = onB ? seed.streamsB : seed.streamsTrain;
    const std::string pretrainKey = method + (plan->lambdaPerEpsilon ? "@" + std::to_string(eps) : std::string());
    const train::LmDpParams ft = finetuneParams(c, method, eps, seed.mixtures.seed, plan->finetuneSplit());
    // This run's releases (its λ's entries and the fine-tuning about to run), reserved on the data
    // set's budget before anything is stored; settled when `reservation` goes, at the end.
    auto fine = train::plannedLmDpEntry(ft, static_cast<std::int64_t>(users.size()));
    if (!fine) return Error{method + ", eps " + std::to_string(eps) + ": " + fine.error().message};
    auto reservation = reserveTextRunBudget(c.project, ledger, *fine);
    if (!reservation) return reservation.error();
    std::string released;  // the λ's release, when a run of its own made it
    for (const auto& e : plan->mixtureEntries)
        if (e.spentInRun > 0) released = " (lambda: run " + std::to_string(e.spentInRun) + "'s release, reused here)";
    c.say(method + ", eps " + std::to_string(eps) + ", seed " + std::to_string(seed.mixtures.seed) + ": " +
          (plan->lambda ? "pretraining on the mixture" + released + ", " : "no pretraining, ") +
          "user-level DP fine-tuning on " + std::to_string(users.size()) + " users (split " + ft.split + ")");
    TextDownstreamRun out;
    out.method = method;
    out.seed = seed.mixtures.seed;
    out.epsilon = eps;
    auto run = pipeline::storedRun(
        c.project,
        {method, c.cache.task, eps, static_cast<long long>(seed.mixtures.seed),
         textDownstreamConfig(c, method, *plan, ft)},
        [&](long long id) { return trainTextRun(c, seed, *plan, pretrainKey, users, ft, ledger, id, out); });
    if (!run) return run.error();
    const auto totalPrivacy = ledger.total();
    out.ledgerEpsilon = totalPrivacy.epsilon;
    out.established = totalPrivacy.established;
    out.runId = *run;
    report.runs.push_back(out);
    dpmix::report(c.progress, {"downstream", ++c.done, c.total, method});
    c.say("  test perplexity " + std::to_string(out.testPerplexity) + " (before fine-tuning " +
          std::to_string(out.pretrainedPerplexity) + "), ledger epsilon " +
          (std::isinf(out.ledgerEpsilon) ? std::string("inf: a step was non-private")
                                         : std::to_string(out.ledgerEpsilon)));
    return std::nullopt;
}

bool wanted(const std::vector<double>& epsilons, double eps) {
    return epsilons.empty() || std::find(epsilons.begin(), epsilons.end(), eps) != epsilons.end();
}

}  // namespace

Result<TextDownstreamReport> runTextDownstream(project::ProjectFile& project, const text_tokens::TokenCache& cache,
                                               const std::vector<std::string>& methodNames,
                                               const std::vector<double>& epsilons,
                                               const TextDownstreamSettings& settings, const ProgressCallback& progress,
                                               const CancellationToken& cancel, const pipeline::LogSink& log) {
    std::vector<methods::Method> chosen;
    for (const auto& name : methodNames) {
        auto m = methods::parseMethod(name);
        if (!m) return Error{"text downstream: " + m.error().message};
        chosen.push_back(*m);
    }
    auto hash = projectTokenizerHash(project);
    if (!hash) return hash.error();
    if (*hash != cache.tokenizerSha256)
        return Error{"the token cache was made with tokenizer " + cache.tokenizerSha256.substr(0, 12) +
                     "…, but the project's newest proxies run stored tokenizer " + hash->substr(0, 12) +
                     "…: re-run the mixture stage with --export-tokens"};
    train::TransformerSpecBuilder modelBuilder;
    modelBuilder.vocabulary(cache.vocabulary)
        .layers(settings.model.layers)
        .width(settings.model.width)
        .heads(settings.model.heads)
        .context(settings.model.context);
    auto model = modelBuilder.build();
    if (!model) return model.error();
    if (auto e = train::checkDevice(settings.device)) return *e;
    TextDownstreamContext c{project,
                            project.spec(),
                            cache,
                            settings,
                            progress,
                            cancel,
                            [log](const std::string& line) {
                                if (log) log(line);
                            },
                            *model};
    c.pretrainBase.steps = settings.pretrainSteps;
    c.pretrainBase.batchSize = settings.pretrainBatch;
    c.pretrainBase.learningRate = settings.pretrainLr;
    if (auto p = train::checkLmPretrainParams(c.pretrainBase); !p) return p.error();
    for (const auto& d : cache.publicDomains) c.domains.emplace_back(d.tokens);
    c.testStreams = cache.userStreams(cache.testUsers);
    for (const auto& s : cache.seeds)
        for (const auto& p : s.privateLambdas)
            if (wanted(epsilons, p.epsilon)) c.total += static_cast<long long>(chosen.size());

    TextDownstreamReport report;
    for (const auto& seedMix : cache.seeds) {
        SeedData seed{
            seedMix, cache.userStreams(seedMix.usersB), cache.userStreams(unionOf(seedMix.usersA, seedMix.usersB)), {}};
        for (const auto& priv : seedMix.privateLambdas) {
            if (!wanted(epsilons, priv.epsilon)) continue;
            for (const auto m : chosen) {
                throwIfCancelled(cancel);
                if (auto e = runTextMethod(c, seed, priv, m, report)) return *e;
            }
        }
    }
    return report;
}

}  // namespace dpmix::text_downstream
