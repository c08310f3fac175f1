#include "engine/privacy/ledger_json.h"

#include "engine/privacy/parameters.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <optional>

namespace dpmix::privacy {
namespace {

using nlohmann::json;

json number(double v) {
    if (std::isinf(v)) return v > 0 ? json("inf") : json("-inf");
    if (std::isnan(v)) return json(nullptr);
    return json(v);
}

bool readNumber(const json& j, const char* key, double& out, std::string& err, const std::string& where) {
    if (!j.contains(key)) {
        err = where + ": missing field '" + key + "'";
        return false;
    }
    const json& v = j.at(key);
    if (v.is_number()) {
        out = v.get<double>();
        return true;
    }
    if (v.is_string() && v.get<std::string>() == "inf") {
        out = std::numeric_limits<double>::infinity();
        return true;
    }
    if (v.is_null()) {
        out = std::nan("");
        return true;
    }
    err = where + ": field '" + key + "' must be a number";
    return false;
}

// A ledger read from a file may be damaged or forged: a mechanism's parameters must be ones a
// mechanism can have before the accountant is asked about them (it refuses the others, and a
// reader such as `dpmix inspect` must answer with an error, not stop).
std::optional<std::string> outOfRange(const LedgerEntry& e, double steps) {
    auto bad = [](const char* field, double v, const char* expected) {
        return std::optional<std::string>(std::string("'") + field +
                                          "' = " + (std::isnan(v) ? std::string("null") : formatNumber(v)) +
                                          " is out of range: expected " + expected);
    };
    if (e.mechanism == MechanismKind::NonPrivate) return std::nullopt;
    const bool dirichlet = e.mechanism == MechanismKind::SubsampledDirichlet;
    if (dirichlet ? !(e.q > 0.0 && e.q <= 1.0) : !(e.q >= 0.0 && e.q <= 1.0))
        return bad("q", e.q, dirichlet ? "a sampling rate in (0, 1]" : "a sampling rate in [0, 1]");
    if (!(steps >= 0.0 && steps <= 1e12) || steps != std::floor(steps))
        return bad("steps", steps, "a whole number of steps from 0 to 1e12");
    if (!(e.delta >= 0.0 && e.delta < 1.0)) return bad("delta", e.delta, "a number in [0, 1)");
    if (!dirichlet && !(e.sigma >= 0.0 && std::isfinite(e.sigma)))
        return bad("sigma", e.sigma, "a finite noise multiplier >= 0");
    if (dirichlet && !(e.dirichletAlpha > 0.0 && std::isfinite(e.dirichletAlpha)))
        return bad("dirichlet_alpha", e.dirichletAlpha, "a finite concentration > 0");
    if (dirichlet && !(e.dirichletR > 0.0 && e.dirichletR < e.dirichletAlpha))
        return bad("dirichlet_r", e.dirichletR, "a number in (0, dirichlet_alpha)");
    return std::nullopt;
}

}  // namespace

std::string ledgerToJson(const Ledger& ledger, int indent) {
    json entries = json::array();
    for (const auto& e : ledger.entries()) {
        entries.push_back({{"stage", e.stage},
                           {"mechanism", toString(e.mechanism)},
                           {"unit", toString(e.unit)},
                           {"split", e.split},
                           {"q", e.q},
                           {"steps", e.steps},
                           {"sigma", e.sigma},
                           {"clip_norm", e.clipNorm},
                           {"dirichlet_alpha", e.dirichletAlpha},
                           {"dirichlet_r", e.dirichletR},
                           {"delta", e.delta},
                           {"epsilon", number(e.epsilon)},
                           {"accountant", e.accountant},
                           {"accounting", toString(e.accounting)},
                           {"established", e.established},
                           {"assumptions", e.assumptions},
                           {"randomness", toString(e.randomness)}});
        if (!e.keyStream.empty()) entries.back()["key_stream"] = e.keyStream;
        if (e.spentInRun > 0) entries.back()["spent_in_run"] = e.spentInRun;
    }
    json j{{"format", "dpmix-ledger/1"}, {"composition", toString(ledger.composition())}, {"entries", entries}};
    return j.dump(indent);
}

Result<Ledger> ledgerFromJson(const std::string& text) {
    json j = json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return Error{"ledger: not a JSON object"};
    Composition comp = Composition::Parallel;
    if (j.contains("composition") && (!j["composition"].is_string() || !parseComposition(j["composition"], comp)))
        return Error{"ledger: composition must be \"parallel\" or \"sequential\""};
    if (!j.contains("entries") || !j["entries"].is_array()) return Error{"ledger: missing array 'entries'"};
    Ledger ledger(comp);
    int index = 0;
    for (const auto& je : j["entries"]) {
        ++index;
        const std::string where = "ledger entry " + std::to_string(index);
        if (!je.is_object()) return Error{where + ": not an object"};
        LedgerEntry e;
        std::string err;
        auto str = [&](const char* key, std::string& out) {
            if (je.contains(key) && je[key].is_string()) out = je[key].get<std::string>();
        };
        str("stage", e.stage);
        str("split", e.split);
        str("accountant", e.accountant);
        str("assumptions", e.assumptions);
        if (!je.contains("mechanism") || !je["mechanism"].is_string() ||
            !parseMechanismKind(je["mechanism"], e.mechanism))
            return Error{where + ": 'mechanism' must be subsampled-gaussian, subsampled-dirichlet or non-private"};
        if (je.contains("unit") && (!je["unit"].is_string() || !parsePrivacyUnit(je["unit"], e.unit)))
            return Error{where + ": 'unit' must be example or user"};
        double steps = 1;
        if (!readNumber(je, "epsilon", e.epsilon, err, where)) return Error{err};
        if (e.mechanism != MechanismKind::NonPrivate) {
            if (!readNumber(je, "q", e.q, err, where) || !readNumber(je, "steps", steps, err, where) ||
                !readNumber(je, "delta", e.delta, err, where))
                return Error{err};
        }
        if (e.mechanism == MechanismKind::SubsampledGaussian && !readNumber(je, "sigma", e.sigma, err, where))
            return Error{err};
        if (e.mechanism == MechanismKind::SubsampledDirichlet &&
            (!readNumber(je, "dirichlet_alpha", e.dirichletAlpha, err, where) ||
             !readNumber(je, "dirichlet_r", e.dirichletR, err, where)))
            return Error{err};
        if (auto problem = outOfRange(e, steps)) return Error{where + ": " + *problem};
        if (e.mechanism != MechanismKind::NonPrivate) e.steps = static_cast<long long>(steps);
        if (je.contains("clip_norm") && je["clip_norm"].is_number()) e.clipNorm = je["clip_norm"].get<double>();
        if (je.contains("established") && je["established"].is_boolean()) e.established = je["established"].get<bool>();
        // Ledgers written before secret randomness carry no field: their mechanisms were seeded.
        RandomnessMode randomness = RandomnessMode::Seeded;
        if (je.contains("randomness") &&
            (!je["randomness"].is_string() || !parseRandomnessMode(je["randomness"], randomness)))
            return Error{where + ": 'randomness' must be \"secret\" or \"seeded\""};
        setRandomness(e, randomness);
        e.keyStream.clear();  // what the file says, not this machine's: ledgers before it say nothing
        str("key_stream", e.keyStream);
        // Ledgers written before the PRV accountant carry no field: RDP certified them.
        if (je.contains("accounting") &&
            (!je["accounting"].is_string() || !parseAccountant(je["accounting"], e.accounting)))
            return Error{where + ": 'accounting' must be \"rdp\" or \"prv\""};
        if (je.contains("spent_in_run")) {
            if (!je["spent_in_run"].is_number_integer() || je["spent_in_run"].get<long long>() < 1)
                return Error{where + ": 'spent_in_run' must be a run id (an integer >= 1)"};
            e.spentInRun = je["spent_in_run"].get<long long>();
        }
        ledger.record(std::move(e));
    }
    return ledger;
}

std::string ledgerTotalToJson(const LedgerTotal& t, int indent) {
    json splits = json::array();
    for (const auto& s : t.perSplit)
        splits.push_back(
            {{"split", s.split}, {"epsilon", number(s.epsilon)}, {"delta", s.delta}, {"order", number(s.order)}});
    json j{{"epsilon", number(t.epsilon)},
           {"delta", t.delta},
           {"composition", toString(t.composition)},
           {"per_split", splits},
           {"established", t.established},
           {"assumptions", t.assumptions},
           {"randomness", t.seeded ? "seeded" : "secret"}};
    return j.dump(indent);
}

}  // namespace dpmix::privacy
