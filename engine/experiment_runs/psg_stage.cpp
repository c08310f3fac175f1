#include "engine/experiment_runs/psg_stage.h"

#include "engine/experiment_runs/psg_identity.h"

#include "engine/core/seed_derivation.h"
#include "engine/data/portable_random.h"
#include "engine/data/splits.h"
#include "engine/experiment_runs/psg_identity.h"
#include "engine/pipeline/release_randomness.h"
#include "engine/pipeline/run_storage.h"
#include "engine/pipeline/sensitive_split.h"
#include "engine/privacy/parameters.h"
#include "engine/project/declared_labels.h"
#include "engine/project/project_budget.h"
#include "engine/project/study_seed.h"
#include "engine/psg/set_evaluation.h"
#include "engine/train/dp_sgd.h"
#include "engine/train/evaluation.h"
#include "engine/train/model.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <random>

namespace dpmix::experiment_runs {
namespace {

// Stream of the random real subset's choice (the evaluation's reference, not a release).
constexpr std::uint64_t kRealSubsetStream = 0x7073672d73756273ULL;  // "psg-subs"

struct ClassifiedImages {
    data::ImageDataset images;
    std::vector<int> classOf;  // one class per image
    std::vector<std::string> classNames;
    data::ThreeWaySplit split;
};

// The sensitive source as classes (its loader's own labels, not the spec's derived tasks).
Result<ClassifiedImages> loadClassified(const project::ProjectFile& project, std::uint64_t studySeed,
                                        const ProgressCallback& progress, const CancellationToken& cancel) {
    const auto& spec = project.spec();
    if (spec.sensitive.userLevel)
        return Error{
            "sensitive.user_level = true: PSG protects one example (add/remove one image), not a user with "
            "all their images; run it on an example-level study",
            "unit"};
    auto sources = project.sources();
    if (!sources) return sources.error();
    const project::SourceRecord* sensitive = nullptr;
    for (const auto& s : *sources)
        if (s.role == project::SourceRole::Sensitive) sensitive = &s;
    if (!sensitive) return Error{"the project registers no sensitive source"};
    if (auto undeclared = project::refuseUndeclaredLabels(spec.sensitive.written)) return *undeclared;
    if (sensitive->facts.kind != data::SourceKind::Images)
        return Error{"sensitive source '" + sensitive->name + "' is " + data::nameOf(sensitive->facts.kind) +
                     " data: PSG generates images and needs an image source"};
    data::LoadControl control{progress, cancel};
    auto loaded = data::loadImageSource(data::SourceSpec{sensitive->name, sensitive->loader, sensitive->path,
                                                         pipeline::sourceOptions(spec, sensitive->name)},
                                        control);
    if (!loaded) return Error{"sensitive source '" + sensitive->name + "': " + loaded.error().message};
    ClassifiedImages out;
    out.images = std::move(loaded).value();
    const std::size_t n = out.images.size(), classes = out.images.numLabels();
    if (classes < 2)
        return Error{"sensitive source '" + sensitive->name + "' has " + std::to_string(classes) +
                     " label(s): PSG needs a classification with at least 2 classes"};
    out.classOf.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        int set = 0, which = -1;
        for (std::size_t c = 0; c < classes; ++c) {
            const bool known = out.images.labelMask.empty() || out.images.labelMask[i * classes + c] != 0;
            if (!known)
                return Error{"sensitive source '" + sensitive->name + "': image " + std::to_string(i) +
                             " has an unknown label: PSG needs exactly one known class per image"};
            if (out.images.labels[i * classes + c] > 0.5f) {
                ++set;
                which = static_cast<int>(c);
            }
        }
        if (set != 1)
            return Error{"sensitive source '" + sensitive->name + "': image " + std::to_string(i) + " has " +
                         std::to_string(set) +
                         " classes set: PSG needs class labels, exactly one class per image (a classification "
                         "source such as idx or mnist-json without the 'tasks' option)"};
        out.classOf[i] = which;
    }
    out.classNames = out.images.labelNames;
    // The study's split (same seed, same rows as every run of the project evaluates on).
    auto split = pipeline::sensitiveSplitOfSource(out.images, spec, sensitive->name, studySeed);
    if (!split) return Error{"splitting sensitive source '" + sensitive->name + "': " + split.error().message};
    out.split = std::move(split).value();
    return out;
}

struct LabelledImages {
    std::vector<float> pixels;
    std::vector<int> labels;
    int channels = 0, height = 0, width = 0;
    train::ImageView view() const {
        return {pixels, static_cast<std::int64_t>(labels.size()), channels, height, width};
    }
};

LabelledImages subsetOf(const ClassifiedImages& c, const std::vector<std::size_t>& indices) {
    LabelledImages out{
        pipeline::gatherImages(c.images, indices), {}, c.images.channels, c.images.height, c.images.width};
    out.labels.reserve(indices.size());
    for (std::size_t i : indices) out.labels.push_back(c.classOf[i]);
    return out;
}

// spc random images of each class from the training split: the non-private ceiling at S's size.
std::vector<std::size_t> randomRealSubset(const ClassifiedImages& c, int imagesPerClass, std::uint64_t seed) {
    std::vector<std::vector<std::size_t>> byClass(c.classNames.size());
    for (std::size_t i : c.split.train) byClass[static_cast<std::size_t>(c.classOf[i])].push_back(i);
    std::mt19937_64 gen(seeds::mix(seed, kRealSubsetStream));
    std::vector<std::size_t> out, picked;
    for (const auto& pool : byClass) {
        data::sampleWithoutReplacement(pool, static_cast<std::size_t>(imagesPerClass), gen, picked);
        out.insert(out.end(), picked.begin(), picked.end());
    }
    return out;
}

train::ModelSpec convNetSpec(const psg::PsgParams& p, const LabelledImages& like, int classes) {
    train::ModelSpec s;
    s.kind = train::ModelKind::ConvNet;
    s.channels = like.channels;
    s.height = like.height;
    s.width = like.width;
    s.outputs = classes;
    s.convNetWidth = p.networkWidth;
    s.convNetDepth = p.networkDepth;
    return s;
}

train::ModelSpec mlpSpec(const LabelledImages& like, int classes) {
    train::ModelSpec s;
    s.kind = train::ModelKind::Mlp;
    s.channels = like.channels;
    s.height = like.height;
    s.width = like.width;
    s.outputs = classes;
    s.mlpHidden = {128, 128};  // the dataset-condensation MLP PSG evaluates with
    return s;
}

Result<PsgAccuracyRow> accuracyRow(const std::string& key, const std::string& label, const train::ModelSpec& spec,
                                   const train::ImageView& trainOn, std::span<const int> trainLabels,
                                   const LabelledImages& test, const psg::PsgParams& p, int evaluations, int epochs,
                                   std::uint64_t seed, const ProgressCallback& progress,
                                   const CancellationToken& cancel) {
    PsgAccuracyRow row{key, label, {}, 0.0, 0.0};
    for (int e = 0; e < evaluations; ++e) {
        report(progress, {"evaluate", e, evaluations, label + ": training " + std::to_string(e + 1)});
        psg::SetTrainingParams tp;
        tp.epochs = epochs;
        tp.pixelMean = p.pixelMean;
        tp.pixelStd = p.pixelStd;
        tp.seed = seeds::mix(seed, static_cast<std::uint64_t>(e));
        tp.device = p.device;
        auto acc = psg::accuracyAfterTrainingOn(spec, trainOn, trainLabels, test.view(), test.labels, tp, cancel);
        if (!acc) return Error{label + ": " + acc.error().message};
        row.values.push_back(*acc);
    }
    auto summary = train::meanAndStd(row.values);
    if (!summary) return summary.error();
    row.mean = summary->mean;
    row.std = summary->std;
    return row;
}

std::vector<project::MetricRecord> metricsOf(long long runId, const PsgAccuracyRow& row) {
    std::vector<project::MetricRecord> out;
    for (std::size_t i = 0; i < row.values.size(); ++i)
        out.push_back({runId, row.key, "training-" + std::to_string(i + 1), row.values[i]});
    return out;
}

nlohmann::json paramsJson(const psg::PsgParams& p, const ClassifiedImages& data) {
    nlohmann::json j;
    j["stage"] = "psg";
    j["images_per_class"] = p.imagesPerClass;
    j["iterations"] = p.iterations;
    j["outer_loop"] = p.loops().outer;
    j["inner_loop"] = p.loops().inner;
    j["batch_loop"] = p.batchLoop;
    j["compositions"] = p.compositions();
    j["device"] = p.device;
    j["epsilon"] = p.epsilon;
    j["delta"] = p.delta;
    j["accountant"] = privacy::toString(p.accountant);
    j["clip"] = p.clipNorm;
    j["batch"] = p.expectedBatchSize;
    j["lr_image"] = p.imageLearningRate;
    j["momentum_image"] = p.imageMomentum;
    j["lr_network"] = p.networkLearningRate;
    j["network"] = "convnet";
    j["network_width"] = p.networkWidth;
    j["network_depth"] = p.networkDepth;
    j["pixel_mean"] = p.pixelMean;
    j["pixel_std"] = p.pixelStd;
    j["seed"] = p.seed;
    j["randomness"] = privacy::toString(p.randomness.mode);
    j["classes"] = data.classNames;
    j["channels"] = data.images.channels;
    j["height"] = data.images.height;
    j["width"] = data.images.width;
    j["train_examples"] = data.split.train.size();
    j["test_examples"] = data.split.test.size();
    return j;
}

}  // namespace

Status checkPsgValues(const PsgStageOptions& o) {
    if (auto e = train::checkDevice(o.device)) return e;
    if (o.imagesPerClass) {
        // The field leads the message (the CLI prints "--spc = 7 …"); the set's own check words it for the spec.
        if (!psg::loopsForImagesPerClass(*o.imagesPerClass))
            return Error{"spc = " + std::to_string(*o.imagesPerClass) +
                             " is not supported: expected 1, 10, 20 or 50 images per class (the values the method "
                             "defines its loops for)",
                         "spc"};
    }
    if (o.iterations && (*o.iterations < 1 || *o.iterations > 1'000'000))
        return Error{"iterations = " + std::to_string(*o.iterations) + " is out of range: expected 1 to 1e6",
                     "iterations"};
    if (o.epsilon && !(*o.epsilon > 0.0 && std::isfinite(*o.epsilon)))
        return Error{
            "epsilon = " + privacy::formatNumber(*o.epsilon) + " is out of range: expected a finite number > 0",
            "epsilon"};
    if (o.evaluations && (*o.evaluations < 1 || *o.evaluations > 100))
        return Error{"evaluations = " + std::to_string(*o.evaluations) + " is out of range: expected 1 to 100",
                     "evaluations"};
    if (o.evaluationEpochs && (*o.evaluationEpochs < 1 || *o.evaluationEpochs > 100'000))
        return Error{
            "evaluation-epochs = " + std::to_string(*o.evaluationEpochs) + " is out of range: expected 1 to 1e5",
            "evaluation-epochs"};
    if (o.dpSgdSteps && (*o.dpSgdSteps < 0 || *o.dpSgdSteps > 10'000'000))
        return Error{"dp-sgd-steps = " + std::to_string(*o.dpSgdSteps) + " is out of range: expected 0 to 1e7",
                     "dp-sgd-steps"};
    return std::nullopt;
}

Result<psg::PsgParams> psgParamsFor(const project::ProjectSpec& spec, const PsgStageOptions& o) {
    if (auto e = checkPsgValues(o)) return *e;
    const project::PsgSection g = spec.psg.value_or(project::PsgSection{});
    const bool reproducible = o.reproducible.value_or(spec.privacy.reproducible);
    const double epsilon = o.epsilon.value_or(spec.privacy.epsilons.empty() ? 10.0 : spec.privacy.epsilons.front());
    psg::PsgParamsBuilder b;
    b.imagesPerClass(o.imagesPerClass.value_or(static_cast<int>(g.imagesPerClass)))
        .iterations(static_cast<int>(o.iterations.value_or(g.iterations)))
        .batchLoop(static_cast<int>(g.batchLoop))
        .epsilon(epsilon)
        .delta(spec.privacy.delta)
        .accountant(o.accountant.value_or(spec.privacy.accountant))
        .clipNorm(g.clip)
        .expectedBatchSize(static_cast<int>(g.batch))
        .imageLearningRate(g.lrImage)
        .imageMomentum(g.momentumImage)
        .networkLearningRate(g.lrNetwork)
        .network(static_cast<int>(g.networkWidth), static_cast<int>(g.networkDepth))
        .pixelNormalisation(g.pixelMean, g.pixelStd)
        .seed(o.seed);
    auto built = b.build();
    if (!built) return built.error();
    psg::PsgParams params = std::move(built).value();
    params.device = o.device;
    params.randomness = pipeline::releaseRandomness(reproducible, o.seed, psgReleaseIdentity(params));
    return params;
}

namespace {

// What one PSG run works on, resolved from the spec and the options.
struct PsgRun {
    project::ProjectFile& project;
    const PsgStageOptions& options;
    psg::PsgParams params;
    project::PsgSection section;
    int evaluations = 0, epochs = 0;
    long long dpSgdSteps = 0;
    ClassifiedImages data;
    LabelledImages train, test;
    int classes = 0;
    privacy::LedgerEntry planned;             // PSG's release
    std::optional<train::DpSgdParams> dpSgd;  // the DP-SGD reference's, when it runs
    const ProgressCallback& progress;
    const CancellationToken& cancel;
};

// The DP-SGD reference's parameters at PSG's (ε, δ): planned before anything runs, so the budget
// check covers both releases.
Result<std::optional<train::DpSgdParams>> dpSgdReference(const PsgRun& r, const project::ProjectSpec& spec) {
    if (!r.options.references || r.dpSgdSteps <= 0) return std::optional<train::DpSgdParams>{};
    const auto& g = r.section;
    auto dp =
        train::DpSgdParamsBuilder()
            .epsilon(r.params.epsilon)
            .delta(r.params.delta)
            .accountant(r.params.accountant)
            .clipNorm(g.dpSgdClip)
            .learningRate(g.dpSgdLr)
            .momentum(0.9)
            .expectedBatchSize(static_cast<int>(g.batch))
            .steps(r.dpSgdSteps)
            .split("train")
            .randomness(pipeline::releaseRandomness(
                r.options.reproducible.value_or(spec.privacy.reproducible), r.options.seed,
                psgDpSgdReferenceIdentity(r.params, g.dpSgdClip, g.dpSgdLr, static_cast<int>(g.batch), r.dpSgdSteps)))
            .build();
    if (!dp) return dp.error();
    return std::optional<train::DpSgdParams>(*dp);
}

// What this run will release is reserved on the data set's budget (dataset_budget.h) before
// anything is stored: refused over the cap; settled when the reservation goes at the run's end.
Result<project::BudgetReservation> reservePsgBudget(const PsgRun& r) {
    std::vector<privacy::BudgetRelease> releases{{0, "psg (this run), psg on split train", "", r.planned}};
    if (r.dpSgd) {
        auto entry = train::plannedDpSgdEntry(*r.dpSgd, static_cast<std::int64_t>(r.train.labels.size()),
                                              privacy::PrivacyUnit::Example);
        if (!entry) return entry.error();
        releases.push_back({0, "psg-dp-sgd (this run's reference), finetune on split train", "", *entry});
    }
    return project::reserveBudget(r.project, releases, std::nullopt, "dpmix psg");
}

// The PSG run itself: its ledger first (a cancelled or failed run has spent at most this), the
// generated set, its matching curve, and the accuracy rows of the set and of an untrained one.
Status generateAndEvaluate(const PsgRun& r, long long id, const PsgSnapshot& snapshot, PsgStageReport& report) {
    auto& project = r.project;
    privacy::Ledger ledger(project.spec().privacy.composition);
    ledger.record(r.planned);
    if (auto s = project.recordLedger(id, ledger); !s) return s.error();
    privacy::Ledger scratch;
    psg::PsgControl control;
    control.progress = r.progress;
    control.cancel = r.cancel;
    control.snapshot = snapshot;
    control.snapshotEvery = 1;
    auto generated = psg::generatePrivateSet(r.train.view(), r.train.labels, r.classes, r.params, scratch, control);
    if (!generated) return generated.error();
    report.result = std::move(generated).value();
    if (report.result.dpGradientSteps != r.planned.steps)
        return Error{"PSG ran " + std::to_string(report.result.dpGradientSteps) +
                     " DP gradient steps, its ledger says " + std::to_string(r.planned.steps)};
    if (auto s = project.storeWeights(id, kPrivateSetModel, report.result.set.pixels); !s) return s.error();
    std::vector<project::CurvePoint> curve;
    for (std::size_t i = 0; i < report.result.matchLoss.size(); ++i)
        curve.push_back({static_cast<long long>(i + 1), report.result.matchLoss[i]});
    if (auto s = project.addCurve(id, "matching-distance", curve); !s) return s.error();

    const psg::PrivateSet& set = report.result.set;
    const psg::PrivateSet noise = psg::initialPrivateSet(r.classes, set.channels, set.height, set.width, r.params);
    const std::uint64_t evalSeed = seeds::mix(r.options.seed, 0x6576616cULL);  // "eval"
    struct Planned {
        std::string key, label;
        train::ModelSpec spec;
        const psg::PrivateSet* on;
    };
    const std::vector<Planned> rows{
        {"accuracy-convnet", "S (PSG), ConvNet", convNetSpec(r.params, r.train, r.classes), &set},
        {"accuracy-mlp", "S (PSG), MLP", mlpSpec(r.train, r.classes), &set},
        {"accuracy-noise-convnet", "untrained noise S, ConvNet", convNetSpec(r.params, r.train, r.classes), &noise}};
    for (const auto& p : rows) {
        auto row = accuracyRow(p.key, p.label, p.spec, p.on->view(), p.on->labels, r.test, r.params, r.evaluations,
                               r.epochs, evalSeed, r.progress, r.cancel);
        if (!row) return row.error();
        if (auto s = project.addMetrics(metricsOf(id, *row)); !s) return s.error();
        report.rows.push_back(std::move(row).value());
    }
    return std::nullopt;
}

// Reference 1: a random real subset of S's size — non-private, analysis only.
Status storeRealSubsetReference(const PsgRun& r, PsgStageReport& report) {
    const LabelledImages subset = subsetOf(r.data, randomRealSubset(r.data, r.params.imagesPerClass, r.options.seed));
    nlohmann::json c{
        {"stage", "psg-reference"}, {"reference", "random real subset"}, {"images_per_class", r.params.imagesPerClass},
        {"psg_run", report.runId},  {"evaluations", r.evaluations},      {"evaluation_epochs", r.epochs},
        {"device", r.params.device}};
    auto id = pipeline::storedRun(
        r.project, {kPsgRealSubsetMethod, "", std::nullopt, static_cast<long long>(r.options.seed), c.dump()},
        [&](long long rid) -> Status {
            report.realSubsetRunId = rid;
            privacy::Ledger ledger(r.project.spec().privacy.composition);
            ledger.record(privacy::nonPrivateEntry(
                "psg-reference", "train",
                "a random subset of " + std::to_string(subset.labels.size()) +
                    " real training images, trained on without DP: the evaluation's non-private ceiling at S's size; "
                    "analysis only, never a release"));
            if (auto s = r.project.recordLedger(rid, ledger); !s) return s.error();
            auto row =
                accuracyRow("accuracy-convnet", "random real subset, ConvNet",
                            convNetSpec(r.params, r.train, r.classes), subset.view(), subset.labels, r.test, r.params,
                            r.evaluations, r.epochs, seeds::mix(r.options.seed, 0x72656dULL), r.progress, r.cancel);
            if (!row) return row.error();
            if (auto s = r.project.addMetrics(metricsOf(rid, *row)); !s) return s.error();
            report.rows.push_back(std::move(row).value());
            return std::nullopt;
        });
    if (!id) return id.error();
    return std::nullopt;
}

// Reference 2: a ConvNet trained directly by DP-SGD on the training split at the same (ε, δ).
Status storeDpSgdReference(const PsgRun& r, PsgStageReport& report) {
    const train::DpSgdParams& dp = *r.dpSgd;
    const auto& g = r.section;
    nlohmann::json c{{"stage", "psg-reference"}, {"reference", "DP-SGD ConvNet on the real training split"},
                     {"steps", r.dpSgdSteps},    {"clip", g.dpSgdClip},
                     {"lr", g.dpSgdLr},          {"momentum", 0.9},
                     {"batch", g.batch},         {"psg_run", report.runId},
                     {"device", r.params.device}};
    auto id = pipeline::storedRun(
        r.project, {kPsgDpSgdMethod, "", r.params.epsilon, static_cast<long long>(r.options.seed), c.dump()},
        [&](long long rid) -> Status {
            report.dpSgdRunId = rid;
            auto planned = train::plannedDpSgdEntry(dp, static_cast<std::int64_t>(r.train.labels.size()),
                                                    privacy::PrivacyUnit::Example);
            if (!planned) return planned.error();
            privacy::Ledger ledger(r.project.spec().privacy.composition);
            ledger.record(*planned);
            if (auto s = r.project.recordLedger(rid, ledger); !s) return s.error();
            report.dpSgdEpsilon = ledger.total().epsilon;
            train::Model model = train::Model::create(convNetSpec(r.params, r.train, r.classes),
                                                      seeds::mix(r.options.seed, 0x6470ULL), r.params.device);
            privacy::Ledger scratch;
            auto trained =
                train::finetuneDpSgd(model, r.train.view(), r.train.labels, dp, scratch, r.progress, r.cancel);
            if (!trained) return trained.error();
            auto acc = psg::accuracyOf(model, r.test.view(), r.test.labels);
            if (!acc) return acc.error();
            PsgAccuracyRow row{"accuracy-convnet", "DP-SGD on the real data, ConvNet", {*acc}, *acc, 0.0};
            if (auto s = r.project.addMetrics(metricsOf(rid, row)); !s) return s.error();
            report.rows.push_back(std::move(row));
            return std::nullopt;
        });
    if (!id) return id.error();
    return std::nullopt;
}

}  // namespace

Result<PsgStageReport> runPsgStage(project::ProjectFile& project, const PsgStageOptions& options,
                                   const ProgressCallback& progress, const CancellationToken& cancel,
                                   const pipeline::LogSink& log, const PsgSnapshot& snapshot) {
    const auto& spec = project.spec();
    auto params = psgParamsFor(spec, options);
    if (!params) return params.error();
    const project::PsgSection g = spec.psg.value_or(project::PsgSection{});
    if (log) log("loading the sensitive images");
    const std::uint64_t studySeed = project::studySeedOf(spec);
    auto data = loadClassified(project, studySeed, progress, cancel);
    if (!data) return data.error();
    PsgRun r{project,
             options,
             *params,
             g,
             options.evaluations.value_or(static_cast<int>(g.evaluations)),
             options.evaluationEpochs.value_or(static_cast<int>(g.evaluationEpochs)),
             options.dpSgdSteps.value_or(g.dpSgdSteps),
             std::move(data).value(),
             {},
             {},
             0,
             {},
             std::nullopt,
             progress,
             cancel};
    r.train = subsetOf(r.data, r.data.split.train);
    r.test = subsetOf(r.data, r.data.split.test);
    r.classes = static_cast<int>(r.data.classNames.size());
    // Everything PSG checks before its ledger, checked here before any run row exists.
    auto planned = psg::plannedPsgEntry(r.params, static_cast<std::int64_t>(r.train.labels.size()));
    if (!planned) return planned.error();
    r.planned = *planned;
    auto dpSgd = dpSgdReference(r, spec);
    if (!dpSgd) return dpSgd.error();
    r.dpSgd = *dpSgd;
    auto reservation = reservePsgBudget(r);
    if (!reservation) return reservation.error();

    PsgStageReport report;
    report.params = r.params;
    report.classNames = r.data.classNames;
    report.trainExamples = static_cast<long long>(r.train.labels.size());
    report.testExamples = static_cast<long long>(r.test.labels.size());
    nlohmann::json config = paramsJson(r.params, r.data);
    config["evaluations"] = r.evaluations;
    config["evaluation_epochs"] = r.epochs;
    if (log)
        log("PSG: " + std::to_string(r.params.imagesPerClass) + " images per class x " + std::to_string(r.classes) +
            " classes, " + std::to_string(r.params.iterations) + " iterations (" +
            std::to_string(r.params.compositions()) + " DP gradient steps, sigma " +
            privacy::formatNumber(r.planned.sigma) + ") on " + std::to_string(report.trainExamples) +
            " training images");
    auto runId = pipeline::storedRun(
        project, {kPsgMethod, "", r.params.epsilon, static_cast<long long>(options.seed), config.dump()},
        [&](long long id) -> Status {
            report.runId = id;
            return generateAndEvaluate(r, id, snapshot, report);
        });
    if (!runId) return runId.error();
    if (!options.references) return report;
    if (auto e = storeRealSubsetReference(r, report)) return *e;
    if (r.dpSgd)
        if (auto e = storeDpSgdReference(r, report)) return *e;
    return report;
}

Result<psg::PrivateSet> loadStoredPrivateSet(const project::ProjectFile& project, long long runId) {
    auto run = project.run(runId);
    if (!run) return run.error();
    if (run->method != kPsgMethod)
        return Error{"run " + std::to_string(runId) + " is a " + run->method + " run, not a PSG run", "run"};
    if (run->status != project::RunStatus::Done)
        return Error{"run " + std::to_string(runId) + " is " + project::toString(run->status) +
                         ": only a finished PSG run has a private set",
                     "run"};
    nlohmann::json config;
    try {
        config = nlohmann::json::parse(run->configJson);
    } catch (const nlohmann::json::exception&) {
        return Error{"run " + std::to_string(runId) + ": its configuration is not valid JSON"};
    }
    psg::PrivateSet set;
    try {
        set.classes = static_cast<int>(config.at("classes").size());
        set.imagesPerClass = config.at("images_per_class").get<int>();
        set.channels = config.at("channels").get<int>();
        set.height = config.at("height").get<int>();
        set.width = config.at("width").get<int>();
    } catch (const nlohmann::json::exception&) {
        return Error{"run " + std::to_string(runId) + ": its configuration lacks the set's shape"};
    }
    auto models = project.models(runId);
    if (!models) return models.error();
    for (const auto& m : *models) {
        if (m.name != kPrivateSetModel) continue;
        auto bytes = project.loadModel(m);
        if (!bytes) return bytes.error();
        set.pixels = pipeline::bytesToFloats(*bytes);
        if (static_cast<std::int64_t>(set.pixels.size()) != set.count() * set.channels * set.height * set.width)
            return Error{"run " + std::to_string(runId) + ": the stored set has " + std::to_string(set.pixels.size()) +
                         " values, its configuration expects " +
                         std::to_string(set.count() * set.channels * set.height * set.width)};
        for (int c = 0; c < set.classes; ++c)
            set.labels.insert(set.labels.end(), static_cast<std::size_t>(set.imagesPerClass), c);
        return set;
    }
    return Error{"run " + std::to_string(runId) + " stored no private set"};
}

}  // namespace dpmix::experiment_runs
