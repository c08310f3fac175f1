#include "app/cli/command.h"
#include "engine/core/malloc_tuning.h"
#include "engine/core/version.h"

#include <iostream>

int main(int argc, char** argv) {
    dpmix::tuneMallocForTraining();
    CLI::App app{"dpmix — differentially private learning with public data (headless)"};
    app.set_version_flag("--version", "dpmix " + dpmix::versionString());
    app.require_subcommand(1);

    dpmix::cli::CommandContext ctx;
    // Register subcommands (one file each under app/cli/).
    dpmix::cli::registerDoctorCommand(app, ctx);
    dpmix::cli::registerPrivacyCommand(app, ctx);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int rc = app.exit(e);
        return rc == 0 ? 0 : 2;  // usage errors are bad input
    }
    return ctx.exitCode;
}
