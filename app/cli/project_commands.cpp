#include "app/cli/project_commands.h"

#include "engine/data/source_loader.h"

#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace dpmix::cli {

project::SourceSummarizer dataLayerSummarizer() {
    return [](const data::SourceSpec& spec) -> Result<project::SourceFacts> {
        auto summary = data::summarizeSource(spec);
        if (!summary) return summary.error();
        const data::SourceSummary& s = *summary;
        project::SourceFacts facts;
        facts.kind = s.kind;
        facts.examples = s.examples;
        facts.labelNames = s.labelNames;
        facts.domains = s.domains;
        facts.users = s.users;
        facts.contentHash = s.contentHash;
        facts.channels = s.channels;
        facts.height = s.height;
        facts.width = s.width;
        return facts;
    };
}

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
