#pragma once
// Glue shared by the commands that create or read a project file (`new`, `export-spec`,
// `inspect`, and any later command that takes a project): the data layer summarises sources,
// and a spec given where a project is expected is turned into the project next to it.
#include "engine/core/result.h"
#include "engine/project/project_opener.h"

#include <string>

namespace dpmix::cli {

/// data::summarizeSource, reported as the project's SourceFacts.
project::SourceSummarizer dataLayerSummarizer();

/// PATH is a .dpmix project, or a spec whose project (SPEC.dpmix next to it) is opened or
/// created (project::openOrCreateFromSpecOrProject).
Result<project::ProjectFile> openProjectArgument(const std::string& path);

/// Writes text to a file atomically (temporary file + rename); an Error names the file.
Result<bool> writeTextFile(const std::string& path, const std::string& text);

}  // namespace dpmix::cli
