#pragma once
// The shape of the commands that read one project and print it (`inspect`, `budget`): a project
// argument (a .dpmix, or a spec whose project is next to it) and --json. Opening errors are the
// command's bad input (exit code 2); the body decides the rest.
#include "app/cli/command.h"
#include "engine/project/project_file.h"

#include <functional>
#include <string>

namespace dpmix::cli {

struct ReadProjectCommand {
    std::string name;         // "inspect"
    std::string description;  // the --help line
    std::string projectHelp;  // the project argument's help
    std::string jsonHelp;     // the --json flag's help
};

/// Registers the command; `body(project, json)` returns the exit code.
void addReadProjectCommand(CLI::App& app, CommandContext& ctx, const ReadProjectCommand& command,
                           std::function<int(const project::ProjectFile&, bool json)> body);

}  // namespace dpmix::cli
