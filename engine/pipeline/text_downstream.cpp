#include "engine/pipeline/text_downstream.h"

#include "engine/pipeline/release_randomness.h"
#include "engine/pipeline/run_storage.h"
#include "engine/privacy/ledger_json.h"
#include "engine/privacy/privacy_budget.h"
#include "engine/project/project_budget.h"
#include "engine/train/lm_training.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>

namespace dpmix::pipeline {
namespace {

// The cap of privacy.budget for one text downstream run: its λ's entries and its planned
// fine-tuning, composed with the project's releases. Counted as the stored run will be: its
// config names no ρ split, so its entries count against everyone (conservative). A run with a
// non-private step is no release and is not counted.
std::optional<Error> refuseTextRunOverBudget(const project::ProjectFile& project, const privacy::Ledger& ledger,
                                             const privacy::LedgerEntry& finetune) {
    std::vector<privacy::BudgetRelease> planned;
    for (const auto& e : ledger.entries()) {
        if (e.mechanism == privacy::MechanismKind::NonPrivate) return std::nullopt;
        planned.push_back({0, "planned", "", e});
    }
    planned.push_back({0, "planned", "", withSenderAddressUnit(finetune)});
    auto current = project::projectBudget(project);
    if (!current) return current.error();
    return project::refuseOverBudget(*current, planned);
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
    return Error{"no finished text-proxies run with a tokenizer in " + project.path().string() + ": run the proxies stage first"};
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
    return s;
}

Result<TextDownstreamReport> runTextDownstream(project::ProjectFile& project, const TokenCache& cache,
                                               const std::vector<std::string>& methods, const std::vector<double>& epsilons,
                                               const TextDownstreamSettings& settings, const ProgressCallback& progress,
                                               const CancellationToken& cancel, const LogSink& log) {
    auto say = [&](const std::string& line) { if (log) log(line); };
    const auto& spec = project.spec();
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
    train::LmPretrainParams pretrainBase;
    pretrainBase.steps = settings.pretrainSteps;
    pretrainBase.batchSize = settings.pretrainBatch;
    pretrainBase.learningRate = settings.pretrainLr;
    if (auto p = train::checkLmPretrainParams(pretrainBase); !p) return p.error();

    train::TokenStreams domains;
    for (const auto& d : cache.publicDomains) domains.emplace_back(d.tokens);
    const auto testStreams = cache.userStreams(cache.testUsers);
    const auto test = spans(testStreams);

    TextDownstreamReport report;
    long long total = 0, done = 0;
    for (const auto& s : cache.seeds)
        for (const auto& p : s.privateLambdas)
            if (epsilons.empty() || std::find(epsilons.begin(), epsilons.end(), p.epsilon) != epsilons.end())
                total += static_cast<long long>(methods.size());

    for (const auto& seedMix : cache.seeds) {
        const auto trainUsers = unionOf(seedMix.usersA, seedMix.usersB);
        const auto streamsB = cache.userStreams(seedMix.usersB);
        const auto streamsTrain = cache.userStreams(trainUsers);
        std::map<std::string, std::vector<float>> pretrained;  // same λ, same seed → same model
        for (const auto& priv : seedMix.privateLambdas) {
            const double eps = priv.epsilon;
            if (!epsilons.empty() && std::find(epsilons.begin(), epsilons.end(), eps) == epsilons.end()) continue;
            for (const auto& method : methods) {
                throwIfCancelled(cancel);
                privacy::Ledger ledger(spec.privacy.composition);
                std::optional<std::vector<double>> lambda;
                std::string lambdaKind, split = "train", pretrainKey = method;
                const std::vector<std::vector<std::int32_t>>* users = &streamsTrain;
                if (method == "dp-mixmin") {
                    auto mixLedger = privacy::ledgerFromJson(priv.ledgerJson);
                    if (!mixLedger) return Error{"token cache, seed " + std::to_string(seedMix.seed) + ": " + mixLedger.error().message};
                    for (const auto& e : mixLedger->entries()) ledger.record(e);
                    lambda = priv.lambda;
                    lambdaKind = "private";
                    users = &streamsB;
                    split = "B";
                    pretrainKey += "@" + std::to_string(eps);
                } else if (method == "random-search") {
                    ledger.record(randomSearchEntry());
                    lambda = seedMix.lambdaRandomSearch;
                    lambdaKind = "random-search";
                    users = &streamsB;
                    split = "B";
                } else if (method == "non-private-mixmin") {
                    ledger.record(lambdaStarEntry());
                    lambda = seedMix.lambdaStar;
                    lambdaKind = "non-private";
                } else if (method == "uniform") {
                    lambda = seedMix.lambdaUniform;
                    lambdaKind = "uniform";
                } else if (method != "random-init") {
                    return Error{"text downstream: unknown method '" + method + "'"};
                }
                train::LmDpParams ft;
                ft.epsilon = eps;
                ft.delta = spec.privacy.delta;
                ft.clipNorm = settings.clip;
                ft.learningRate = settings.finetuneLr;
                ft.expectedUsers = settings.finetuneUsers;
                ft.steps = settings.finetuneSteps;
                ft.trainLastBlocks = settings.trainLastBlocks;
                ft.split = split;
                ft.randomness = releaseRandomness(settings.reproducible, seedMix.seed,
                                                  releaseIdentity("finetune", method, cache.task, eps, seedMix.seed));
                ft.evaluateEvery = settings.evaluateEvery;
                nlohmann::ordered_json config{
                    {"stage", "downstream"}, {"method", method}, {"model", "causal-transformer"},
                    {"layers", model->layers}, {"width", model->width}, {"heads", model->heads},
                    {"context", model->context}, {"vocabulary", model->vocabulary},
                    {"pretrain_steps", lambda ? settings.pretrainSteps : 0}, {"pretrain_batch", settings.pretrainBatch},
                    {"pretrain_lr", settings.pretrainLr}, {"pretrain_sampling", "domain by lambda, then a uniform window of the domain's token stream"},
                    {"finetune_split", split}, {"privacy_unit", "user"}, {"windows_per_user", 1},
                    {"finetune_steps", ft.steps}, {"finetune_users_per_step", ft.expectedUsers}, {"finetune_lr", ft.learningRate},
                    {"finetune_optimizer", "adam"}, {"clip", ft.clipNorm}, {"train_last_blocks", ft.trainLastBlocks},
                    {"delta", ft.delta}, {"evaluation_tokens", settings.evaluationTokens},
                    {"tokenizer_sha256", cache.tokenizerSha256},
                    {"randomness", settings.reproducible ? "seeded" : "secret"}};
                // The privacy budget's cap: this run's releases (its λ's entries and the fine-tuning
                // about to run) against what the project has spent, before anything is stored.
                if (spec.privacy.budget) {
                    auto fine = train::plannedLmDpEntry(ft, static_cast<std::int64_t>(users->size()));
                    if (!fine) return Error{method + ", eps " + std::to_string(eps) + ": " + fine.error().message};
                    if (auto e = refuseTextRunOverBudget(project, ledger, *fine)) return *e;
                }
                say(method + ", eps " + std::to_string(eps) + ", seed " + std::to_string(seedMix.seed) + ": " +
                    (lambda ? "pretraining on the mixture, " : "no pretraining, ") + "user-level DP fine-tuning on " +
                    std::to_string(users->size()) + " users (split " + split + ")");
                TextDownstreamRun out;
                out.method = method;
                out.seed = seedMix.seed;
                out.epsilon = eps;
                std::vector<project::CurvePoint> curve;
                auto run = storedRun(project, {method, cache.task, eps, static_cast<long long>(seedMix.seed), config.dump()},
                    [&](long long id) -> std::optional<Error> {
                        train::CausalLm lm = train::CausalLm::create(*model, seedMix.seed * 1000003 + 11);
                        if (lambda) {
                            if (auto it = pretrained.find(pretrainKey); it != pretrained.end()) {
                                if (auto e = lm.setParameters(it->second)) return e;
                            } else {
                                train::LmPretrainParams pp = pretrainBase;
                                pp.seed = seedMix.seed * 104729 + 3;
                                auto loss = train::pretrainCausalLm(lm, domains, *lambda, pp, progress, cancel);
                                if (!loss) return loss.error();
                                pretrained[pretrainKey] = lm.parameters();
                            }
                        }
                        std::optional<Error> evalError;
                        auto evaluate = [&](long long step) {
                            auto ppl = train::causalLmPerplexity(lm, test, settings.evaluationTokens);
                            if (!ppl) { evalError = ppl.error(); return; }
                            curve.push_back({step, *ppl});
                            say("  step " + std::to_string(step) + ": test perplexity " + std::to_string(*ppl));
                        };
                        auto ft_ = train::finetuneCausalLmDpSgd(lm, spans(*users), ft, ledger, evaluate, progress, cancel);
                        if (!ft_) return ft_.error();
                        if (evalError) return evalError;
                        if (curve.size() < 2) {  // evaluation every K steps was off: evaluate the end
                            evaluate(ft.steps);
                            if (evalError) return evalError;
                        }
                        out.testPerplexity = curve.back().value;
                        out.pretrainedPerplexity = curve.front().step == 0 ? curve.front().value : NAN;
                        out.sigma = ft_->sigma;
                        out.q = ft_->q;
                        out.finetuneUsers = static_cast<long long>(users->size());
                        ledger = withSenderAddressUnit(ledger);  // every entry here is at user level
                        if (auto e = errorOf(project.recordLedger(id, ledger))) return e;
                        if (lambda)
                            if (auto e = errorOf(project.addLambda({id, lambdaKind, cache.domains, *lambda}))) return e;
                        // The clipped fraction is a non-private statistic of split B: not stored.
                        std::vector<project::MetricRecord> metrics{{id, "test-perplexity", "", out.testPerplexity},
                                                                   {id, "finetune-noise", "", ft_->sigma}};
                        if (std::isfinite(out.pretrainedPerplexity))
                            metrics.push_back({id, "pretrained-test-perplexity", "", out.pretrainedPerplexity});
                        if (auto e = errorOf(project.addMetrics(metrics))) return e;
                        if (auto e = errorOf(project.addCurve(id, "test-perplexity", curve))) return e;
                        auto stored = project.storeWeights(id, "finetuned", lm.parameters());
                        if (!stored) return stored.error();
                        return std::nullopt;
                    });
                if (!run) return run.error();
                const auto totalPrivacy = ledger.total();
                out.ledgerEpsilon = totalPrivacy.epsilon;
                out.established = totalPrivacy.established;
                out.runId = *run;
                report.runs.push_back(out);
                dpmix::report(progress, {"downstream", ++done, total, method});
                say("  test perplexity " + std::to_string(out.testPerplexity) + " (before fine-tuning " +
                    std::to_string(out.pretrainedPerplexity) + "), ledger epsilon " +
                    (std::isinf(out.ledgerEpsilon) ? std::string("inf: a step was non-private") : std::to_string(out.ledgerEpsilon)));
            }
        }
    }
    return report;
}

}  // namespace dpmix::pipeline
