#pragma once
// Every dpmix command that takes a project also accepts a spec: a spec SPEC.json is turned into
// (or matched with) the project SPEC.dpmix next to it.
#include "engine/core/result.h"
#include "engine/data/source_spec.h"
#include "engine/project/project_file.h"

#include <filesystem>
#include <functional>

namespace dpmix::project {

/// Loads a source once and reports its facts (the app passes data::summarizeSource, adapted).
using SourceSummarizer = std::function<Result<SourceFacts>(const data::SourceSpec&)>;

/// The project file that belongs to a spec: <spec dir>/<spec stem>.dpmix.
std::filesystem::path projectPathForSpec(const std::filesystem::path& specFile);

/// Summarises every source of a resolved spec (public sources in order, then the sensitive
/// one); an error names the source.
Result<std::vector<SourceFacts>> summarizeSources(const ProjectSpec& spec, const SourceSummarizer& summarize);

/// `dpmix new`: validates the spec file, summarises its sources and creates `projectFile`.
Result<ProjectFile> createProjectFromSpecFile(const std::filesystem::path& specFile,
                                              const std::filesystem::path& projectFile,
                                              const SourceSummarizer& summarize, bool replace = false);

/// An SQLite file, or any file not named *.json, is opened as a project. A spec (*.json) is validated; its project
/// (projectPathForSpec) is opened when it exists and was made from the same spec, created when it does not exist, and
/// refused when it was made from a different spec. `mode` is how an existing project is opened:
/// the commands that only read (`inspect`, `budget`, `results`, `export-spec`) pass ReadOnly, so
/// they never write into it (docs/PROJECT_FILE.md, "Read-only open").
Result<ProjectFile> openOrCreateFromSpecOrProject(const std::filesystem::path& path, const SourceSummarizer& summarize,
                                                  OpenMode mode = OpenMode::Auto);

}  // namespace dpmix::project
