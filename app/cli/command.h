#pragma once
// Each `dpmix` subcommand lives in its own file and registers itself here. A command's
// callback stores its exit status in `exitCode` (0 ok, 1 failure, 2 bad input).
#include <CLI/CLI.hpp>

namespace dpmix::cli {

struct CommandContext {
    int exitCode = 0;
};

void registerDoctorCommand(CLI::App& app, CommandContext& ctx);
void registerPrivacyCommand(CLI::App& app, CommandContext& ctx);
void registerNewCommand(CLI::App& app, CommandContext& ctx);
void registerExportSpecCommand(CLI::App& app, CommandContext& ctx);
void registerInspectCommand(CLI::App& app, CommandContext& ctx);
void registerRunCommand(CLI::App& app, CommandContext& ctx);
void registerAuditCommand(CLI::App& app, CommandContext& ctx);
void registerExperimentCommand(CLI::App& app, CommandContext& ctx);
void registerResultsCommand(CLI::App& app, CommandContext& ctx);
void registerBudgetCommand(CLI::App& app, CommandContext& ctx);
void registerExportReleaseCommand(CLI::App& app, CommandContext& ctx);
void registerPsgCommand(CLI::App& app, CommandContext& ctx);
void registerJobsCommands(CLI::App& app, CommandContext& ctx);
void registerKeysCommand(CLI::App& app, CommandContext& ctx);  // `dpmix keys init|show`
void registerSignCommands(
    CLI::App& app, CommandContext& ctx);  // `dpmix sign` and `dpmix verify`  // `dpmix jobs …` and `dpmix worker`

/// Every sub-command above, in the order `dpmix --help` lists them. main() and the in-process
/// tests share it; each registration owns its arguments, so it may run on several Apps.
void registerCommands(CLI::App& app, CommandContext& ctx);

}  // namespace dpmix::cli
