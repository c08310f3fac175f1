#include "engine/executor/adamix_units.h"

#include "engine/core/double_bits.h"
#include "engine/data/sha256.h"
#include "engine/executor/adamix_unit_codec.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <fstream>
#include <sstream>

namespace dpmix::executor {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kAdamixFormat = "dpmix-adamix/1";

std::string hex(double v) { return doubleToHexBits(v); }
double unhex(const json& j) { return doubleFromHexBitsOrThrow(j.get<std::string>()); }

json gridJson(const experiments::AdamixGridOptions& o) {
    json eps = json::array(), methods = json::array();
    for (double e : o.epsilons) eps.push_back(hex(e));
    for (auto m : o.methods) methods.push_back(experiments::adamixMethodName(m));
    return json{{"shots", o.shots},
                {"private_per_class", o.privatePerClass},
                {"epsilons", eps},
                {"seeds", o.seeds},
                {"methods", methods},
                {"draw_seed", o.drawSeed},
                {"steps", o.steps},
                {"eta", hex(o.stepSize)},
                {"delta", hex(o.delta)},
                {"fixed_clip", hex(o.fixedClip)},
                {"accountant", privacy::toString(o.accountant)},
                {"neighbours", o.neighbours},
                {"threads", o.threads}};
}

experiments::AdamixGridOptions gridOf(const json& j) {
    experiments::AdamixGridOptions o;
    o.shots = j.at("shots").get<std::vector<long long>>();
    o.privatePerClass = j.at("private_per_class").get<std::vector<long long>>();
    o.epsilons.clear();
    for (const auto& e : j.at("epsilons")) o.epsilons.push_back(unhex(e));
    o.seeds = j.at("seeds").get<long long>();
    o.methods.clear();
    for (const auto& m : j.at("methods")) {
        auto method = experiments::parseAdamixMethod(m.get<std::string>());
        if (!method) throw std::invalid_argument(method.error().message);
        o.methods.push_back(*method);
    }
    o.drawSeed = j.at("draw_seed").get<std::uint64_t>();
    o.steps = j.at("steps").get<long long>();
    o.stepSize = unhex(j.at("eta"));
    o.delta = unhex(j.at("delta"));
    o.fixedClip = unhex(j.at("fixed_clip"));
    if (!privacy::parseAccountant(j.at("accountant").get<std::string>(), o.accountant))
        throw std::invalid_argument("unknown accountant");
    o.neighbours = j.at("neighbours").get<int>();
    o.threads = j.at("threads").get<int>();
    return o;
}

json setupJson(const experiments::AdamixExperimentSetup& s) {
    return json{{"private_source", s.privateSource},
                {"extractor_source", s.extractorSource},
                {"shots_source", s.shotsSource},
                {"test_set", s.testSet},
                {"mirror", s.mirror},
                {"classes", s.classes},
                {"pool_examples", s.poolExamples},
                {"test_examples", s.testExamples},
                {"extractor_architecture", s.extractorArchitecture},
                {"extractor_epochs", s.extractorEpochs},
                {"extractor_examples", s.extractorExamples},
                {"extractor_seed", s.extractorSeed},
                {"extractor_source_hash", s.extractorSourceHash},
                {"feature_dim", s.featureDim},
                {"extractor_train_accuracy", hex(s.extractorTrainAccuracy)},
                {"extractor_reused", s.extractorReused},
                {"extractor_run_id", s.extractorRunId},
                {"preparation_seconds", hex(s.wallSeconds)}};
}

experiments::AdamixExperimentSetup setupOf(const json& j) {
    experiments::AdamixExperimentSetup s;
    s.privateSource = j.at("private_source").get<std::string>();
    s.extractorSource = j.at("extractor_source").get<std::string>();
    s.shotsSource = j.at("shots_source").get<std::string>();
    s.testSet = j.at("test_set").get<std::string>();
    s.mirror = j.at("mirror").get<bool>();
    s.classes = j.at("classes").get<std::vector<std::string>>();
    s.poolExamples = j.at("pool_examples").get<long long>();
    s.testExamples = j.at("test_examples").get<long long>();
    s.extractorArchitecture = j.at("extractor_architecture").get<std::string>();
    s.extractorEpochs = j.at("extractor_epochs").get<int>();
    s.extractorExamples = j.at("extractor_examples").get<long long>();
    s.extractorSeed = j.at("extractor_seed").get<std::uint64_t>();
    s.extractorSourceHash = j.at("extractor_source_hash").get<std::string>();
    s.featureDim = j.at("feature_dim").get<int>();
    s.extractorTrainAccuracy = unhex(j.at("extractor_train_accuracy"));
    s.extractorReused = j.at("extractor_reused").get<bool>();
    s.extractorRunId = j.at("extractor_run_id").get<long long>();
    s.wallSeconds = unhex(j.at("preparation_seconds"));
    return s;
}

struct FrozenAdamix {
    experiments::AdamixGridOptions grid;
    experiments::AdamixExperimentSetup setup;
    std::string inputsSha256;
};

Result<FrozenAdamix> parseFrozenAdamix(const std::string& text) {
    const json j = json::parse(text, nullptr, false);
    if (!j.is_object() || j.value("format", "") != kAdamixFormat)
        return Error{"not a frozen dpmix AdaMix-R experiment"};
    try {
        return FrozenAdamix{gridOf(j.at("grid")), setupOf(j.at("setup")),
                            j.at("inputs").at("sha256").get<std::string>()};
    } catch (const std::exception& e) {
        return Error{std::string("frozen AdaMix-R experiment: malformed (") + e.what() + ")"};
    }
}

// The job directory's inputs file, checked against the hash the frozen experiment names.
Result<adamix_codec::AdamixInputs> readInputs(const fs::path& jobDir, const FrozenAdamix& frozen) {
    const fs::path file = jobDir / kAdamixInputsFile;
    std::ifstream in(file, std::ios::binary);
    if (!in) return Error{"cannot read " + file.string() + " (the job's frozen inputs)"};
    std::ostringstream bytes;
    bytes << in.rdbuf();
    const std::string data = bytes.str();
    if (data::sha256Hex(data) != frozen.inputsSha256)
        return Error{file.string() + " does not match the SHA-256 its job froze (damaged or replaced)"};
    auto decoded = adamix_codec::decodeInputs(data);
    if (!decoded) return Error{file.string() + ": " + decoded.error().message};
    return decoded;
}

}  // namespace

Result<FrozenAdamixExperiment> freezeAdamixExperiment(project::ProjectFile& project,
                                                      const experiment_runs::AdamixExperimentOptions& options,
                                                      const ProgressCallback& progress, const CancellationToken& cancel,
                                                      const pipeline::LogSink& log) {
    auto prepared = experiment_runs::prepareAdamixExperiment(project, options, progress, cancel, log);
    if (!prepared) return prepared.error();
    FrozenAdamixExperiment frozen;
    frozen.inputs = adamix_codec::encodeInputs({prepared->input, prepared->plan, prepared->extractorWeights});
    frozen.json = json{{"format", kAdamixFormat},
                       {"grid", gridJson(prepared->grid)},
                       {"setup", setupJson(prepared->setup)},
                       {"inputs",
                        {{"file", kAdamixInputsFile},
                         {"bytes", frozen.inputs.size()},
                         {"sha256", data::sha256Hex(frozen.inputs)}}}}
                      .dump(1);
    return frozen;
}

std::vector<cluster::WorkUnit> adamixWorkUnits(const experiments::AdamixGridOptions& grid) {
    std::vector<cluster::WorkUnit> units;
    for (const auto& part : experiments::adamixGridParts(grid)) {
        cluster::WorkUnit u;
        u.id = static_cast<long long>(units.size());
        u.seed = static_cast<std::uint64_t>(part.seed);
        u.paramsJson = json{{"seed", part.seed},
                            {"private_index", part.privateIndex},
                            {"private_per_class", grid.privatePerClass[part.privateIndex]}}
                           .dump();
        units.push_back(u);
    }
    return units;
}

Result<std::string> runAdamixUnit(const fs::path& jobDir, const std::string& frozenJson, long long seed,
                                  long long privateIndex, int threads) {
    const auto started = std::chrono::steady_clock::now();
    auto parsed = parseFrozenAdamix(frozenJson);
    if (!parsed) return parsed.error();
    FrozenAdamix frozen = std::move(parsed).value();
    if (threads > 0) frozen.grid.threads = threads;
    if (privateIndex < 0)
        return Error{"private-per-class index " + std::to_string(privateIndex) + " is not in the grid"};
    auto inputs = readInputs(jobDir, frozen);
    if (!inputs) return inputs.error();
    const experiments::AdamixGridPart part{seed, static_cast<std::size_t>(privateIndex)};
    auto result = experiments::runAdamixGridPart(inputs->input, inputs->plan, frozen.grid, part);
    if (!result) return result.error();
    json out = adamix_codec::partJson(*result);
    out["seed"] = seed;
    out["private_index"] = privateIndex;
    out["seconds"] = hex(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    return out.dump();
}

Result<experiment_runs::AdamixExperimentReport> storeFrozenAdamix(
    project::ProjectFile& project, const fs::path& jobDir, const std::string& frozenJson,
    const std::vector<std::pair<long long, std::string>>& unitResults, const std::string& provenance) {
    auto frozen = parseFrozenAdamix(frozenJson);
    if (!frozen) return frozen.error();
    auto inputs = readInputs(jobDir, *frozen);  // the extractor's weights, stored with the run
    if (!inputs) return inputs.error();
    adamix_codec::AdamixInputs read = std::move(inputs).value();
    std::vector<std::pair<experiments::AdamixGridPart, experiments::AdamixGridResult>> parts;
    double seconds = frozen->setup.wallSeconds;
    for (const auto& [unit, text] : unitResults) {
        const json j = json::parse(text, nullptr, false);
        try {
            if (!j.is_object()) throw std::invalid_argument("not JSON");
            const experiments::AdamixGridPart part{j.at("seed").get<long long>(),
                                                   j.at("private_index").get<std::size_t>()};
            parts.emplace_back(part, adamix_codec::partOf(j));
            seconds += unhex(j.at("seconds"));
        } catch (const std::exception& e) {
            return Error{"unit " + std::to_string(unit) + ": malformed AdaMix-R result (" + e.what() + ")"};
        }
    }
    auto result = experiments::assembleAdamixGrid(parts, frozen->grid);
    if (!result) return result.error();
    experiment_runs::PreparedAdamixExperiment prepared;
    prepared.setup = frozen->setup;
    prepared.setup.wallSeconds = seconds;
    prepared.grid = frozen->grid;
    prepared.extractorWeights = std::move(read.extractorWeights);
    return experiment_runs::storeAdamixExperimentRun(project, prepared, std::move(result).value(), provenance);
}

}  // namespace dpmix::executor
