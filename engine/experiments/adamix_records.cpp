#include "engine/experiments/adamix_records.h"

#include "engine/privacy/ledger.h"
#include "engine/privacy/parameters.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>

namespace dpmix::experiments {
namespace {

using nlohmann::json;
const double kNaN = std::numeric_limits<double>::quiet_NaN();

json finiteOrNull(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

double numberOrNaN(const json& j) { return j.is_number() ? j.get<double>() : kNaN; }

json vectorJson(const Eigen::VectorXd& v) {
    json out = json::array();
    for (Eigen::Index i = 0; i < v.size(); ++i) out.push_back(finiteOrNull(v(i)));
    return out;
}

Eigen::VectorXd vectorOf(const json& j) {
    Eigen::VectorXd v(static_cast<Eigen::Index>(j.size()));
    for (std::size_t i = 0; i < j.size(); ++i) v(static_cast<Eigen::Index>(i)) = numberOrNaN(j[i]);
    return v;
}

std::string perClassText(long long n) { return n == kAllPrivate ? "all" : std::to_string(n); }

json perClassJson(long long n) { return n == kAllPrivate ? json("all") : json(n); }

long long perClassOf(const json& j) { return j.is_string() ? kAllPrivate : j.get<long long>(); }

json cellJson(const AdamixCell& c) {
    json j{{"method", adamixMethodName(c.method)},
           {"label", adamixMethodLabel(c.method)},
           {"epsilon", c.epsilon ? json(*c.epsilon) : json(nullptr)},
           {"shots", c.shots},
           {"private_per_class", perClassJson(c.privatePerClass)},
           {"seed", c.seed},
           {"private_examples", c.privateExamples},
           {"public_examples", c.publicExamples},
           {"test_error", finiteOrNull(c.testError)},
           {"error_increase", finiteOrNull(c.errorIncrease)}};
    if (isPrivateMethod(c.method))
        j["planned"] = {{"epsilon", c.certifiedEpsilon},
                        {"delta", c.delta},
                        {"sigma", c.sigma},
                        {"steps", c.steps},
                        {"q", c.q},
                        {"clip", c.clip > 0.0 ? json(c.clip) : json("public-quantile")}};
    if (c.perExample >= 0) j["per_example"] = c.perExample;
    return j;
}

json perExampleJson(const AdamixPerExample& pe) {
    return json{{"cell", pe.cell},
                {"source_index", pe.sourceIndex},
                {"label", pe.labels},
                {"epsilon", vectorJson(pe.epsilon)},
                {"isolation", vectorJson(pe.isolation)},
                {"loss", vectorJson(pe.loss)},
                {"dataset_epsilon", pe.datasetEpsilon},
                {"quantile_levels", pe.quantileLevels},
                {"quantiles", pe.quantiles},
                {"spearman_loss", finiteOrNull(pe.spearmanLoss)},
                {"spearman_isolation", finiteOrNull(pe.spearmanIsolation)}};
}

Result<AdamixPerExample> perExampleFromJson(const json& j) {
    AdamixPerExample pe;
    pe.cell = j.at("cell").get<long long>();
    pe.sourceIndex = j.at("source_index").get<std::vector<long long>>();
    pe.labels = j.at("label").get<std::vector<int>>();
    pe.epsilon = vectorOf(j.at("epsilon"));
    pe.isolation = vectorOf(j.at("isolation"));
    pe.loss = vectorOf(j.at("loss"));
    pe.datasetEpsilon = j.at("dataset_epsilon").get<double>();
    pe.quantileLevels = j.at("quantile_levels").get<std::vector<double>>();
    pe.quantiles = j.at("quantiles").get<std::vector<double>>();
    pe.spearmanLoss = numberOrNaN(j.at("spearman_loss"));
    pe.spearmanIsolation = numberOrNaN(j.at("spearman_isolation"));
    const auto n = pe.sourceIndex.size();
    if (pe.labels.size() != n || static_cast<std::size_t>(pe.epsilon.size()) != n ||
        static_cast<std::size_t>(pe.isolation.size()) != n || static_cast<std::size_t>(pe.loss.size()) != n)
        return Error{"a per-example record's columns differ in length"};
    // The summary indexes the quantiles by level: a record with others would be read out of bounds.
    if (pe.quantileLevels != epsilonQuantileLevels() || pe.quantiles.size() != pe.quantileLevels.size())
        return Error{"a per-example record's quantiles are not at the levels min, 5%, 25%, median, 75%, 95%, max"};
    return pe;
}

Status checked(const Result<long long>& r) {
    if (!r) return r.error();
    return std::nullopt;
}

}  // namespace

std::string adamixRowName(AdamixMethod method, const std::optional<double>& epsilon, long long shots,
                          long long privatePerClass) {
    std::string out = std::string(adamixMethodLabel(method)) + " " + adamixMethodName(method);
    if (epsilon) out += " | eps " + privacy::formatNumber(*epsilon);
    out += " | shots " + std::to_string(shots) + " | private " + perClassText(privatePerClass);
    return out;
}

namespace {

// The run's configuration: the setup, the grid, the hyperparameters and the extractor.
json adamixConfigJson(const AdamixExperimentSetup& setup, const AdamixGridOptions& o) {
    json methods = json::array();
    for (auto m : o.methods) methods.push_back(adamixMethodName(m));
    json perClass = json::array();
    for (auto n : o.privatePerClass) perClass.push_back(perClassJson(n));
    return json{{"stage", kAdamixExperimentMethod},
                {"private_source", setup.privateSource},
                {"extractor_source", setup.extractorSource},
                {"shots_source", setup.shotsSource.empty() ? json(nullptr) : json(setup.shotsSource)},
                {"shots_removed_from_private_pool", setup.shotsSource.empty()},
                {"test_set", setup.testSet},
                {"mirror", setup.mirror},
                {"classes", setup.classes},
                {"pool_examples", setup.poolExamples},
                {"test_examples", setup.testExamples},
                {"shots", o.shots},
                {"private_per_class", perClass},
                {"epsilons", o.epsilons},
                {"seeds", o.seeds},
                {"draw_seed", o.drawSeed},
                {"methods", methods},
                {"hyperparameters",
                 {{"steps", o.steps},
                  {"eta", o.stepSize},
                  {"delta", o.delta},
                  {"q", 1.0},
                  {"fixed_clip", o.fixedClip},
                  {"accountant", privacy::toString(o.accountant)},
                  {"neighbours", o.neighbours},
                  {"tuned_on_private_data", false},
                  {"note",
                   "fixed defaults of docs/ADAMIX.md (rank min(m, 64), clip quantile 0.5, ridge 1e-4, public ridge "
                   "1e-3, clip floor 1e-6), not tuned on private data"}}},
                {"extractor",
                 {{"architecture", setup.extractorArchitecture},
                  {"epochs", setup.extractorEpochs},
                  {"examples", setup.extractorExamples},
                  {"seed", setup.extractorSeed},
                  {"source_hash", setup.extractorSourceHash},
                  {"feature_dim", setup.featureDim},
                  {"train_accuracy", setup.extractorTrainAccuracy},
                  {"reused", setup.extractorReused},
                  {"weights_run", setup.extractorRunId},
                  {"features", "penultimate activations, L2-normalised by AdaMix-R, a constant 1 appended"}}},
                {"noise", "seeded per cell (reproducible): a diagnostic, not a release"},
                {"wall_seconds", setup.wallSeconds}};
}

}  // namespace

Result<long long> storeAdamixExperiment(project::ProjectFile& project, const AdamixExperimentSetup& setup,
                                        const AdamixGridOptions& o, const AdamixGridResult& result,
                                        const std::vector<float>& extractorWeights, const std::string& provenance) {
    const json config = adamixConfigJson(setup, o);

    auto id = project.addRun({kAdamixExperimentMethod, setup.privateSource, std::nullopt,
                              static_cast<long long>(o.drawSeed), config.dump()});
    if (!id) return id.error();
    if (auto s = project.setRunStatus(*id, project::RunStatus::Running); !s) return s.error();
    auto fail = [&](const Error& e) -> Result<long long> {
        (void)project.setRunStatus(*id, project::RunStatus::Failed, e.message);
        return e;
    };
    privacy::Ledger ledger(project.spec().privacy.composition);
    ledger.record(privacy::nonPrivateEntry(
        kAdamixExperimentMethod, setup.privateSource,
        "test errors of DP heads (seeded noise) compared with a non-private paragon fitted on the private data, and "
        "per-example statistics of the private examples: a diagnostic, not a release; each DP cell's planned "
        "(epsilon, delta, sigma, T, q) is in its row"));
    if (auto s = project.recordLedger(*id, ledger); !s) return fail(s.error());

    json cells = json::array();
    for (const auto& c : result.cells) cells.push_back(cellJson(c));
    if (auto s = project.storeModel(*id, kAdamixCellsBlob, json{{"cells", cells}}.dump()); !s) return fail(s.error());
    for (const auto& pe : result.perExample)
        if (auto s =
                project.storeModel(*id, kAdamixPerExamplePrefix + std::to_string(pe.cell), perExampleJson(pe).dump());
            !s)
            return fail(s.error());
    std::vector<project::MetricRecord> metrics;
    for (const auto& row : result.summary) {
        const std::string name = adamixRowName(row.method, row.epsilon, row.shots, row.privatePerClass);
        if (std::isfinite(row.testError.mean)) metrics.push_back({*id, "test-error", name, row.testError.mean});
        if (std::isfinite(row.errorIncrease.mean))
            metrics.push_back({*id, "error-increase", name, row.errorIncrease.mean});
    }
    if (!metrics.empty())
        if (auto e = checked(project.addMetrics(metrics))) return fail(*e);
    if (!extractorWeights.empty())
        if (auto s = project.storeWeights(*id, kAdamixExtractorModel, extractorWeights); !s) return fail(s.error());
    if (!provenance.empty())
        if (auto e = checked(project.addLog(*id, "info", provenance))) return fail(*e);
    if (auto s = project.setRunStatus(*id, project::RunStatus::Done); !s) return s.error();
    return *id;
}

namespace {

// The stored setup: sources, sizes and the feature extractor. Throws json::exception when malformed.
AdamixExperimentSetup setupFromConfig(const json& config) {
    AdamixExperimentSetup setup;
    auto& s = setup;
    s.privateSource = config.at("private_source").get<std::string>();
    s.extractorSource = config.at("extractor_source").get<std::string>();
    s.shotsSource = config.at("shots_source").is_string() ? config.at("shots_source").get<std::string>() : "";
    s.testSet = config.at("test_set").get<std::string>();
    s.mirror = config.at("mirror").get<bool>();
    s.classes = config.at("classes").get<std::vector<std::string>>();
    s.poolExamples = config.at("pool_examples").get<long long>();
    s.testExamples = config.at("test_examples").get<long long>();
    s.wallSeconds = config.value("wall_seconds", 0.0);
    const json& ex = config.at("extractor");
    s.extractorArchitecture = ex.at("architecture").get<std::string>();
    s.extractorEpochs = ex.at("epochs").get<int>();
    s.extractorExamples = ex.at("examples").get<long long>();
    s.extractorSeed = ex.at("seed").get<std::uint64_t>();
    s.extractorSourceHash = ex.value("source_hash", std::string());
    s.featureDim = ex.at("feature_dim").get<int>();
    s.extractorTrainAccuracy = ex.at("train_accuracy").get<double>();
    s.extractorReused = ex.at("reused").get<bool>();
    s.extractorRunId = ex.at("weights_run").get<long long>();
    return setup;
}

// The stored grid and hyperparameters. Throws json::exception when malformed.
Result<AdamixGridOptions> optionsFromConfig(const json& config, long long runId) {
    AdamixGridOptions options;
    auto& o = options;
    o.shots = config.at("shots").get<std::vector<long long>>();
    o.privatePerClass.clear();
    for (const auto& n : config.at("private_per_class")) o.privatePerClass.push_back(perClassOf(n));
    o.epsilons = config.at("epsilons").get<std::vector<double>>();
    o.seeds = config.at("seeds").get<long long>();
    o.drawSeed = config.at("draw_seed").get<std::uint64_t>();
    o.methods.clear();
    for (const auto& m : config.at("methods")) {
        auto parsed = parseAdamixMethod(m.get<std::string>());
        if (!parsed) return parsed.error();
        o.methods.push_back(*parsed);
    }
    const json& h = config.at("hyperparameters");
    o.steps = h.at("steps").get<long long>();
    o.stepSize = h.at("eta").get<double>();
    o.delta = h.at("delta").get<double>();
    o.fixedClip = h.at("fixed_clip").get<double>();
    if (!privacy::parseAccountant(h.at("accountant").get<std::string>(), o.accountant))
        return Error{"run " + std::to_string(runId) + ": unknown accountant in its config"};
    o.neighbours = h.at("neighbours").get<int>();

    return options;
}

// One stored cell of the grid. Throws json::exception when malformed.
Result<AdamixCell> cellFromJson(const json& j) {
    AdamixCell c;
    auto m = parseAdamixMethod(j.at("method").get<std::string>());
    if (!m) return m.error();
    c.method = *m;
    if (j.at("epsilon").is_number()) c.epsilon = j.at("epsilon").get<double>();
    c.shots = j.at("shots").get<long long>();
    c.privatePerClass = perClassOf(j.at("private_per_class"));
    c.seed = j.at("seed").get<long long>();
    c.privateExamples = j.at("private_examples").get<long long>();
    c.publicExamples = j.at("public_examples").get<long long>();
    c.testError = numberOrNaN(j.at("test_error"));
    c.errorIncrease = numberOrNaN(j.at("error_increase"));
    if (j.contains("planned")) {
        const json& p = j.at("planned");
        c.certifiedEpsilon = p.at("epsilon").get<double>();
        c.delta = p.at("delta").get<double>();
        c.sigma = p.at("sigma").get<double>();
        c.steps = p.at("steps").get<long long>();
        c.q = p.at("q").get<double>();
        c.clip = p.at("clip").is_number() ? p.at("clip").get<double>() : 0.0;
    }
    c.perExample = j.value("per_example", -1LL);
    return c;
}

}  // namespace

Result<StoredAdamixExperiment> readAdamixExperiment(const project::ProjectFile& project, long long runId,
                                                    bool perExample) {
    auto run = project.run(runId);
    if (!run) return run.error();
    if (run->method != kAdamixExperimentMethod)
        return Error{"run " + std::to_string(runId) + " is a '" + run->method + "' run, not an AdaMix-R experiment"};
    auto models = project.models(runId);
    if (!models) return models.error();
    auto blob = [&](const std::string& name) -> Result<json> {
        for (const auto& m : *models)
            if (m.name == name) {
                auto bytes = project.loadModel(m);
                if (!bytes) return bytes.error();
                json j = json::parse(*bytes, nullptr, false);
                if (j.is_discarded()) return Error{"run " + std::to_string(runId) + ": '" + name + "' is not JSON"};
                return j;
            }
        return Error{"run " + std::to_string(runId) + " has no '" + name + "' record (status " +
                     project::toString(run->status) + ")"};
    };
    StoredAdamixExperiment out;
    out.runId = runId;
    out.configJson = run->configJson;
    try {
        const json config = json::parse(run->configJson);
        out.setup = setupFromConfig(config);
        auto options = optionsFromConfig(config, runId);
        if (!options) return options.error();
        out.options = std::move(options).value();
        auto cells = blob(kAdamixCellsBlob);
        if (!cells) return cells.error();
        for (const auto& j : cells->at("cells")) {
            auto c = cellFromJson(j);
            if (!c) return c.error();
            out.result.cells.push_back(*c);
        }
        if (perExample) {
            for (std::size_t i = 0; i < out.result.cells.size(); ++i) {
                if (out.result.cells[i].perExample < 0) continue;
                auto pj = blob(kAdamixPerExamplePrefix + std::to_string(i));
                if (!pj) return pj.error();
                auto pe = perExampleFromJson(*pj);
                if (!pe) return Error{"run " + std::to_string(runId) + ": " + pe.error().message};
                if (pe->cell != static_cast<long long>(i))
                    return Error{"run " + std::to_string(runId) + ": the per-example record of cell " +
                                 std::to_string(i) + " names cell " + std::to_string(pe->cell)};
                out.result.cells[i].perExample = static_cast<long long>(out.result.perExample.size());
                out.result.perExample.push_back(std::move(pe).value());
            }
        } else {
            // Not read: each cell that has a record keeps the index its record would have, so a
            // caller can read the records later and find them where a full read puts them.
            long long next = 0;
            for (auto& c : out.result.cells)
                if (c.perExample >= 0) c.perExample = next++;
        }
    } catch (const json::exception& e) {
        return Error{"run " + std::to_string(runId) + ": a malformed AdaMix-R experiment record (" + e.what() + ")"};
    }
    summariseAdamixGrid(out.result, out.options);
    return out;
}

}  // namespace dpmix::experiments
