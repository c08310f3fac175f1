// `dpmix new SPEC.json [-o FILE.dpmix] [--force]`: validate a spec, load each source once to
// record its size, labels and content hash, and create the project file.
#include "app/cli/command.h"
#include "app/cli/project_commands.h"
#include "engine/core/file_door.h"
#include "engine/project/project_file.h"

#include <filesystem>
#include <iostream>
#include <memory>

namespace dpmix::cli {

namespace {

struct NewArgs {
    std::string specPath;
    std::string outputPath;
    bool force = false;
    CLI::Option* outputOption = nullptr;  // to tell "-o ''" from no -o
};

}  // namespace

void registerNewCommand(CLI::App& app, CommandContext& ctx) {
    // The arguments live as long as the command (CLI11 writes into them when it parses).
    auto args = std::make_shared<NewArgs>();
    auto* cmd = app.add_subcommand("new", "Create a project file (.dpmix) from a project spec (JSON)");
    cmd->add_option("spec", args->specPath, "project spec, e.g. projects/fashion-mnist.json")->required();
    args->outputOption = cmd->add_option("-o,--output", args->outputPath,
                                         "project file to create (default: the spec's name with .dpmix, next to it)");
    cmd->add_flag("--force", args->force, "replace the project file if it exists");
    cmd->callback([&ctx, args] {
        const auto& [specPath, outputPath, force, outputOption] = *args;
        if (project::isSqliteFile(specPath)) {
            std::cerr << "dpmix new: " << specPath << " is a project file, not a spec (export its spec with "
                      << "`dpmix export-spec " << specPath << "`)\n";
            ctx.exitCode = 2;
            return;
        }
        if (outputOption->count() > 0 && outputPath.empty()) {
            std::cerr << "dpmix new: -o '': expected the path of the project file to create (leave -o out for "
                      << project::projectPathForSpec(specPath).string() << ")\n";
            ctx.exitCode = 2;
            return;
        }
        const std::filesystem::path output =
            outputPath.empty() ? project::projectPathForSpec(specPath) : std::filesystem::path(outputPath);
        // --force replaces the output; it must never be the spec itself.
        std::error_code same;
        if (std::filesystem::equivalent(output, specPath, same)) {
            std::cerr << "dpmix new: -o " << output.string()
                      << " is the spec itself: expected a different file for the "
                      << "project (nothing was written)\n";
            ctx.exitCode = 2;
            return;
        }
        // Before the (slow) sources are loaded: a name too long, a missing folder, a FIFO as -o.
        if (auto bad = files::checkOutputPath(output.string(), "the project file to create")) {
            std::cerr << "dpmix new: -o: " << bad->message << " (nothing was written)\n";
            ctx.exitCode = 2;
            return;
        }
        auto created = project::createProjectFromSpecFile(specPath, output, dataLayerSummarizer(), force);
        if (!created) {
            std::cerr << "dpmix new: " << created.error().message << '\n';
            ctx.exitCode = 2;
            return;
        }
        const project::ProjectSpec& spec = created->spec();
        std::cout << "created " << output.string() << " (\"" << spec.name << "\")\n";
        auto sources = created->sources();
        if (sources) {
            for (const auto& s : *sources) {
                std::cout << "  " << project::nameOf(s.role) << " source \"" << s.name << "\": " << s.facts.examples
                          << " examples";
                if (s.facts.users > 0) std::cout << ", " << s.facts.users << " users";
                if (!s.facts.labelNames.empty()) std::cout << ", " << s.facts.labelNames.size() << " labels";
                if (!s.facts.domains.empty()) std::cout << ", " << s.facts.domains.size() << " domains";
                std::cout << ", sha256 " << s.facts.contentHash.substr(0, 12) << "\n";
            }
        }
        const auto labelCounts = sources ? project::publicLabelCounts(*sources) : std::vector<std::size_t>{};
        std::cout << "  mixture components k = " << spec.mixtureComponents(labelCounts);
        if (spec.publicSources.size() > 1) {  // per source: what each public data set brings
            std::cout << " (";
            for (std::size_t i = 0; i < spec.publicSources.size(); ++i)
                std::cout << (i ? ", " : "") << spec.publicSources[i].written.name << " "
                          << spec.componentsOf(i, i < labelCounts.size() ? labelCounts[i] : 0);
            std::cout << ")";
        }
        std::cout << ", sensitive tasks " << spec.sensitiveTasks.size() << ", ε values " << spec.privacy.epsilons.size()
                  << ", seeds " << spec.seeds.size() << "\n";
        ctx.exitCode = 0;
    });
}

}  // namespace dpmix::cli
