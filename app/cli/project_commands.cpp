#include "app/cli/project_commands.h"

#include "engine/core/file_door.h"
#include "engine/pipeline/run_storage.h"

#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace dpmix::cli {

project::SourceSummarizer dataLayerSummarizer() { return pipeline::summarizeWithDataLayer; }

Result<project::ProjectFile> openProjectArgument(const std::string& path) {
    return project::openOrCreateFromSpecOrProject(path, dataLayerSummarizer());
}

Result<project::ProjectFile> openProjectToRead(const std::string& path) {
    return project::openOrCreateFromSpecOrProject(path, dataLayerSummarizer(), project::OpenMode::ReadOnly);
}

Result<project::ProjectFile> openProjectForRuns(const std::string& path) {
    auto project = openProjectArgument(path);
    if (!project || !project->readOnly()) return project;
    if (project->isRelease())
        return Error{path +
                     ": is a DP release (made by dpmix export-release), which is read-only: run this on the "
                     "project it was exported from (`dpmix inspect` names it)"};
    return Error{path +
                 ": the project is read-only here (the file or its folder is not writable): nothing can be "
                 "run into it; copy it to a writable folder"};
}

Status writeTextFile(const std::string& path, const std::string& text) {
    // Through the door: a name too long, a missing folder, or a FIFO or device as -o is refused.
    if (auto e = files::checkOutputPath(path, "the file to write")) return e;
    const std::string temp = path + ".tmp-" + std::to_string(::getpid());
    {
        std::ofstream out(temp, std::ios::binary | std::ios::trunc);
        out << text;
        out.flush();
        if (!out) {
            std::error_code ignored;
            std::filesystem::remove(temp, ignored);
            return Error{path + ": cannot write the file"};
        }
    }
    std::error_code ec;
    std::filesystem::rename(temp, path, ec);
    if (ec) {
        std::filesystem::remove(temp, ec);
        return Error{path + ": cannot write the file (" + ec.message() + ")"};
    }
    return std::nullopt;
}

IntegrityVerdict checkIntegrity(const project::ProjectFile& project) {
    // The chain, the seal over the last rows and run statuses, every ledger recomputed against its
    // parameters and the spec, the signatures (project/integrity_report.h).
    auto report = project.verifyIntegrity();
    if (!report) return {false, "integrity not checked: " + report.error().message, {}};
    IntegrityVerdict v{report->ok(), report->summaryLine(), {}};
    if (!v.ok) v.details = report->problems();
    for (const auto& n : report->notices()) v.details.push_back("note: " + n);
    return v;
}

}  // namespace dpmix::cli
