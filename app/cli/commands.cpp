#include "app/cli/command.h"
#include "app/cli/ranks_option.h"

namespace dpmix::cli {

void registerCommands(CLI::App& app, CommandContext& ctx) {
    registerDoctorCommand(app, ctx);
    registerPrivacyCommand(app, ctx);
    registerNewCommand(app, ctx);
    registerExportSpecCommand(app, ctx);
    registerInspectCommand(app, ctx);
    registerRunCommand(app, ctx);
    registerAuditCommand(app, ctx);
    registerExperimentCommand(app, ctx);
    registerPsgCommand(app, ctx);
    registerResultsCommand(app, ctx);
    registerBudgetCommand(app, ctx);
    registerExportReleaseCommand(app, ctx);
    registerKeysCommand(app, ctx);
    registerSignCommands(app, ctx);
    registerJobsCommands(app, ctx);
    registerRankCommand(app, ctx);  // hidden: what `dpmix run --ranks N` starts
}

}  // namespace dpmix::cli
