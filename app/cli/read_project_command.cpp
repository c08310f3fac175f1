#include "app/cli/read_project_command.h"

#include "app/cli/project_commands.h"

#include <iostream>
#include <memory>

namespace dpmix::cli {
namespace {

struct ReadProjectArgs {
    std::string projectPath;
    bool json = false;
};

}  // namespace

void addReadProjectCommand(CLI::App& app, CommandContext& ctx, const ReadProjectCommand& command,
                           std::function<int(const project::ProjectFile&, bool json)> body) {
    // The arguments live as long as the command (CLI11 writes into them when it parses).
    auto args = std::make_shared<ReadProjectArgs>();
    auto* cmd = app.add_subcommand(command.name, command.description);
    cmd->add_option("project", args->projectPath, command.projectHelp)->required();
    cmd->add_flag("--json", args->json, command.jsonHelp);
    cmd->callback([&ctx, args, name = command.name, body = std::move(body)] {
        auto project = openProjectToRead(args->projectPath);
        if (!project) {
            std::cerr << "dpmix " << name << ": " << project.error().message << '\n';
            ctx.exitCode = 2;
            return;
        }
        ctx.exitCode = body(*project, args->json);
    });
}

}  // namespace dpmix::cli
