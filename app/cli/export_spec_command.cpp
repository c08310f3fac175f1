// `dpmix export-spec FILE.dpmix [-o SPEC.json]`: the project's spec as editable JSON, with
// paths as they were written, so `dpmix new` on the output recreates the same study.
#include "app/cli/command.h"
#include "app/cli/project_commands.h"

#include <filesystem>
#include <iostream>

namespace dpmix::cli {

void registerExportSpecCommand(CLI::App& app, CommandContext& ctx) {
    auto* cmd = app.add_subcommand("export-spec", "Write a project's spec as JSON (to stdout or -o FILE)");
    static std::string projectPath, outputPath;
    cmd->add_option("project", projectPath, "project file (.dpmix) or spec (.json)")->required();
    cmd->add_option("-o,--output", outputPath, "write the spec to this file instead of stdout");
    cmd->callback([&ctx] {
        auto project = openProjectArgument(projectPath);
        if (!project) {
            std::cerr << "dpmix export-spec: " << project.error().message << '\n';
            ctx.exitCode = 2;
            return;
        }
        const std::string text = project->specJson() + "\n";
        if (outputPath.empty()) {
            std::cout << text;
            ctx.exitCode = 0;
            return;
        }
        std::error_code ec;
        if (std::filesystem::equivalent(outputPath, project->path(), ec)) {
            std::cerr << "dpmix export-spec: -o " << outputPath << " is the project file itself\n";
            ctx.exitCode = 2;
            return;
        }
        if (auto written = writeTextFile(outputPath, text); !written) {
            std::cerr << "dpmix export-spec: " << written.error().message << '\n';
            ctx.exitCode = 1;
            return;
        }
        ctx.exitCode = 0;
    });
}

}  // namespace dpmix::cli
