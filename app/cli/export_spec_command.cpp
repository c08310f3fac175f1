// `dpmix export-spec FILE.dpmix [-o SPEC.json]`: the project's spec as editable JSON, with
// paths as they were written, so `dpmix new` on the output recreates the same study.
#include "app/cli/command.h"
#include "app/cli/project_commands.h"
#include "engine/core/file_door.h"

#include <filesystem>
#include <iostream>
#include <memory>

namespace dpmix::cli {

namespace {

struct ExportSpecArgs {
    std::string projectPath;
    std::string outputPath;
};

}  // namespace

void registerExportSpecCommand(CLI::App& app, CommandContext& ctx) {
    // The arguments live as long as the command (CLI11 writes into them when it parses).
    auto args = std::make_shared<ExportSpecArgs>();
    auto* cmd = app.add_subcommand("export-spec", "Write a project's spec as JSON (to stdout or -o FILE)");
    cmd->add_option("project", args->projectPath, "project file (.dpmix) or spec (.json)")->required();
    cmd->add_option("-o,--output", args->outputPath, "write the spec to this file instead of stdout");
    cmd->callback([&ctx, args] {
        // A name too long, a missing folder, a FIFO or device as -o: bad input, before any read.
        if (!args->outputPath.empty())
            if (auto bad = files::checkOutputPath(args->outputPath, "the spec file to write")) {
                std::cerr << "dpmix export-spec: -o: " << bad->message << '\n';
                ctx.exitCode = 2;
                return;
            }
        auto project = openProjectToRead(args->projectPath);
        if (!project) {
            std::cerr << "dpmix export-spec: " << project.error().message << '\n';
            ctx.exitCode = 2;
            return;
        }
        const std::string text = project->specJson() + "\n";
        if (args->outputPath.empty()) {
            std::cout << text;
            ctx.exitCode = 0;
            return;
        }
        std::error_code ec;
        if (std::filesystem::equivalent(args->outputPath, project->path(), ec)) {
            std::cerr << "dpmix export-spec: -o " << args->outputPath << " is the project file itself\n";
            ctx.exitCode = 2;
            return;
        }
        if (auto failed = writeTextFile(args->outputPath, text)) {
            std::cerr << "dpmix export-spec: " << failed->message << '\n';
            ctx.exitCode = 1;
            return;
        }
        ctx.exitCode = 0;
    });
}

}  // namespace dpmix::cli
