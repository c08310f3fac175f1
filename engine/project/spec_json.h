#pragma once
// Reading, validating and writing the human-editable project spec JSON. Validation is strict:
// unknown keys, wrong types and out-of-range values are rejected with one message naming the
// JSON path (e.g. "privacy.delta"), the value and what is expected.
#include "engine/core/result.h"
#include "engine/project/project_spec.h"

#include <filesystem>
#include <optional>
#include <set>
#include <string>

namespace dpmix::project {

/// Where relative paths in a spec are looked up: first the spec's folder, then the data folder.
struct SpecLocation {
    std::filesystem::path specDir;
    std::filesystem::path dataDir;
    bool checkFiles = true;  // false: keep paths unresolved (e.g. a spec read back from a project)
    /// false: stage values need only be > 0 (>= 1 for integers), not within today's sane
    /// ranges: a spec read back from a project that an older dpmix created must still open.
    bool checkRanges = true;
    /// privacy.accountant when the spec does not name one: PRV for a spec that starts a project;
    /// RDP for a spec read back from a project file, since projects that an older dpmix created
    /// were certified by RDP and keep being so.
    privacy::Accountant defaultAccountant = privacy::Accountant::Prv;
};

/// Options that name a file or folder, per loader (engine/data/source_loader.h); they are
/// resolved like `path`. Other options are passed through untouched.
std::set<std::string> pathOptionsOf(const std::string& loader);

/// The data folder for a spec file: $DPMIX_DATA_DIR if set, else <spec dir>/../data.
std::filesystem::path defaultDataDir(const std::filesystem::path& specFile);

/// Parses and validates spec text; messages start with `origin` (e.g. the file name).
Result<ProjectSpec> parseProjectSpec(const std::string& text, const SpecLocation& where,
                                     const std::string& origin = "spec");

/// Reads a spec file and resolves its paths (spec folder, then defaultDataDir).
Result<ProjectSpec> loadProjectSpecFile(const std::filesystem::path& file);

/// The range of a target ε, in a spec and on the command line: [1e-9, 1e6].
inline constexpr double kMinEpsilon = 1e-9;
inline constexpr double kMaxEpsilon = 1e6;

/// The sane range of a stage value (docs/PROJECT_FILE.md, "Stages"), for values that reach a
/// stage without passing through a spec (a workbench panel, a command-line override): `key` is
/// "clip", "lr", "steps", "batch" or "user_group_size"; the error names `path`, the value and
/// the range, as spec validation does. An unknown key is an error too.
Status checkStageValue(const std::string& path, const std::string& key, double value);

/// The spec as JSON, with paths and options as written (what `dpmix export-spec` prints).
std::string projectSpecToJson(const ProjectSpec& spec, int indent = 2);

}  // namespace dpmix::project
