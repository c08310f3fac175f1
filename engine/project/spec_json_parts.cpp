// The spec reader's typed getters and range checks (spec_json_parts.h).
#include "engine/project/spec_json_parts.h"
#include "engine/core/joined_list.h"

#include <cmath>

namespace dpmix::project::spec_reading {

std::string showNumberText(double v) {
    if (std::isnan(v)) return "nan";
    return v > 0 ? "inf" : "-inf";
}

std::string show(const Json& value) {
    std::string text = value.dump();
    if (text.size() > 60) text = text.substr(0, 57) + "...";
    return text;
}

std::string typeName(const Json& value) {
    if (value.is_null()) return "null";
    if (value.is_boolean()) return "a boolean";
    if (value.is_number()) return "a number";
    if (value.is_string()) return "a string";
    if (value.is_array()) return "an array";
    return "an object";
}

[[noreturn]] void fail(const std::string& path, const std::string& problem) { throw SpecError(path + ": " + problem); }

[[noreturn]] void wrongType(const std::string& path, const Json& value, const std::string& expected) {
    fail(path, show(value) + " is " + typeName(value) + ": expected " + expected);
}

std::string child(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }
std::string element(const std::string& path, std::size_t i) { return path + "[" + std::to_string(i) + "]"; }

void checkKeys(const Json& object, const std::string& path, const std::vector<std::string>& allowed) {
    for (const auto& item : object.items()) {
        bool known = false;
        for (const auto& a : allowed) known = known || item.key() == a;
        if (!known) {
            fail(child(path, item.key()), "unknown key (expected one of: " + core::joinedList(allowed) + ")");
        }
    }
}

const Json& requireObject(const Json& parent, const std::string& path, const std::string& key) {
    if (!parent.contains(key)) fail(child(path, key), "missing (expected an object)");
    const Json& v = parent.at(key);
    if (!v.is_object()) wrongType(child(path, key), v, "an object");
    return v;
}

std::string requireString(const Json& parent, const std::string& path, const std::string& key, bool allowEmpty) {
    if (!parent.contains(key)) fail(child(path, key), "missing (expected a string)");
    const Json& v = parent.at(key);
    if (!v.is_string()) wrongType(child(path, key), v, "a string");
    std::string s = v.get<std::string>();
    if (!allowEmpty && s.empty()) fail(child(path, key), "is empty: expected a non-empty string");
    return s;
}

double numberValue(const Json& v, const std::string& path) {
    if (!v.is_number()) wrongType(path, v, "a number");
    const double d = v.get<double>();
    if (!std::isfinite(d)) fail(path, show(v) + " is not a finite number");
    return d;
}

long long integerValue(const Json& v, const std::string& path) {
    if (v.is_number_integer()) return v.get<long long>();
    if (v.is_number_float()) {
        const double d = v.get<double>();
        if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9e15) return static_cast<long long>(d);
    }
    wrongType(path, v, "an integer");
}

// The sane range of a stage value (docs/PROJECT_FILE.md, "Stages"): finite extremes such as
// (> 0, >= 1) apply.
void readPositive(const Json& stage, const std::string& path, const std::string& key, const RealRange& range,
                  bool checkRanges, double& out) {
    if (!stage.contains(key)) return;
    const double d = numberValue(stage.at(key), child(path, key));
    if (checkRanges && !(d > 0 && d <= range.max))
        fail(child(path, key),
             show(stage.at(key)) + " is out of range: expected " + range.what + " in (0, " + range.maxText + "]");
    if (d <= 0) fail(child(path, key), show(stage.at(key)) + " is out of range: expected a number > 0");
    out = d;
}

void readInteger(const Json& stage, const std::string& path, const std::string& key, const IntegerRange& range,
                 bool checkRanges, long long& out) {
    if (!stage.contains(key)) return;
    const long long v = integerValue(stage.at(key), child(path, key));
    if (checkRanges && !(v >= range.min && v <= range.max))
        fail(child(path, key), show(stage.at(key)) + " is out of range: expected " + range.what + ", an integer in [" +
                                   std::to_string(range.min) + ", " + range.maxText + "]");
    if (v < range.min)
        fail(child(path, key),
             show(stage.at(key)) + " is out of range: expected an integer >= " + std::to_string(range.min));
    out = v;
}

double openUnitInterval(const Json& parent, const std::string& path, const std::string& key, const std::string& what) {
    if (!parent.contains(key)) fail(child(path, key), "missing (expected " + what + " in (0, 1))");
    const double d = numberValue(parent.at(key), child(path, key));
    if (!(d > 0.0 && d < 1.0))
        fail(child(path, key), show(parent.at(key)) + " is out of range: expected " + what + " in (0, 1)");
    return d;
}

}  // namespace dpmix::project::spec_reading
