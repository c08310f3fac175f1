#include "engine/experiment_runs/adamix_experiment_stage.h"

#include "engine/core/joined_list.h"
#include "engine/data/source_loader.h"
#include "engine/data/splits.h"
#include "engine/pipeline/run_storage.h"
#include "engine/pipeline/sensitive_split.h"
#include "engine/project/declared_labels.h"
#include "engine/project/study_seed.h"
#include "engine/train/feature_extractor.h"
#include "engine/train/frozen_features.h"
#include "engine/train/model_spec.h"
#include "engine/train/training_params.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <set>

namespace dpmix::experiment_runs {
namespace {

// A single-label image source: its images and the class of each.
struct LabelledSource {
    const project::SourceRecord* record = nullptr;
    data::ImageDataset images;
    std::vector<int> labels;
};

std::set<std::string> labelSet(const project::SourceRecord& r) {
    return {r.facts.labelNames.begin(), r.facts.labelNames.end()};
}

bool disjoint(const std::set<std::string>& a, const std::set<std::string>& b) {
    for (const auto& x : a)
        if (b.count(x)) return false;
    return true;
}

Result<LabelledSource> loadLabelled(const project::SourceRecord& record, const project::ProjectSpec& spec,
                                    const std::string& role, const CancellationToken& cancel) {
    LabelledSource out;
    out.record = &record;
    auto loaded =
        data::loadImageSource({record.name, record.loader, record.path, pipeline::sourceOptions(spec, record.name)},
                              data::LoadControl{{}, cancel});
    if (!loaded) return Error{role + " source '" + record.name + "': " + loaded.error().message};
    out.images = std::move(loaded).value();
    const std::size_t L = out.images.numLabels();
    if (L < 2)
        return Error{role + " source '" + record.name + "' has " + std::to_string(L) +
                     " class(es): the experiment needs a labelled classification source"};
    for (std::size_t i = 0; i < out.images.size(); ++i) {
        int cls = -1, positives = 0;
        for (std::size_t c = 0; c < L; ++c)
            if (out.images.labels[i * L + c] > 0.5f) {
                cls = static_cast<int>(c);
                ++positives;
            }
        if (positives != 1)
            return Error{role + " source '" + record.name + "': example " + std::to_string(i) + " has " +
                         std::to_string(positives) + " classes: the experiment needs one class per example"};
        out.labels.push_back(cls);
    }
    return out;
}

// The stable 80/10/10 split of a source: the sensitive one exactly as the study splits it
// (sensitive_split.h: same seed, same rows), a public one (the mirror run) by its content.
Result<data::ThreeWaySplit> stableSplit(const LabelledSource& source, const project::ProjectSpec& spec,
                                        bool isSensitive, std::uint64_t studySeed) {
    if (isSensitive) return pipeline::sensitiveSplitOfSource(source.images, spec, source.record->name, studySeed);
    data::SplitGrouping grouping;
    grouping.keys = data::contentKeys(source.images);
    return data::trainValidationTestSplit(source.images.size(), studySeed, grouping);
}

// Features of `rows` of a source (in chunks, polling the token), as doubles.
Result<Eigen::MatrixXd> featuresOf(const train::Model& extractor, const data::ImageDataset& images,
                                   const std::vector<std::size_t>& rows, const CancellationToken& cancel,
                                   const ProgressCallback& progress, long long& done, long long total) {
    Eigen::MatrixXd out;
    constexpr std::size_t kChunk = 2048;
    for (std::size_t start = 0; start < rows.size(); start += kChunk) {
        throwIfCancelled(cancel);
        const std::vector<std::size_t> part(
            rows.begin() + static_cast<std::ptrdiff_t>(start),
            rows.begin() + static_cast<std::ptrdiff_t>(std::min(rows.size(), start + kChunk)));
        const std::vector<float> pixels = pipeline::gatherImages(images, part);
        const train::ImageView view{pixels, static_cast<std::int64_t>(part.size()), images.channels, images.height,
                                    images.width};
        auto f = train::frozenExtractorFeatures(extractor, view);
        if (!f) return f.error();
        if (out.size() == 0) out.resize(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(f->dim));
        for (std::size_t r = 0; r < part.size(); ++r)
            for (std::int64_t j = 0; j < f->dim; ++j)
                out(static_cast<Eigen::Index>(start + r), static_cast<Eigen::Index>(j)) =
                    f->values[r * static_cast<std::size_t>(f->dim) + static_cast<std::size_t>(j)];
        done += static_cast<long long>(part.size());
        report(progress, {"adamix-features", done, total, "features of the frozen extractor"});
    }
    return out;
}

std::string architectureText(const train::ModelSpec& s) {
    return "small-cnn conv " + std::to_string(s.convWidth1) + "/" + std::to_string(s.convWidth2) + ", hidden " +
           std::to_string(s.hidden) + ", GroupNorm(" + std::to_string(s.normGroups) + "), input " +
           std::to_string(s.channels) + "x" + std::to_string(s.height) + "x" + std::to_string(s.width);
}

// Weights of an earlier finished experiment whose extractor had these settings, if any.
std::optional<std::pair<long long, std::vector<float>>> storedExtractor(const project::ProjectFile& project,
                                                                        const experiments::AdamixExperimentSetup& s) {
    auto runs = project.runs();
    if (!runs) return std::nullopt;
    for (auto it = runs->rbegin(); it != runs->rend(); ++it) {
        if (it->method != experiments::kAdamixExperimentMethod || it->status != project::RunStatus::Done) continue;
        const auto config = nlohmann::json::parse(it->configJson, nullptr, false);
        if (config.is_discarded() || !config.contains("extractor")) continue;
        const auto& ex = config["extractor"];
        if (config.value("extractor_source", "") != s.extractorSource ||
            ex.value("architecture", "") != s.extractorArchitecture || ex.value("epochs", -1) != s.extractorEpochs ||
            ex.value("examples", -1LL) != s.extractorExamples ||
            ex.value("seed", std::uint64_t{0}) != s.extractorSeed ||
            ex.value("source_hash", "") != s.extractorSourceHash)
            continue;
        auto models = project.models(it->id);
        if (!models) continue;
        for (const auto& m : *models)
            if (m.name == experiments::kAdamixExtractorModel) {
                auto bytes = project.loadModel(m);
                if (bytes) return std::make_pair(it->id, pipeline::bytesToFloats(*bytes));
            }
    }
    return std::nullopt;
}

}  // namespace

Status checkAdamixExperimentOptions(const AdamixExperimentOptions& o) {
    if (auto e = experiments::checkAdamixGridOptions(o.grid)) return e;
    if (o.extractorEpochs < 1)
        return Error{"extractor-epochs = " + std::to_string(o.extractorEpochs) + " is out of range: expected >= 1",
                     "extractor-epochs"};
    if (o.extractorExamples < 0)
        return Error{
            "extractor-examples = " + std::to_string(o.extractorExamples) + " is out of range: expected >= 0 (0 = all)",
            "extractor-examples"};
    return std::nullopt;
}

namespace {

struct AdamixRoles {
    const project::SourceRecord* privateSource = nullptr;
    const project::SourceRecord* extractorSource = nullptr;
    const project::SourceRecord* shotsSource = nullptr;  // null: shots from the private pool
    bool privateIsSensitive = true;
};

// Which source is private, which trains the extractor, and where the shots come from.
Result<AdamixRoles> resolveRoles(const std::vector<project::SourceRecord>& sources,
                                 const AdamixExperimentOptions& options) {
    const project::SourceRecord* sensitive = nullptr;
    std::vector<const project::SourceRecord*> publics;
    for (const auto& s : sources) {
        if (s.role == project::SourceRole::Sensitive) sensitive = &s;
        if (s.role == project::SourceRole::Public && s.facts.kind == data::SourceKind::Images) publics.push_back(&s);
    }
    if (!sensitive || sensitive->facts.kind != data::SourceKind::Images)
        return Error{"the AdaMix-R experiment needs an image study: the project's sensitive source is not images"};
    auto publicNamed = [&](const std::string& name, const std::string& field) -> Result<const project::SourceRecord*> {
        std::vector<std::string> names;
        for (const auto* p : publics) {
            if (p->name == name) return p;
            names.push_back("'" + p->name + "'");
        }
        return Error{field + ": '" + name + "' is not a registered public image source of this project (it has " +
                         (names.empty() ? std::string("none") : core::joinedList(names)) + ")",
                     field};
    };
    auto disjointFrom = [&](const project::SourceRecord& of) -> const project::SourceRecord* {
        for (const auto* p : publics)
            if (p != &of && disjoint(labelSet(*p), labelSet(of))) return p;
        return nullptr;
    };
    AdamixRoles r;
    r.privateSource = sensitive;
    if (options.mirror) {
        r.privateSource = disjointFrom(*sensitive);
        r.privateIsSensitive = false;
        if (!r.privateSource)
            return Error{
                "mirror: the mirror run's private task is a public source whose classes differ from the "
                "sensitive source's (e.g. MNIST digits in a Fashion-MNIST study); this project registers none",
                "mirror"};
    }
    if (!options.shotsSource.empty()) {
        auto named = publicNamed(options.shotsSource, "shots-source");
        if (!named) return named.error();
        r.shotsSource = *named;
        if (r.shotsSource == r.privateSource || labelSet(*r.shotsSource) != labelSet(*r.privateSource))
            return Error{"shots-source: '" + r.shotsSource->name + "' does not have the private task's classes (" +
                             core::joinedList(r.privateSource->facts.labelNames) + "): it has " +
                             core::joinedList(r.shotsSource->facts.labelNames),
                         "shots-source"};
    }
    if (!options.extractorSource.empty()) {
        auto named = publicNamed(options.extractorSource, "extractor-source");
        if (!named) return named.error();
        r.extractorSource = *named;
    } else if (options.mirror) {
        for (const auto* p : publics)
            if (p != r.privateSource && labelSet(*p) == labelSet(*sensitive)) r.extractorSource = p;
        if (!r.extractorSource)
            return Error{
                "mirror: the mirror run trains its extractor on a public source with the sensitive source's "
                "classes; this project registers none (name one with --extractor-source)",
                "mirror"};
    } else {
        r.extractorSource = disjointFrom(*r.privateSource);
        if (!r.extractorSource)
            return Error{
                "extractor-source: the extractor is trained on a public source whose classes differ from the "
                "private task's (e.g. MNIST digits for a Fashion-MNIST study); this project registers none",
                "extractor-source"};
    }
    if (r.extractorSource == r.privateSource || !disjoint(labelSet(*r.extractorSource), labelSet(*r.privateSource)))
        return Error{"extractor-source: '" + r.extractorSource->name + "' shares classes with the private task '" +
                         r.privateSource->name +
                         "': the extractor must not be trained on labelled data of the private task itself",
                     "extractor-source"};
    return r;
}

// The three sources' images, the private source's split, and the labels by the private task's class ids.
struct AdamixData {
    LabelledSource priv, ext;
    std::optional<LabelledSource> shots;
    std::vector<std::size_t> pool, test;  // rows of the private source
    Eigen::VectorXi poolLabels, shotLabels;
};

Result<AdamixData> loadAdamixData(const AdamixRoles& roles, const project::ProjectSpec& spec, std::uint64_t studySeed,
                                  const CancellationToken& cancel) {
    AdamixData d;
    if (roles.privateIsSensitive)  // its label set is declared, never read from the data
        if (auto undeclared = project::refuseUndeclaredLabels(spec.sensitive.written)) return *undeclared;
    auto priv = loadLabelled(*roles.privateSource, spec, "private", cancel);
    if (!priv) return priv.error();
    d.priv = std::move(priv).value();
    auto split = stableSplit(d.priv, spec, roles.privateIsSensitive, studySeed);
    if (!split) return Error{"splitting '" + roles.privateSource->name + "': " + split.error().message};
    d.pool = split->train;
    d.test = split->test;
    d.poolLabels.resize(static_cast<Eigen::Index>(d.pool.size()));
    for (std::size_t r = 0; r < d.pool.size(); ++r)
        d.poolLabels(static_cast<Eigen::Index>(r)) = d.priv.labels[d.pool[r]];
    const auto& classes = d.priv.images.labelNames;
    if (roles.shotsSource) {
        auto loaded = loadLabelled(*roles.shotsSource, spec, "shots", cancel);
        if (!loaded) return loaded.error();
        // The shots source's classes by the private task's class ids.
        std::vector<int> map;
        for (const auto& name : loaded->images.labelNames)
            map.push_back(static_cast<int>(std::find(classes.begin(), classes.end(), name) - classes.begin()));
        d.shotLabels.resize(static_cast<Eigen::Index>(loaded->labels.size()));
        for (std::size_t i = 0; i < loaded->labels.size(); ++i)
            d.shotLabels(static_cast<Eigen::Index>(i)) = map[static_cast<std::size_t>(loaded->labels[i])];
        if (loaded->images.imageSize() != d.priv.images.imageSize())
            return Error{"shots-source: '" + roles.shotsSource->name + "' has images of another shape than '" +
                             roles.privateSource->name + "'",
                         "shots-source"};
        d.shots = std::move(loaded).value();
    }
    auto ext = loadLabelled(*roles.extractorSource, spec, "extractor", cancel);
    if (!ext) return ext.error();
    d.ext = std::move(ext).value();
    const auto& e = d.ext.images;
    const auto& p = d.priv.images;
    if (e.channels != p.channels || e.height != p.height || e.width != p.width)
        return Error{"extractor-source: '" + roles.extractorSource->name + "' has " + std::to_string(e.channels) + "x" +
                         std::to_string(e.height) + "x" + std::to_string(e.width) + " images, the private task " +
                         std::to_string(p.channels) + "x" + std::to_string(p.height) + "x" + std::to_string(p.width),
                     "extractor-source"};
    return d;
}

experiments::AdamixExperimentSetup setupOf(const AdamixRoles& roles, const AdamixData& d,
                                           const AdamixExperimentOptions& options) {
    experiments::AdamixExperimentSetup setup;
    setup.privateSource = roles.privateSource->name;
    setup.extractorSource = roles.extractorSource->name;
    setup.extractorSourceHash = roles.extractorSource->facts.contentHash;
    setup.shotsSource = roles.shotsSource ? roles.shotsSource->name : "";
    setup.mirror = options.mirror;
    setup.classes = d.priv.images.labelNames;
    setup.poolExamples = static_cast<long long>(d.pool.size());
    setup.testExamples = static_cast<long long>(d.test.size());
    const std::string pool = std::to_string(d.pool.size()), test = std::to_string(d.test.size());
    setup.testSet = roles.privateIsSensitive
                        ? "the project's sensitive test split (" + test +
                              " examples; the study seed's stable 80/10/10 split, which every run of the project "
                              "evaluates on); the private pool is its train split (" +
                              pool + ")"
                        : "held-out examples of '" + roles.privateSource->name +
                              "', which has no test split: the test part (" + test +
                              ") of its stable 80/10/10 split by the study seed; the private pool is the train part (" +
                              pool + ")";
    setup.extractorEpochs = options.extractorEpochs;
    setup.extractorExamples = options.extractorExamples;
    return setup;
}

// The extractor: reused from an earlier experiment with the same settings, or trained now (its
// weights then returned in `trainedWeights`); its accuracy on its own images goes into `setup`.
Result<train::Model> obtainExtractor(const project::ProjectFile& project, experiments::AdamixExperimentSetup& setup,
                                     const LabelledSource& ext, const AdamixExperimentOptions& options,
                                     std::uint64_t studySeed, std::vector<float>& trainedWeights,
                                     const ProgressCallback& progress, const CancellationToken& cancel,
                                     const pipeline::LogSink& log) {
    const auto& e = ext.images;
    auto say = [&](const std::string& line) {
        if (log) log(line);
    };
    auto modelSpec = train::ModelSpecBuilder()
                         .kind(train::ModelKind::SmallCnn)
                         .input(e.channels, e.height, e.width)
                         .outputs(static_cast<int>(e.numLabels()))
                         .build();
    if (!modelSpec) return modelSpec.error();
    setup.extractorArchitecture = architectureText(*modelSpec);
    setup.extractorSeed = studySeed;
    setup.featureDim = modelSpec->hidden;
    train::Model extractor = train::Model::create(*modelSpec, studySeed, options.device);
    if (auto stored = storedExtractor(project, setup); stored && !extractor.setParameters(stored->second)) {
        setup.extractorReused = true;
        setup.extractorRunId = stored->first;
        say("extractor: reusing the weights of run " + std::to_string(stored->first));
    } else {
        say("training the extractor on '" + setup.extractorSource + "' (" + std::to_string(e.size()) + " images, " +
            std::to_string(options.extractorEpochs) + " epochs, non-private: public data)");
        auto params = train::SupervisedParamsBuilder()
                          .epochs(options.extractorEpochs)
                          .maxExamples(options.extractorExamples)
                          .seed(studySeed)
                          .device(options.device)
                          .build();
        if (!params) return params.error();
        const train::ImageView view{e.pixels, static_cast<std::int64_t>(e.size()), e.channels, e.height, e.width};
        auto trained = train::trainFeatureExtractor(view, ext.labels, static_cast<int>(e.numLabels()), *modelSpec,
                                                    *params, progress, cancel);
        if (!trained) return Error{"extractor: " + trained.error().message};
        extractor = std::move(trained).value();
        trainedWeights = extractor.parameters();
    }
    // Its accuracy on (up to 2,000 of) its own training images: a sanity check of the features.
    const std::size_t n = std::min<std::size_t>(2000, e.size());
    const train::ImageView view{std::span<const float>(e.pixels.data(), n * e.imageSize()),
                                static_cast<std::int64_t>(n), e.channels, e.height, e.width};
    auto logits = extractor.logits(view);
    if (!logits) return logits.error();
    const auto L = e.numLabels();
    long long right = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const auto* row = logits->data() + i * L;
        right += static_cast<int>(std::max_element(row, row + L) - row) == ext.labels[i];
    }
    setup.extractorTrainAccuracy = static_cast<double>(right) / static_cast<double>(n);
    return extractor;
}

// Features of the rows the draws use (other pool rows stay zero), and of the test set.
Result<experiments::AdamixGridInput> gridInputOf(const train::Model& extractor, const AdamixData& d,
                                                 const experiments::AdamixDrawPlan& plan,
                                                 const ProgressCallback& progress, const CancellationToken& cancel,
                                                 const pipeline::LogSink& log) {
    const auto poolRows = experiments::poolRowsNeeded(plan);
    const auto shotRows = experiments::shotRowsNeeded(plan);
    const long long total = static_cast<long long>(poolRows.size() + shotRows.size() + d.test.size());
    long long done = 0;
    if (log) log("features of " + std::to_string(total) + " images");
    experiments::AdamixGridInput input;
    input.classes = static_cast<int>(d.priv.images.labelNames.size());
    input.poolLabels = d.poolLabels;
    for (auto i : d.pool) input.poolSourceIndex.push_back(static_cast<long long>(i));
    {
        std::vector<std::size_t> rows;
        for (auto r : poolRows) rows.push_back(d.pool[static_cast<std::size_t>(r)]);
        auto f = featuresOf(extractor, d.priv.images, rows, cancel, progress, done, total);
        if (!f) return f.error();
        input.poolFeatures = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(d.pool.size()), f->cols());
        for (std::size_t r = 0; r < poolRows.size(); ++r)
            input.poolFeatures.row(poolRows[r]) = f->row(static_cast<Eigen::Index>(r));
    }
    if (d.shots) {
        std::vector<std::size_t> rows(shotRows.begin(), shotRows.end());
        auto f = featuresOf(extractor, d.shots->images, rows, cancel, progress, done, total);
        if (!f) return f.error();
        input.shotFeatures = Eigen::MatrixXd::Zero(d.shotLabels.size(), f->cols());
        for (std::size_t r = 0; r < shotRows.size(); ++r)
            input.shotFeatures.row(shotRows[r]) = f->row(static_cast<Eigen::Index>(r));
        input.shotLabels = d.shotLabels;
        for (std::size_t i = 0; i < d.shots->labels.size(); ++i)
            input.shotSourceIndex.push_back(static_cast<long long>(i));
    }
    auto f = featuresOf(extractor, d.priv.images, d.test, cancel, progress, done, total);
    if (!f) return f.error();
    input.testFeatures = std::move(f).value();
    input.testLabels.resize(static_cast<Eigen::Index>(d.test.size()));
    for (std::size_t r = 0; r < d.test.size(); ++r)
        input.testLabels(static_cast<Eigen::Index>(r)) = d.priv.labels[d.test[r]];
    return input;
}

}  // namespace

Result<PreparedAdamixExperiment> prepareAdamixExperiment(project::ProjectFile& project,
                                                         const AdamixExperimentOptions& options,
                                                         const ProgressCallback& progress,
                                                         const CancellationToken& cancel,
                                                         const pipeline::LogSink& log) {
    const auto started = std::chrono::steady_clock::now();
    if (auto e = checkAdamixExperimentOptions(options)) return *e;
    if (auto e = train::checkDevice(options.device)) return *e;
    const auto& spec = project.spec();
    const std::uint64_t studySeed = project::studySeedOf(spec);
    auto sources = project.sources();
    if (!sources) return sources.error();
    auto roles = resolveRoles(*sources, options);
    if (!roles) return roles.error();
    if (log)
        log("private task: '" + roles->privateSource->name + "'; extractor trained on '" +
            roles->extractorSource->name + "'" +
            (roles->shotsSource ? "; shots from '" + roles->shotsSource->name + "'"
                                : "; shots drawn from the private pool"));
    auto data = loadAdamixData(*roles, spec, studySeed, cancel);
    if (!data) return data.error();
    PreparedAdamixExperiment prepared;
    prepared.grid = options.grid;
    prepared.grid.drawSeed = options.drawSeed.value_or(studySeed);
    prepared.grid.accountant = spec.privacy.accountant;
    auto plan = experiments::planAdamixDraws(data->poolLabels, roles->shotsSource ? &data->shotLabels : nullptr,
                                             data->priv.images.labelNames, prepared.grid);
    if (!plan) return plan.error();
    prepared.plan = std::move(plan).value();
    prepared.setup = setupOf(*roles, *data, options);
    auto extractor = obtainExtractor(project, prepared.setup, data->ext, options, studySeed, prepared.extractorWeights,
                                     progress, cancel, log);
    if (!extractor) return extractor.error();
    auto input = gridInputOf(*extractor, *data, prepared.plan, progress, cancel, log);
    if (!input) return input.error();
    prepared.input = std::move(input).value();
    prepared.setup.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return prepared;
}

Result<AdamixExperimentReport> storeAdamixExperimentRun(project::ProjectFile& project,
                                                        const PreparedAdamixExperiment& prepared,
                                                        experiments::AdamixGridResult result,
                                                        const std::string& provenance) {
    auto id = experiments::storeAdamixExperiment(project, prepared.setup, prepared.grid, result,
                                                 prepared.extractorWeights, provenance);
    if (!id) return id.error();
    AdamixExperimentReport report;
    report.runId = *id;
    report.setup = prepared.setup;
    report.grid = prepared.grid;
    report.result = std::move(result);
    return report;
}

Result<AdamixExperimentReport> runAdamixExperiment(project::ProjectFile& project,
                                                   const AdamixExperimentOptions& options,
                                                   const ProgressCallback& progress, const CancellationToken& cancel,
                                                   const pipeline::LogSink& log) {
    const auto started = std::chrono::steady_clock::now();
    auto preparedOrError = prepareAdamixExperiment(project, options, progress, cancel, log);
    if (!preparedOrError) return preparedOrError.error();
    PreparedAdamixExperiment prepared = std::move(preparedOrError).value();
    const auto& g = prepared.grid;
    if (log)
        log("the grid: " + std::to_string(g.seeds) + " seeds x " + std::to_string(g.shots.size()) + " shots x " +
            std::to_string(g.privatePerClass.size()) + " private counts, " + std::to_string(g.epsilons.size()) +
            " epsilons");
    auto result = experiments::runAdamixGrid(prepared.input, prepared.plan, g, progress, cancel);
    if (!result) return result.error();
    prepared.setup.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return storeAdamixExperimentRun(project, prepared, std::move(result).value(), {});
}

}  // namespace dpmix::experiment_runs
