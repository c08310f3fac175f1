#include "engine/executor/sweep_units.h"

#include "engine/core/double_bits.h"
#include "engine/executor/run_units.h"

#include <nlohmann/json.hpp>

namespace dpmix::executor {
namespace {

using nlohmann::json;

constexpr const char* kSweepFormat = "dpmix-sweep/1";

json optionsJson(const experiment_runs::SweepStageOptions& o) {
    json values = json::array();
    for (double v : o.values) values.push_back(doubleToHexBits(v));
    json j{{"values", values},
           {"seeds", o.seeds},
           {"threads", o.threads},
           {"proxy",
            {{"epochs", o.proxy.epochs},
             {"batch", o.proxy.batch},
             {"lr", doubleToHexBits(o.proxy.lr)},
             {"max_examples", o.proxy.maxExamples},
             {"device", o.proxy.device}}}};
    if (o.epsilon) j["epsilon"] = doubleToHexBits(*o.epsilon);
    if (o.splitSeed) j["split_seed"] = *o.splitSeed;
    return j;
}

struct FrozenSweep {
    SweepKind kind = SweepKind::Epsilon;
    experiment_runs::SweepStageOptions options;
    long long afterRun = 0;
};

Result<FrozenSweep> parseFrozenSweep(const std::string& text) {
    const json j = json::parse(text, nullptr, false);
    if (!j.is_object() || j.value("format", "") != kSweepFormat) return Error{"not a frozen dpmix sweep"};
    FrozenSweep f;
    try {
        const std::string kind = j.at("experiment").get<std::string>();
        if (kind != "epsilon" && kind != "rho") return Error{"frozen sweep: unknown experiment '" + kind + "'"};
        f.kind = kind == "rho" ? SweepKind::Rho : SweepKind::Epsilon;
        f.afterRun = j.at("after_run").get<long long>();
        const json& o = j.at("options");
        for (const auto& v : o.at("values")) f.options.values.push_back(doubleFromHexBitsOrThrow(v.get<std::string>()));
        f.options.seeds = o.at("seeds").get<long long>();
        f.options.threads = o.at("threads").get<int>();
        const json& p = o.at("proxy");
        f.options.proxy.epochs = p.at("epochs").get<int>();
        f.options.proxy.batch = p.at("batch").get<long long>();
        f.options.proxy.lr = doubleFromHexBitsOrThrow(p.at("lr").get<std::string>());
        f.options.proxy.maxExamples = p.at("max_examples").get<long long>();
        f.options.proxy.device = p.at("device").get<std::string>();
        if (o.contains("epsilon")) f.options.epsilon = doubleFromHexBitsOrThrow(o["epsilon"].get<std::string>());
        if (o.contains("split_seed")) f.options.splitSeed = o["split_seed"].get<std::uint64_t>();
    } catch (const std::exception& e) {
        return Error{std::string("frozen sweep: malformed (") + e.what() + ")"};
    }
    return f;
}

Status checkSweep(SweepKind kind, const experiment_runs::SweepStageOptions& options) {
    return kind == SweepKind::Rho ? experiment_runs::checkRhoSweepStageOptions(options)
                                  : experiment_runs::checkEpsilonSweepStageOptions(options);
}

}  // namespace

Result<std::string> freezeSweep(project::ProjectFile& project, SweepKind kind,
                                const experiment_runs::SweepStageOptions& options, const ProgressCallback& progress,
                                const CancellationToken& cancel, const pipeline::LogSink& log) {
    if (auto e = checkSweep(kind, options)) return *e;
    if (auto srcs = project.sources(); srcs && project::isTextStudy(*srcs))
        return Error{"a sweep runs on image studies; '" + project.path().string() + "' is a text study"};
    // The proxy is obtained here, once, so every unit's snapshot holds it (a unit never trains one).
    auto prepared = pipeline::prepareStudy(project, options.proxy, progress, cancel, log);
    if (!prepared) return prepared.error();
    auto after = lastRunId(project);
    if (!after) return after.error();
    return json{{"format", kSweepFormat},
                {"experiment", kind == SweepKind::Rho ? "rho" : "epsilon"},
                {"after_run", *after},
                {"options", optionsJson(options)}}
        .dump(1);
}

std::vector<cluster::WorkUnit> sweepWorkUnits(const std::vector<double>& values) {
    std::vector<cluster::WorkUnit> units;
    for (double v : values) {
        cluster::WorkUnit u;
        u.id = static_cast<long long>(units.size());
        u.paramsJson = json{{"value", doubleToHexBits(v)}}.dump();
        units.push_back(u);
    }
    return units;
}

Result<std::string> runSweepUnit(const std::filesystem::path& jobDir, const std::string& frozenJson, long long unit,
                                 const std::string& valueHex, int threads) {
    auto frozen = parseFrozenSweep(frozenJson);
    if (!frozen) return frozen.error();
    auto value = doubleFromHexBits(valueHex);
    if (!value) return Error{"unit " + std::to_string(unit) + ": its value is not 16 hex digits"};
    experiment_runs::SweepStageOptions options = frozen->options;
    options.values = {*value};
    if (threads > 0) options.threads = threads;
    return runOnScratchCopy(jobDir, unit, frozen->afterRun, [&](project::ProjectFile& scratch) -> Status {
        if (frozen->kind == SweepKind::Rho) {
            auto r = experiment_runs::runRhoSweepExperiment(scratch, options);
            if (!r) return r.error();
        } else {
            auto r = experiment_runs::runEpsilonSweepExperiment(scratch, options);
            if (!r) return r.error();
        }
        return std::nullopt;
    });
}

}  // namespace dpmix::executor
