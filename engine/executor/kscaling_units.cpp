#include "engine/executor/kscaling_units.h"

#include "engine/core/double_bits.h"

#include <nlohmann/json.hpp>

namespace dpmix::executor {
namespace {

using nlohmann::json;

constexpr const char* kKScalingFormat = "dpmix-kscaling/1";

std::string hexText(double v) { return doubleToHexBits(v); }
double fromHexText(const json& j) { return doubleFromHexBitsOrThrow(j.get<std::string>()); }

json optionsJson(const experiment_runs::KScalingStageOptions& o) {
    return json{{"ks", o.ks},
                {"seeds", o.seeds},
                {"gap_tolerance", hexText(o.gapTolerance)},
                {"threads", o.threads},
                {"max_classes", o.maxClasses}};
}

json inputsJson(const experiment_runs::KScalingInputs& in) {
    json p = json::array();
    for (Eigen::Index i = 0; i < in.classProbabilities.rows(); ++i)
        for (Eigen::Index c = 0; c < in.classProbabilities.cols(); ++c)
            p.push_back(hexText(in.classProbabilities(i, c)));
    return json{{"classes", in.classes},
                {"epsilon", hexText(in.epsilon)},
                {"split_a", in.splitA},
                {"split_seed", in.splitSeed},
                {"rows", in.classProbabilities.rows()},
                {"columns", in.classProbabilities.cols()},
                {"probabilities", p},
                {"labels", in.labels},
                {"mixture",
                 {{"clip", hexText(in.mixture.clip)},
                  {"batch", in.mixture.batch},
                  {"lr", hexText(in.mixture.lr)},
                  {"steps", in.mixture.steps}}},
                {"delta", hexText(in.delta)},
                {"accountant", privacy::toString(in.accountant)}};
}

struct FrozenKScaling {
    experiment_runs::KScalingStageOptions options;
    experiment_runs::KScalingInputs inputs;
};

Result<FrozenKScaling> parseFrozenKScaling(const std::string& text) {
    const json j = json::parse(text, nullptr, false);
    if (!j.is_object() || j.value("format", "") != kKScalingFormat) return Error{"not a frozen dpmix k-scaling"};
    FrozenKScaling f;
    try {
        const json& o = j.at("options");
        f.options.ks = o.at("ks").get<std::vector<long long>>();
        f.options.seeds = o.at("seeds").get<long long>();
        f.options.gapTolerance = fromHexText(o.at("gap_tolerance"));
        f.options.threads = o.at("threads").get<int>();
        f.options.maxClasses = o.at("max_classes").get<long long>();
        const json& in = j.at("inputs");
        f.inputs.classes = in.at("classes").get<std::vector<std::string>>();
        f.inputs.epsilon = fromHexText(in.at("epsilon"));
        f.inputs.splitA = in.at("split_a").get<long long>();
        f.inputs.splitSeed = in.at("split_seed").get<std::uint64_t>();
        const auto rows = in.at("rows").get<Eigen::Index>(), cols = in.at("columns").get<Eigen::Index>();
        const json& p = in.at("probabilities");
        if (rows < 0 || cols < 0 || p.size() != static_cast<std::size_t>(rows * cols))
            return Error{"frozen k-scaling: the probabilities are not rows × columns"};
        f.inputs.classProbabilities.resize(rows, cols);
        for (Eigen::Index i = 0; i < rows; ++i)
            for (Eigen::Index c = 0; c < cols; ++c)
                f.inputs.classProbabilities(i, c) = fromHexText(p[static_cast<std::size_t>(i * cols + c)]);
        f.inputs.labels = in.at("labels").get<std::vector<std::vector<int>>>();
        if (f.inputs.labels.size() != f.inputs.classes.size())
            return Error{"frozen k-scaling: one label list per class expected"};
        for (const auto& l : f.inputs.labels)
            if (static_cast<Eigen::Index>(l.size()) != rows)
                return Error{"frozen k-scaling: a label list is not split A"};
        const json& m = in.at("mixture");
        f.inputs.mixture.clip = fromHexText(m.at("clip"));
        f.inputs.mixture.batch = m.at("batch").get<long long>();
        f.inputs.mixture.lr = fromHexText(m.at("lr"));
        f.inputs.mixture.steps = m.at("steps").get<long long>();
        f.inputs.delta = fromHexText(in.at("delta"));
        if (!privacy::parseAccountant(in.at("accountant").get<std::string>(), f.inputs.accountant))
            return Error{"frozen k-scaling: unknown accountant"};
    } catch (const std::exception& e) {
        return Error{std::string("frozen k-scaling: malformed (") + e.what() + ")"};
    }
    return f;
}

json resultJson(long long classIndex, const experiments::KScalingResult& r) {
    json rows = json::array();
    for (const auto& row : r.rows) {
        json excess = json::array();
        for (double e : row.excess) excess.push_back(hexText(e));
        rows.push_back({{"k", row.k},
                        {"subsets", row.subsets},
                        {"loss", hexText(row.nonPrivateLoss)},
                        {"gap", hexText(row.nonPrivateGap)},
                        {"excess", excess},
                        {"mean", hexText(row.meanExcess.mean)},
                        {"std", hexText(row.meanExcess.std)},
                        {"count", row.meanExcess.count}});
    }
    return json{{"class", classIndex}, {"rows", rows}};
}

Result<experiments::KScalingResult> resultOf(const std::string& text) {
    const json j = json::parse(text, nullptr, false);
    if (!j.is_object() || !j.contains("rows")) return Error{"not a k-scaling unit result"};
    experiments::KScalingResult r;
    try {
        for (const auto& row : j.at("rows")) {
            experiments::KScalingRow out;
            out.k = row.at("k").get<long long>();
            out.subsets = row.at("subsets").get<std::vector<std::uint32_t>>();
            out.nonPrivateLoss = fromHexText(row.at("loss"));
            out.nonPrivateGap = fromHexText(row.at("gap"));
            for (const auto& e : row.at("excess")) out.excess.push_back(fromHexText(e));
            out.meanExcess.mean = fromHexText(row.at("mean"));
            out.meanExcess.std = fromHexText(row.at("std"));
            out.meanExcess.count = row.at("count").get<long long>();
            r.rows.push_back(std::move(out));
        }
    } catch (const std::exception& e) {
        return Error{std::string("malformed k-scaling unit result (") + e.what() + ")"};
    }
    return r;
}

}  // namespace

Result<std::string> freezeKScaling(project::ProjectFile& project, const experiment_runs::KScalingStageOptions& options,
                                   const ProgressCallback& progress, const CancellationToken& cancel,
                                   const pipeline::LogSink& log) {
    auto in = experiment_runs::prepareKScaling(project, options, progress, cancel, log);
    if (!in) return in.error();
    return json{{"format", kKScalingFormat}, {"options", optionsJson(options)}, {"inputs", inputsJson(*in)}}.dump();
}

Result<long long> frozenKScalingClasses(const std::string& frozenJson) {
    auto f = parseFrozenKScaling(frozenJson);
    if (!f) return f.error();
    return static_cast<long long>(f->inputs.classes.size());
}

std::vector<cluster::WorkUnit> kScalingWorkUnits(long long classes) {
    std::vector<cluster::WorkUnit> units;
    for (long long c = 0; c < classes; ++c) {
        cluster::WorkUnit u;
        u.id = c;
        u.paramsJson = json{{"class", c}}.dump();
        units.push_back(u);
    }
    return units;
}

Result<std::string> runKScalingUnit(const std::string& frozenJson, long long classIndex, int threads) {
    auto parsed = parseFrozenKScaling(frozenJson);
    if (!parsed) return parsed.error();
    FrozenKScaling f = std::move(parsed).value();
    if (classIndex < 0 || classIndex >= static_cast<long long>(f.inputs.classes.size()))
        return Error{"class " + std::to_string(classIndex) + " is not one of the frozen k-scaling's " +
                     std::to_string(f.inputs.classes.size())};
    if (threads > 0) f.options.threads = threads;
    auto r = experiment_runs::runKScalingClass(f.inputs, static_cast<std::size_t>(classIndex), f.options);
    if (!r) return r.error();
    return resultJson(classIndex, *r).dump();
}

Result<experiment_runs::KScalingStageReport> storeFrozenKScaling(
    project::ProjectFile& project, const std::string& frozenJson,
    const std::vector<std::pair<long long, std::string>>& unitResults, const std::string& provenance) {
    auto f = parseFrozenKScaling(frozenJson);
    if (!f) return f.error();
    const std::size_t classes = f->inputs.classes.size();
    std::vector<experiments::KScalingResult> perClass(classes);
    std::vector<bool> seen(classes, false);
    for (const auto& [c, text] : unitResults) {
        if (c < 0 || c >= static_cast<long long>(classes) || seen[static_cast<std::size_t>(c)])
            return Error{"k-scaling: unit results must cover each class once (class " + std::to_string(c) + ")"};
        auto r = resultOf(text);
        if (!r) return Error{"class " + std::to_string(c) + ": " + r.error().message};
        perClass[static_cast<std::size_t>(c)] = std::move(r).value();
        seen[static_cast<std::size_t>(c)] = true;
    }
    for (std::size_t c = 0; c < classes; ++c)
        if (!seen[c]) return Error{"k-scaling: class '" + f->inputs.classes[c] + "' has no result"};
    return experiment_runs::storeKScalingResults(project, f->inputs, f->options, std::move(perClass), provenance);
}

}  // namespace dpmix::executor
