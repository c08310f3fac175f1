#include "engine/pipeline/downstream_stage.h"

#include "engine/pipeline/dp_sgd_on_ranks.h"
#include "engine/pipeline/run_storage.h"
#include "engine/privacy/parameters.h"

#include "engine/train/dirichlet_training.h"
#include "engine/train/dp_sgd.h"
#include "engine/train/evaluation.h"
#include "engine/train/model.h"
#include "engine/train/model_spec.h"
#include "engine/train/pretrain.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <span>

namespace dpmix::pipeline {
namespace {

train::ImageView view(const std::vector<float>& pixels, const data::ImageDataset& like, std::size_t count) {
    return {pixels, static_cast<std::int64_t>(count), like.channels, like.height, like.width};
}

std::vector<int> taskLabels(const ImageStudy& study, const std::vector<std::size_t>& indices, std::size_t task) {
    std::vector<int> labels;
    labels.reserve(indices.size());
    for (auto i : indices) labels.push_back(study.sensitiveLabel(i, task) > 0.5f ? 1 : 0);
    return labels;
}

Result<double> testAuc(const train::Model& model, const std::vector<float>& testPixels, const ImageStudy& study,
                       const std::vector<int>& testLabels) {
    auto logits = model.logits(view(testPixels, study.sensitiveImages, testLabels.size()));
    if (!logits) return logits.error();
    const std::vector<double> scores(logits->begin(), logits->end());  // AUC is rank-based: logits suffice
    return train::rocAuc(scores, testLabels);
}

}  // namespace

std::string PretrainCache::key(const Eigen::VectorXd& lambda, std::uint64_t seed, const project::PretrainStage& stage,
                               const std::vector<std::size_t>& excluded) {
    // %a prints doubles exactly, so two λ's share a key only when they are bit-identical.
    std::string k = "seed=" + std::to_string(seed) + ";steps=" + std::to_string(stage.steps) +
                    ";batch=" + std::to_string(stage.batch);
    char buf[64];
    std::snprintf(buf, sizeof buf, ";lr=%a;lambda=", stage.lr);
    k += buf;
    for (Eigen::Index i = 0; i < lambda.size(); ++i) {
        std::snprintf(buf, sizeof buf, "%s%a", i ? "," : "", lambda[i]);
        k += buf;
    }
    if (!excluded.empty()) {
        k += ";excluded=";
        for (std::size_t i = 0; i < excluded.size(); ++i) k += (i ? "," : "") + std::to_string(excluded[i]);
    }
    return k;
}

const PretrainCache::Entry* PretrainCache::find(const std::string& key) const {
    auto it = entries_.find(key);
    return it == entries_.end() ? nullptr : &it->second;
}

void PretrainCache::store(const std::string& key, std::vector<float> weights) {
    entries_[key] = Entry{std::move(weights), 0};
}

void PretrainCache::noteHit(const std::string& key) {
    auto it = entries_.find(key);
    if (it == entries_.end()) return;
    ++it->second.hits;
    ++hits_;
}

Status finetuneUnitRefusal(bool userLevel, const project::FinetuneStage& finetune) {
    if (userLevel && finetune.mechanism == methods::FinetuneMechanism::Dirichlet)
        return Error{
            "finetune.mechanism = \"dirichlet\" cannot protect users: the Dirichlet mechanism's guarantee "
            "is for one example whose label is private, and a user's several examples are not one draw. "
            "Use \"dp-sgd\" (user-level DP-SGD) or set sensitive.user_level to false"};
    if (userLevel && finetune.adamix())
        return Error{
            "finetune.mechanism = \"adamix-r\" cannot protect users: AdaMix-R's accounting is example-level "
            "(add/remove of one example), and a user's several examples are not accounted together. "
            "Use \"dp-sgd\" (user-level DP-SGD) or set sensitive.user_level to false",
            "stages.finetune.mechanism"};
    return std::nullopt;
}

std::vector<std::int64_t> numberUsers(const ImageStudy& study, const std::vector<std::size_t>& indices) {
    std::map<std::string, std::int64_t> number;
    std::vector<std::int64_t> out;
    out.reserve(indices.size());
    for (auto i : indices)
        out.push_back(
            number.emplace(study.grouping.users.at(i), static_cast<std::int64_t>(number.size())).first->second);
    return out;
}

namespace {

// AdaMix-R (docs/ADAMIX.md, "As a study's fine-tuning mechanism"): its shots for this (run seed,
// task), and its parameters and ledger entry for the split's n examples.
Result<FinetunePlan> withAdamixPlan(const ImageStudy& study, const DownstreamRequest& req, std::int64_t units,
                                    FinetunePlan plan) {
    auto shots = drawPublicShots(study, req.task, req.finetune.publicShots, req.seed);
    if (!shots) return shots.error();
    AdamixFinetuneSettings s;
    s.finetune = req.finetune;
    s.privateUnits = units;
    s.split = req.finetuneSplit;
    s.epsilon = req.epsilon;
    s.delta = req.delta;
    s.accountant = req.accountant;
    s.randomness = req.finetuneRandomness;
    s.spentBefore = req.spentBefore;
    s.runSeed = req.seed;
    s.task = study.taskNames.at(req.task);
    auto params = adamixFinetuneParams(s);
    if (!params) return params.error();
    plan.entry = adamixStudyEntry(*params, req.finetune, shots->seed);
    plan.adamix = std::move(params).value();
    plan.shots = std::move(shots).value();
    return plan;
}

// Across ranks (dp_sgd_on_ranks.h) only DP-SGD runs: the Dirichlet mechanism's and AdaMix-R's
// steps have no data-parallel form in the engine (their noise is not one sum's).
Status rankRefusal(const project::FinetuneStage& finetune) {
    const DpSgdOnRanks* onRanks = installedDpSgdOnRanks();
    if (!onRanks || finetune.mechanism == methods::FinetuneMechanism::DpSgd) return std::nullopt;
    return Error{"fine-tuning: --ranks " + std::to_string(onRanks->ranks) + " runs DP-SGD only; " +
                 std::string(methods::traitsOf(finetune.mechanism).label) +
                 " has no data-parallel form (choose stages.finetune.mechanism = \"dp-sgd\", or run "
                 "without --ranks)"};
}

// DP-SGD, example- or user-level, its σ calibrated on the whole budget or (sequential
// composition) on what the earlier stage left.
Result<FinetunePlan> withDpSgdPlan(const ImageStudy& study, const DownstreamRequest& req, std::int64_t units,
                                   FinetunePlan plan) {
    train::DpSgdParamsBuilder builder;
    builder.epsilon(req.epsilon)
        .delta(req.delta)
        .clipNorm(req.finetune.clip)
        .learningRate(req.finetune.lr)
        .expectedBatchSize(static_cast<int>(req.finetune.batch))
        .steps(req.finetune.steps)
        .split(req.finetuneSplit)
        .randomness(req.finetuneRandomness)
        .accountant(req.accountant)
        .maxExamplesPerUser(req.finetune.userGroupSize > 0 ? req.finetune.userGroupSize : kDefaultUserGroupSize);
    // Across ranks the entry names the world size, before anything runs (dp_sgd_on_ranks.h).
    if (const DpSgdOnRanks* onRanks = installedDpSgdOnRanks()) builder.ranks(onRanks->ranks);
    if (!req.spentBefore.empty()) {
        // Sequential composition: the rest of the budget after the earlier stage, by the run's accountant.
        const double q = static_cast<double>(req.finetune.batch) / static_cast<double>(units);
        auto s = privacy::calibrateGaussianSigmaAfter(req.spentBefore, req.epsilon, req.delta, q, req.finetune.steps,
                                                      req.accountant);
        if (!s) return Error{"fine-tuning under sequential composition: " + s.error().message};
        builder.sigma(s->sigma);
    }
    auto params = builder.build();
    if (!params) return Error{"DP-SGD fine-tuning: " + params.error().message};
    auto entry = train::plannedDpSgdEntry(
        *params, units, study.userLevel() ? privacy::PrivacyUnit::User : privacy::PrivacyUnit::Example);
    if (!entry) return Error{"fine-tuning: " + entry.error().message};
    plan.dpSgd = *params;
    plan.entry = std::move(entry).value();
    return plan;
}

}  // namespace

Result<FinetunePlan> planFinetune(const ImageStudy& study, const DownstreamRequest& req) {
    if (auto refusal = finetuneUnitRefusal(study.userLevel(), req.finetune)) return *refusal;
    FinetunePlan plan;
    // User level: the users of the fine-tuning images, numbered 0..m-1; q counts users.
    if (study.userLevel()) plan.userOfImage = numberUsers(study, req.finetuneIndices);
    const std::int64_t units =
        study.userLevel()
            ? (plan.userOfImage.empty() ? 0 : *std::max_element(plan.userOfImage.begin(), plan.userOfImage.end()) + 1)
            : static_cast<std::int64_t>(req.finetuneIndices.size());
    if (units == 0)
        return Error{"fine-tuning: the split has no " + std::string(study.userLevel() ? "user" : "example")};
    if (auto refusal = rankRefusal(req.finetune)) return *refusal;
    if (req.finetune.adamix()) return withAdamixPlan(study, req, units, std::move(plan));
    if (req.finetune.batch > units)
        return Error{"stages.finetune.batch = " + std::to_string(req.finetune.batch) + " exceeds the " +
                     std::to_string(units) + (study.userLevel() ? " users" : " examples") + " of fine-tuning split " +
                     req.finetuneSplit + ": the sampling rate q = batch / n must be <= 1"};
    if (!req.spentBefore.empty() && req.finetune.mechanism == methods::FinetuneMechanism::Dirichlet)
        return Error{
            "fine-tuning: sequential composition with the Dirichlet mechanism is not supported (its RDP "
            "bound is not calibrated against an earlier stage): choose parallel composition or DP-SGD"};
    if (req.finetune.mechanism == methods::FinetuneMechanism::Dirichlet) {
        auto params = train::DirichletParamsBuilder()
                          .epsilon(req.epsilon)
                          .delta(req.delta)
                          .learningRate(req.finetune.lr)
                          .expectedBatchSize(static_cast<int>(req.finetune.batch))
                          .steps(req.finetune.steps)
                          .split(req.finetuneSplit)
                          .randomness(req.finetuneRandomness)
                          .build();
        if (!params) return Error{"Dirichlet fine-tuning: " + params.error().message};
        auto entry = train::plannedDirichletEntry(*params, units);
        if (!entry) return Error{"fine-tuning: " + entry.error().message};
        plan.dirichlet = *params;
        plan.entry = std::move(entry).value();
        return plan;
    }
    return withDpSgdPlan(study, req, units, std::move(plan));
}

namespace {

// Pretraining on the public data mixed by λ (public only: no privacy cost), on `rows` of the
// public images (all of them unless `subset`: AdaMix-R's shots are held out).
Result<train::Model> pretrainOnPublicMixture(const ImageStudy& study, const DownstreamRequest& req,
                                             const train::ModelSpec& spec, const std::vector<std::size_t>& rows,
                                             bool subset, const ProgressCallback& progress,
                                             const CancellationToken& cancel) {
    const auto& pub = study.publicImages;
    const long long n = static_cast<long long>(rows.size());
    const int epochs = static_cast<int>(std::max<long long>(1, (req.pretrain.steps * req.pretrain.batch + n - 1) / n));
    auto params = train::SupervisedParamsBuilder()
                      .epochs(epochs)
                      .batchSize(static_cast<int>(req.pretrain.batch))
                      .learningRate(req.pretrain.lr)
                      .optimizer(train::OptimizerKind::Sgd)
                      .seed(req.seed)
                      .device(req.device)
                      .build();
    if (!params) return Error{"pretraining: " + params.error().message};
    const std::vector<double> lambda(req.lambda->data(), req.lambda->data() + req.lambda->size());
    const int k = static_cast<int>(study.components());
    // Every public image, or all but the held-out shots (a copy only then).
    std::vector<float> keptPixels, keptLabels;
    std::vector<std::size_t> keptSource;
    if (subset) {
        keptPixels = gatherImages(pub, rows);
        keptLabels.reserve(rows.size() * static_cast<std::size_t>(k));
        for (auto j : rows) {
            keptLabels.insert(keptLabels.end(), pub.labels.begin() + static_cast<std::ptrdiff_t>(j * pub.numLabels()),
                              pub.labels.begin() + static_cast<std::ptrdiff_t>((j + 1) * pub.numLabels()));
            if (study.multiSource()) keptSource.push_back(study.publicImageSource[j]);
        }
    }
    const auto images = subset ? view(keptPixels, pub, rows.size()) : view(pub.pixels, pub, pub.size());
    const std::span<const float> labels =
        subset ? std::span<const float>(keptLabels) : std::span<const float>(pub.labels);
    const std::span<const std::size_t> imageSource =
        subset ? std::span<const std::size_t>(keptSource) : std::span<const std::size_t>(study.publicImageSource);
    auto pretrainProgress = [&](const ProgressEvent& e) { report(progress, {"pretrain", e.done, e.total, e.message}); };
    // Several sources: the images are importance-weighted by their source's λ mass.
    auto pretrained =
        study.multiSource()
            ? train::pretrainOnSourceMixture(images, labels, k, study.componentSource, imageSource, lambda, spec,
                                             *params, pretrainProgress, cancel)
            : train::pretrainOnMixture(images, labels, k, lambda, spec, *params, pretrainProgress, cancel);
    if (!pretrained) return Error{"pretraining: " + pretrained.error().message};
    return pretrained;
}

// AdaMix-R: the (pretrained, or for Random Init the initial) model is a frozen feature extractor;
// the fine-tuned model is it with AdaMix-R's head on its penultimate features.
Result<DownstreamOutcome> finishWithAdamix(train::Model& model, const ImageStudy& study, const DownstreamRequest& req,
                                           const FinetunePlan& plan, DownstreamOutcome out, privacy::Ledger& ledger,
                                           const ProgressCallback& progress, const CancellationToken& cancel) {
    auto ft = runAdamixFinetune(model, study, req.task, plan.shots, req.finetuneIndices, *plan.adamix, plan.entry,
                                ledger, progress, cancel);
    if (!ft) return Error{"fine-tuning: " + ft.error().message};
    out.finetuneSteps = ft->result.mechanismInvocations;
    out.noise = ft->result.sigma;
    out.testAuc = ft->testAuc;
    out.weights = model.parameters();
    out.shotRows = plan.shots.rows;
    out.shotSeed = plan.shots.seed;
    out.head = std::move(ft->head);
    out.featureDim = ft->featureDim;
    for (int r : ft->result.subspaceRanks) out.adamixRank = std::max(out.adamixRank, r);
    return out;
}

// Whether the pretrained model collapsed (train::pretrainingCollapse on the public images: no
// privacy cost), into out; an error when its outputs are not finite (nothing to fine-tune from).
Status checkPretrained(const train::Model& model, const data::ImageDataset& pub, DownstreamOutcome& out) {
    auto collapse = train::pretrainingCollapse(model, view(pub.pixels, pub, pub.size()));
    if (!collapse) return collapse.error();
    out.pretrainingCollapse = std::move(collapse).value();
    if (out.pretrainingCollapse.rfind(train::kNonFiniteOutputs, 0) == 0)
        return Error{"pretraining diverged (" + out.pretrainingCollapse + "): lower stages.pretrain.lr"};
    return std::nullopt;
}

}  // namespace

Result<train::ModelSpec> downstreamModelSpec(const ImageStudy& study) {
    const auto& pub = study.publicImages;
    train::ModelKind kind = train::ModelKind::SmallCnn;
    if (!train::parseModelKind(study.downstreamModel, kind))
        return Error{"downstream model: \"" + study.downstreamModel + "\" is not a model kind"};
    train::ModelSpecBuilder builder;
    builder.kind(kind).input(pub.channels, pub.height, pub.width).outputs(1);
    if (kind == train::ModelKind::ResNet18) builder.resnetWidth(study.resnetWidth);
    auto spec = builder.build();
    if (!spec) return Error{"downstream model: " + spec.error().message};
    return spec;
}

Result<DownstreamOutcome> runDownstream(const ImageStudy& study, const DownstreamRequest& req, privacy::Ledger& ledger,
                                        const ProgressCallback& progress, const CancellationToken& cancel) {
    const auto& pub = study.publicImages;
    auto spec = downstreamModelSpec(study);
    if (!spec) return spec.error();

    // The fine-tuning mechanism and its ledger entry are settled before any work: a refusal
    // (unit, budget) costs nothing.
    auto plan = planFinetune(study, req);
    if (!plan) return plan.error();
    if (req.beforePrivateWork) {
        privacy::Ledger planned = ledger;
        planned.record(plan->entry);
        if (auto err = req.beforePrivateWork(planned)) return *err;
    }

    DownstreamOutcome out;
    const auto& testIdx = study.sensitiveSplit.test;
    const auto testPixels = gatherImages(study.sensitiveImages, testIdx);
    const auto testLabels = taskLabels(study, testIdx, req.task);

    // Pretraining on the public data mixed by λ (public only: no privacy cost).
    train::Model model = train::Model::create(*spec, req.seed, req.device);
    out.pretrainedTestAuc = std::nan("");
    if (req.lambda) {
        // AdaMix-R's shots are held out of pretraining: the extractor never trained on them.
        std::vector<std::size_t> excluded = plan->shots.rows;
        std::sort(excluded.begin(), excluded.end());
        out.pretrainRows = publicRowsWithout(pub.size(), excluded);
        const std::string cacheKey =
            req.pretrainCache ? PretrainCache::key(*req.lambda, req.seed, req.pretrain, excluded) : std::string();
        const PretrainCache::Entry* cached = req.pretrainCache ? req.pretrainCache->find(cacheKey) : nullptr;
        if (cached) {
            if (auto err = model.setParameters(cached->weights)) return Error{"pretraining cache: " + err->message};
            req.pretrainCache->noteHit(cacheKey);
            out.pretrainingReused = true;
        } else {
            auto pretrained =
                pretrainOnPublicMixture(study, req, *spec, out.pretrainRows, !excluded.empty(), progress, cancel);
            if (!pretrained) return pretrained.error();
            model = std::move(pretrained).value();
            if (req.pretrainCache) req.pretrainCache->store(cacheKey, model.parameters());
        }
        if (auto err = checkPretrained(model, pub, out)) return *err;
        auto auc = testAuc(model, testPixels, study, testLabels);
        if (auc) out.pretrainedTestAuc = *auc;
    }

    if (plan->adamix) return finishWithAdamix(model, study, req, *plan, std::move(out), ledger, progress, cancel);

    // Private fine-tuning on the method's split.
    const auto ftPixels = gatherImages(study.sensitiveImages, req.finetuneIndices);
    const auto ftLabels = taskLabels(study, req.finetuneIndices, req.task);
    const auto ftView = view(ftPixels, study.sensitiveImages, req.finetuneIndices.size());
    auto ftProgress = [&](const ProgressEvent& e) { report(progress, {"finetune", e.done, e.total, e.message}); };
    Result<train::FinetuneResult> ft = Error{""};
    if (plan->dirichlet)
        ft = train::finetuneDirichlet(model, ftView, ftLabels, *plan->dirichlet, ledger, ftProgress, cancel);
    else if (const DpSgdOnRanks* onRanks = installedDpSgdOnRanks())
        ft = onRanks->finetune(model, ftView, ftLabels, plan->userOfImage, *plan->dpSgd, ledger, ftProgress, cancel);
    else if (study.userLevel())
        ft = train::finetuneUserLevelDpSgd(model, ftView, ftLabels, plan->userOfImage, *plan->dpSgd, ledger, ftProgress,
                                           cancel);
    else
        ft = train::finetuneDpSgd(model, ftView, ftLabels, *plan->dpSgd, ledger, ftProgress, cancel);
    if (!ft) return Error{"fine-tuning: " + ft.error().message};
    out.finetuneSteps = ft->steps;
    out.noise = ft->noise;
    out.clippedFraction = ft->clippedFraction;
    for (std::size_t t = 0; t < ft->stepLoss.size(); ++t)
        if (std::isfinite(ft->stepLoss[t]))
            out.finetuneLoss.push_back({static_cast<long long>(t + 1), ft->stepLoss[t]});

    auto auc = testAuc(model, testPixels, study, testLabels);
    if (!auc) return Error{"evaluation: " + auc.error().message};
    out.testAuc = *auc;
    out.weights = model.parameters();
    return out;
}

}  // namespace dpmix::pipeline
