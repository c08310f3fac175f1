#include "engine/project/project_opener.h"

#include "engine/core/file_door.h"
#include "engine/project/spec_json.h"

namespace dpmix::project {

namespace fs = std::filesystem;

fs::path projectPathForSpec(const fs::path& specFile) {
    auto absolute = files::absolute(specFile.string());  // fails only without a current folder
    return fs::path(absolute ? *absolute : specFile.string()).parent_path() / (specFile.stem().string() + ".dpmix");
}

Result<std::vector<SourceFacts>> summarizeSources(const ProjectSpec& spec, const SourceSummarizer& summarize) {
    std::vector<SourceFacts> facts;
    auto one = [&](const SpecSource& source, const std::string& where) -> Status {
        auto summary = summarize(source.resolved.path.empty() ? source.written : source.resolved);
        if (!summary) return Error{where + " \"" + source.written.name + "\": " + summary.error().message};
        facts.push_back(std::move(summary).value());
        return std::nullopt;
    };
    for (std::size_t i = 0; i < spec.publicSources.size(); ++i)
        if (auto e = one(spec.publicSources[i], "public_sources[" + std::to_string(i) + "]")) return *e;
    if (auto e = one(spec.sensitive, "sensitive")) return *e;
    return facts;
}

Result<ProjectFile> createProjectFromSpecFile(const fs::path& specFile, const fs::path& projectFile,
                                              const SourceSummarizer& summarize, bool replace) {
    auto spec = loadProjectSpecFile(specFile);
    if (!spec) return spec.error();
    if (files::exists(projectFile.string()) && !replace)  // before the (slow) summaries
        return Error{projectFile.string() + " already exists (choose another name, or replace it with --force)"};
    auto facts = summarizeSources(*spec, summarize);
    if (!facts) return Error{specFile.string() + ": " + facts.error().message};
    auto created = ProjectFile::create(projectFile, *spec, *facts, replace);
    if (!created) return created.error();
    return created;
}

Result<ProjectFile> openOrCreateFromSpecOrProject(const fs::path& path, const SourceSummarizer& summarize,
                                                  OpenMode mode) {
    auto kind = files::kindOf(path.string());
    if (!kind) return Error{kind.error().message + ": expected a .dpmix project or a spec .json"};
    if (*kind == files::Kind::Missing)
        return Error{path.string() + ": no such file (expected a .dpmix project or a spec .json)"};
    if (auto e = files::requireRegularFile(path.string(), "a .dpmix project or a spec .json")) return *e;
    // A spec is a .json file; anything else is opened as a project (and refused if it is not one).
    if (isSqliteFile(path) || path.extension() != ".json") return ProjectFile::open(path, mode);
    auto spec = loadProjectSpecFile(path);
    if (!spec) return spec.error();
    const fs::path projectFile = projectPathForSpec(path);
    const std::string differs = projectFile.string() + " was created from a different version of " + path.string() +
                                "; open the project file itself, or remove it to start over from the spec";
    if (!files::exists(projectFile.string())) {
        auto facts = summarizeSources(*spec, summarize);
        if (!facts) return Error{path.string() + ": " + facts.error().message};
        // Create-if-absent is atomic: when another process (a second `dpmix run S.json`, the
        // workbench) publishes the project first, this opens that one instead of replacing it.
        return ProjectFile::createOrOpen(projectFile, *spec, *facts);
    }
    auto project = ProjectFile::open(projectFile, mode);
    if (!project) return project.error();
    if (project->specJson() != projectSpecToJson(*spec)) return Error{differs};
    return project;
}

}  // namespace dpmix::project
