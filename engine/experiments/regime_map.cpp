#include "engine/experiments/regime_map.h"

#include "engine/methods/method_plan.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>
#include <tuple>

namespace dpmix::experiments {
namespace {

using Json = nlohmann::ordered_json;
constexpr const char* kSchema = "dpmix-regime-map-v1";

// (ε, method, seed) → task → AUC, re-runs of one key averaged.
using TaskValues = std::map<std::string, std::vector<double>>;
using Grouped = std::map<std::tuple<double, std::string, long long>, TaskValues>;

Grouped groupByCell(const std::vector<project::ResultObservation>& observations) {
    Grouped grouped;
    for (const auto& o : observations) grouped[{o.epsilon, o.method, o.seed}][o.task].push_back(o.value);
    return grouped;
}

double averageOf(const std::vector<double>& values) { return meanStd(values).mean; }

// The tasks every method holds on (ε, seed): the macro mean is taken over these only.
std::set<std::string> commonTasks(const Grouped& grouped, double epsilon, long long seed,
                                  const std::set<std::string>& methods) {
    std::set<std::string> common;
    bool first = true;
    for (const auto& method : methods) {
        const auto it = grouped.find({epsilon, method, seed});
        std::set<std::string> tasks;
        if (it != grouped.end())
            for (const auto& [task, values] : it->second) tasks.insert(task);
        if (first)
            common = tasks;
        else {
            std::set<std::string> kept;
            std::set_intersection(common.begin(), common.end(), tasks.begin(), tasks.end(),
                                  std::inserter(kept, kept.begin()));
            common = kept;
        }
        first = false;
    }
    return common;
}

// The summaries and paired differences of a cell whose per-seed values are set: one definition for
// a cell computed from a project and one read back from a stored map.
void finishRegimeCell(RegimeCell& cell) {
    std::erase_if(cell.perSeed, [](const auto& entry) { return entry.second.empty(); });
    cell.methods.clear();
    for (const auto& [method, bySeed] : cell.perSeed) {
        std::vector<double> values;
        for (const auto& [seed, value] : bySeed) values.push_back(value);
        cell.methods[method] = meanStd(values);
    }
    const auto seedsOf = [&](methods::Method m) {
        const auto it = cell.perSeed.find(methods::nameOf(m));
        return it == cell.perSeed.end() ? std::map<long long, double>{} : it->second;
    };
    const auto dp = seedsOf(methods::Method::DpMixMin);
    cell.vsRandomInit = pairedDifference(dp, seedsOf(methods::Method::RandomInit));
    cell.vsUniform = pairedDifference(dp, seedsOf(methods::Method::Uniform));
}

RegimeCell cellAt(const Grouped& grouped, double epsilon, const std::set<long long>& seeds,
                  const std::set<std::string>& methods) {
    RegimeCell cell;
    cell.epsilon = epsilon;
    for (const long long seed : seeds) {
        const auto tasks = commonTasks(grouped, epsilon, seed, methods);
        if (tasks.empty()) continue;
        cell.tasks = std::max(cell.tasks, static_cast<int>(tasks.size()));
        for (const auto& method : methods) {
            const TaskValues& values = grouped.at({epsilon, method, seed});
            double sum = 0.0;
            for (const auto& task : tasks) sum += averageOf(values.at(task));
            cell.perSeed[method][seed] = sum / static_cast<double>(tasks.size());
        }
    }
    finishRegimeCell(cell);
    return cell;
}

Json differenceJson(const PairedDifference& d) {
    return Json{{"mean", d.mean}, {"low", d.low}, {"high", d.high}, {"seeds", d.seeds}};
}

}  // namespace

const std::vector<PoolKindTraits>& allPoolKinds() {
    static const std::vector<PoolKindTraits> table = {
        {PoolKind::OneSource, "one-source", "one public data set"},
        {PoolKind::Heterogeneous, "heterogeneous", "several public data sets of different kinds"},
    };
    return table;
}

const PoolKindTraits& traitsOf(PoolKind kind) {
    for (const auto& t : allPoolKinds())
        if (t.kind == kind) return t;
    return allPoolKinds().front();
}

Result<PoolKind> parsePoolKind(std::string_view name) {
    for (const auto& t : allPoolKinds())
        if (t.name == name) return t.kind;
    return Error{"pool kind '" + std::string(name) + "': expected one-source or heterogeneous"};
}

PoolKind poolKindOf(std::size_t publicSources) {
    return publicSources > 1 ? PoolKind::Heterogeneous : PoolKind::OneSource;
}

std::vector<RegimeCell> regimeCellsOf(const std::vector<project::ResultObservation>& observations,
                                      const std::string& pool, PoolKind kind, long long n) {
    const Grouped grouped = groupByCell(observations);
    std::set<double> epsilons;
    std::set<long long> seeds;
    std::set<std::string> methodNames;
    for (const auto& o : observations) {
        epsilons.insert(o.epsilon);
        seeds.insert(o.seed);
        methodNames.insert(o.method);
    }
    std::vector<RegimeCell> cells;
    for (const double epsilon : epsilons) {
        // Per ε, the methods that ran at this ε (a method absent at one ε must not empty another's cell).
        std::set<std::string> present;
        for (const auto& method : methodNames)
            for (const long long seed : seeds)
                if (grouped.count({epsilon, method, seed})) present.insert(method);
        RegimeCell cell = cellAt(grouped, epsilon, seeds, present);
        cell.pool = pool;
        cell.poolKind = kind;
        cell.n = n;
        if (!cell.methods.empty()) cells.push_back(std::move(cell));
    }
    return cells;
}

std::string regimeMapToJson(const RegimeMap& map) {
    Json out{{"schema", kSchema}, {"reference", map.reference}, {"metric", map.metric}, {"cells", Json::array()}};
    for (const auto& c : map.cells) {
        Json methods = Json::object();
        for (const auto& [name, summary] : c.methods) {
            Json perSeed = Json::object();
            for (const auto& [seed, value] : c.perSeed.at(name)) perSeed[std::to_string(seed)] = value;
            methods[name] = {{"mean", summary.mean}, {"std", summary.std}, {"per_seed", perSeed}};
        }
        out["cells"].push_back({{"pool", c.pool},
                                {"pool_kind", traitsOf(c.poolKind).name},
                                {"n", c.n},
                                {"epsilon", c.epsilon},
                                {"tasks", c.tasks},
                                {"methods", methods},
                                {"dp_mixmin_minus_random_init", differenceJson(c.vsRandomInit)},
                                {"dp_mixmin_minus_uniform", differenceJson(c.vsUniform)}});
    }
    return out.dump(1) + "\n";
}

namespace {

Result<RegimeCell> cellFromJson(const Json& c, const std::string& where) {
    RegimeCell cell;
    if (!c.is_object()) return Error{where + ": expected an object"};
    for (const char* key : {"pool", "pool_kind", "n", "epsilon", "methods"})
        if (!c.contains(key)) return Error{where + "." + key + ": missing"};
    if (!c["pool"].is_string() || !c["pool_kind"].is_string() || !c["n"].is_number_integer() ||
        !c["epsilon"].is_number() || !c["methods"].is_object())
        return Error{where +
                     ": expected pool and pool_kind as strings, n an integer, epsilon a number, methods an object"};
    cell.pool = c["pool"].get<std::string>();
    auto kind = parsePoolKind(c["pool_kind"].get<std::string>());
    if (!kind) return Error{where + ".pool_kind: " + kind.error().message};
    cell.poolKind = *kind;
    cell.n = c["n"].get<long long>();
    cell.epsilon = c["epsilon"].get<double>();
    if (cell.n < 1 || !(cell.epsilon > 0.0)) return Error{where + ": n must be >= 1 and epsilon > 0"};
    if (c.contains("tasks") && !c["tasks"].is_number_integer()) return Error{where + ".tasks: expected an integer"};
    cell.tasks = c.contains("tasks") ? c["tasks"].get<int>() : 0;
    for (const auto& [method, entry] : c["methods"].items()) {
        const std::string at = where + ".methods." + method + ".per_seed";
        if (!entry.is_object() || !entry.contains("per_seed") || !entry["per_seed"].is_object())
            return Error{at + ": missing (an object seed -> value)"};
        for (const auto& [seed, value] : entry["per_seed"].items()) {
            if (!value.is_number()) return Error{at + "." + seed + ": expected a number"};
            try {
                cell.perSeed[method][std::stoll(seed)] = value.get<double>();
            } catch (const std::exception&) {
                return Error{at + ": '" + seed + "' is not a seed (an integer)"};
            }
        }
    }
    finishRegimeCell(cell);
    return cell;
}

}  // namespace

Result<RegimeMap> regimeMapFromJson(const std::string& text, const std::string& origin) {
    const Json root = Json::parse(text, nullptr, false);
    if (root.is_discarded() || !root.is_object()) return Error{origin + ": not a JSON object"};
    if (root.value("schema", std::string{}) != kSchema)
        return Error{origin + ": schema: expected '" + std::string(kSchema) + "'"};
    if (!root.contains("cells") || !root["cells"].is_array()) return Error{origin + ".cells: missing (an array)"};
    RegimeMap map;
    for (const char* key : {"reference", "metric"})
        if (root.contains(key) && !root[key].is_string()) return Error{origin + "." + key + ": expected a string"};
    map.reference = root.contains("reference") ? root["reference"].get<std::string>() : "";
    map.metric = root.contains("metric") ? root["metric"].get<std::string>() : "test-auc";
    for (std::size_t i = 0; i < root["cells"].size(); ++i) {
        auto cell = cellFromJson(root["cells"][i], origin + ".cells[" + std::to_string(i) + "]");
        if (!cell) return cell.error();
        map.cells.push_back(std::move(*cell));
    }
    return map;
}

}  // namespace dpmix::experiments
