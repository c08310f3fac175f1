#pragma once
// Glue shared by the commands that create or read a project file (`new`, `export-spec`,
// `inspect`, and any later command that takes a project): the data layer summarises sources,
// and a spec given where a project is expected is turned into the project next to it.
#include "engine/core/result.h"
#include "engine/project/project_opener.h"

#include <string>
#include <vector>

namespace dpmix::cli {

/// data::summarizeSource, reported as the project's SourceFacts.
project::SourceSummarizer dataLayerSummarizer();

/// PATH is a .dpmix project, or a spec whose project (SPEC.dpmix next to it) is opened or
/// created (project::openOrCreateFromSpecOrProject).
Result<project::ProjectFile> openProjectArgument(const std::string& path);

/// openProjectArgument for the commands that only read (`inspect`, `budget`, `results`,
/// `export-spec`): an existing project is opened read-only, so reading never writes into it — no
/// recovery, no migration, and a -wal that is not the file's is refused, never replayed
/// (docs/PROJECT_FILE.md, "Read-only open"). A spec whose project does not exist yet still
/// creates it, as every command does.
Result<project::ProjectFile> openProjectToRead(const std::string& path);

/// openProjectArgument for the commands that add runs (`run`, `audit`, `experiment`): a
/// read-only project, or a DP release, is refused at once, before any data is loaded.
Result<project::ProjectFile> openProjectForRuns(const std::string& path);

/// The integrity verdict for commands that print stored results (`results`, `budget`,
/// `export-release`): one line ("hash chain ✓ (N rows) ..." or what is wrong: a broken chain or
/// seal, a run status changed, a ledger that does not recompute), and whether it held. A command
/// whose file does not verify still prints, says so first, and exits with 1.
struct IntegrityVerdict {
    bool ok = false;
    std::string line;
    std::vector<std::string> details;  // every problem, then notices ("note: ...")
};
IntegrityVerdict checkIntegrity(const project::ProjectFile& project);

/// Writes text to a file atomically (temporary file + rename); an Error names the file.
Status writeTextFile(const std::string& path, const std::string& text);

}  // namespace dpmix::cli
