#include "app/cli/project_commands.h"

#include "engine/pipeline/run_storage.h"

#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace dpmix::cli {

project::SourceSummarizer dataLayerSummarizer() { return pipeline::summarizeWithDataLayer; }

Result<project::ProjectFile> openProjectArgument(const std::string& path) {
    return project::openOrCreateFromSpecOrProject(path, dataLayerSummarizer());
}

Result<bool> writeTextFile(const std::string& path, const std::string& text) {
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
    return true;
}

}  // namespace dpmix::cli
