#pragma once
// The project spec reader's shared parts (spec_json.cpp reads the sources, tasks and privacy;
// spec_json_stages.cpp the stages, AdaMix-R and PSG sections): typed getters that name the JSON path
// of a bad value, and the sane ranges of stage values. Internal to engine/project.
#include "engine/project/spec_json.h"

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>
#include <vector>

namespace dpmix::project::spec_reading {

using Json = nlohmann::ordered_json;

// Thrown inside the parser, caught once at the API boundary and turned into an Error.
struct SpecError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

std::string showNumberText(double v);  // "nan", "inf" or "-inf"
std::string show(const Json& value);   // the value as JSON, cut to 60 characters
std::string typeName(const Json& value);
[[noreturn]] void fail(const std::string& path, const std::string& problem);
[[noreturn]] void wrongType(const std::string& path, const Json& value, const std::string& expected);
std::string child(const std::string& path, const std::string& key);
std::string element(const std::string& path, std::size_t i);

void checkKeys(const Json& object, const std::string& path, const std::vector<std::string>& allowed);
const Json& requireObject(const Json& parent, const std::string& path, const std::string& key);
std::string requireString(const Json& parent, const std::string& path, const std::string& key, bool allowEmpty = false);
double numberValue(const Json& v, const std::string& path);
long long integerValue(const Json& v, const std::string& path);

// The sane range of a stage value (docs/PROJECT_FILE.md, "Stages"): finite extremes such as
// "clip": 1e308 overflow the mechanisms into NaN, so they are refused with the range.
struct RealRange {
    double max;
    const char* maxText;  // as the message writes it, e.g. "1e6"
    const char* what;     // e.g. "a clipping norm"
};
struct IntegerRange {
    long long min, max;
    const char* maxText;
    const char* what;
};

inline constexpr RealRange kClip{1e6, "1e6", "a clipping norm"};
inline constexpr RealRange kLearningRate{1e3, "1e3", "a learning rate"};
inline constexpr IntegerRange kSteps{1, 10'000'000, "1e7", "a number of steps"};
inline constexpr IntegerRange kBatch{1, 100'000'000, "1e8", "an expected batch size"};
inline constexpr IntegerRange kUserGroupSize{1, 1'000'000, "1e6", "a user group size"};

// `checkRanges` false: a spec read back from a project file made by an older dpmix, which may
void readPositive(const Json& stage, const std::string& path, const std::string& key, const RealRange& range,
                  bool checkRanges, double& out);
void readInteger(const Json& stage, const std::string& path, const std::string& key, const IntegerRange& range,
                 bool checkRanges, long long& out);
double openUnitInterval(const Json& parent, const std::string& path, const std::string& key, const std::string& what);

// The sections spec_json_stages.cpp reads.
void readStages(const Json& root, ProjectSpec& spec, bool checkRanges);
void readPsg(const Json& root, ProjectSpec& spec, bool checkRanges);

}  // namespace dpmix::project::spec_reading
