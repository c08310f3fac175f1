#include "app/cli/argument_checks.h"
#include "app/cli/command.h"
#include "app/cli/terminal_safe.h"
#include "app/cli/usage_hints.h"
#include "engine/core/file_size_limit.h"
#include "engine/core/program_guard.h"
#include "engine/core/version.h"
#include "engine/runtime/runtime_info.h"
#include "engine/runtime/training_process.h"

#include <string>
#include <thread>

#include <iostream>

namespace {

int runDpmix(int argc, char** argv) {
    dpmix::reportFileSizeLimitAsError();
    dpmix::cli::installTerminalSafeOutput();
    CLI::App app{"dpmix — differentially private learning with public data (headless)", "dpmix"};
    app.set_version_flag("--version", "dpmix " + dpmix::versionString());
    app.require_subcommand(1);
    // Torch defaults to one intra-op thread on small VMs; use every core unless told otherwise.
    dpmix::runtime::setThreads(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
    app.add_option_function<int>(
           "--threads", [](int n) { dpmix::runtime::setThreads(n); }, "compute threads for torch (default: all cores)")
        ->check(CLI::Range(1, dpmix::cli::maxThreads()));  // --threads 100000 once started 100,000 threads

    dpmix::cli::CommandContext ctx;
    dpmix::cli::registerCommands(app, ctx);  // one file each under app/cli/
    dpmix::cli::addSharedChecks(app);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int rc = app.exit(e);
        if (rc == 0) return 0;
        // The command or option a typo most likely meant ("did you mean 'inspect'?").
        if (const std::string hint = dpmix::cli::usageHint(app, std::vector<std::string>(argv + 1, argv + argc));
            !hint.empty())
            std::cerr << hint << '\n';
        return 2;  // usage errors are bad input
    }
    return ctx.exitCode;
}

// Help and the version touch no BLAS: not worth the restart (about 0.4 s, loading LibTorch again).
bool justAsking(int argc, char** argv) {
    if (argc < 2) return true;
    const std::string first = argv[1];
    return argc == 2 && (first == "--help" || first == "-h" || first == "--version");
}

}  // namespace

int main(int argc, char** argv) {
    if (!justAsking(argc, argv)) dpmix::runtime::setUpForTraining(argv);  // first: it may restart the program
    return dpmix::guardedMain("dpmix", [&] { return runDpmix(argc, argv); });
}
