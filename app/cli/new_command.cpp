// `dpmix new SPEC.json [-o FILE.dpmix] [--force]`: validate a spec, load each source once to
// record its size, labels and content hash, and create the project file.
// `dpmix new --from-csv MANIFEST.csv --public-from SPEC.json [...]`: first write the study's spec
// from a CSV manifest of the clinic's images (engine/project/manifest_study.h), next to the
// project file, then create the project from it.
#include "app/cli/cli_support.h"
#include "app/cli/command.h"
#include "app/cli/number_parsing.h"
#include "app/cli/project_commands.h"
#include "engine/core/file_door.h"
#include "engine/project/manifest_study.h"
#include "engine/project/project_file.h"
#include "engine/project/spec_json.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

namespace dpmix::cli {

namespace {

struct NewArgs {
    std::string specPath;
    std::string outputPath;
    bool force = false;
    CLI::Option* outputOption = nullptr;  // to tell "-o ''" from no -o
    // --from-csv: the manifest, the spec lending the public data, and the user's answers.
    std::string manifest, publicFrom, name, pathColumn, userColumn, labels, ignore, size, epsilon, rho, delta;
};

// The answers as the engine takes them; a number that is not one names its flag.
Result<project::ManifestStudyChoices> manifestChoices(const NewArgs& a) {
    project::ManifestStudyChoices c;
    c.name = a.name;
    c.pathColumn = a.pathColumn;
    c.userColumn = a.userColumn;
    c.labels = splitList(a.labels);
    c.ignore = splitList(a.ignore);
    c.size = a.size;
    for (auto [text, flag, target] : {std::tuple{&a.epsilon, "--epsilon", &c.epsilon},
                                      std::tuple{&a.rho, "--rho", &c.rho}, std::tuple{&a.delta, "--delta", &c.delta}}) {
        if (text->empty()) continue;
        auto v = parseReal(*text, flag);
        if (!v) return v.error();
        *target = *v;
    }
    return c;
}

// Writes the study's spec for --from-csv next to the project file (`output` with .json) and
// returns its path; nothing is written when the manifest, the template or an answer is refused.
Result<std::filesystem::path> writeManifestSpec(const NewArgs& a, const std::filesystem::path& output) {
    if (a.publicFrom.empty())
        return Error{
            "--public-from: missing: expected the spec whose public data the study pretrains on (e.g. "
            "projects/fashion-mnist.json): its public sources, public tasks, stages and seeds are taken"};
    auto choices = manifestChoices(a);
    if (!choices) return choices.error();
    auto publicTemplate = project::loadProjectSpecFile(a.publicFrom);
    if (!publicTemplate) return Error{"--public-from: " + publicTemplate.error().message};
    std::filesystem::path specFile = output;
    specFile.replace_extension(".json");
    std::error_code ec;
    if (std::filesystem::exists(specFile, ec) && !a.force)
        return Error{specFile.string() + " already exists (--force replaces it)"};
    const std::filesystem::path specDir = std::filesystem::absolute(specFile, ec).parent_path();
    if (ec) return Error{specFile.string() + ": cannot resolve its folder: " + ec.message()};
    auto study = project::studyFromManifest(a.manifest, *publicTemplate, *choices, specDir);
    if (!study) return study.error();
    const std::string text = project::projectSpecToJson(study->spec) + "\n";
    // The spec as `dpmix new` will read it, checked before anything is written.
    project::SpecLocation where{specDir, project::defaultDataDir(specFile)};
    if (auto checked = project::parseProjectSpec(text, where, specFile.string()); !checked)
        return Error{"the spec written from " + a.manifest + " would be refused: " + checked.error().message};
    std::ofstream out(specFile, std::ios::binary | std::ios::trunc);
    if (!(out << text) || !(out.flush())) return Error{specFile.string() + ": cannot write the spec"};
    std::cout << "wrote " << specFile.string() << " from " << a.manifest << ":\n";
    for (const auto& note : study->notes) std::cout << "  " << note << "\n";
    return specFile;
}

}  // namespace

namespace {

void addManifestOptions(CLI::App* cmd, NewArgs& args) {
    auto* csv = cmd->add_option_group("From a CSV manifest",
                                      "write the study's spec from a CSV manifest of the sensitive images (one "
                                      "row per image) next to the project file, then create the project");
    csv->add_option("--from-csv", args.manifest,
                    "the CSV manifest: a column of image paths, label columns, optionally a patient column");
    csv->add_option("--public-from", args.publicFrom,
                    "the spec whose public data, public tasks, stages and seeds the study takes");
    csv->add_option("--name", args.name, "the study's name (default: the manifest's file name)");
    csv->add_option("--path-column", args.pathColumn, "the column of image paths (default: found by its name)");
    csv->add_option("--user-column", args.userColumn,
                    "the patient column: the guarantee protects a patient (default: found by its name; none: "
                    "one image)");
    csv->add_option("--labels", args.labels, "the label columns, comma-separated (default: every other column)");
    csv->add_option("--ignore", args.ignore, "columns that are not labels, comma-separated");
    csv->add_option("--size", args.size, "images resized to this side or HxW (default 64)");
    csv->add_option("--epsilon", args.epsilon, "the target ε (default: the --public-from spec's)");
    csv->add_option("--rho", args.rho, "the fraction ρ of the sensitive data that learns the mixture");
    csv->add_option("--delta", args.delta, "δ (default: a power of ten below 1/(10·images))");
}

// With --from-csv: the spec written from the manifest becomes the spec to create the project
// from. Prints the refusal and returns false when the command must stop.
bool resolveSpec(NewArgs& args) {
    if (args.manifest.empty() == args.specPath.empty()) {
        std::cerr << "dpmix new: "
                  << (args.manifest.empty() ? "expected a spec (dpmix new SPEC.json)"
                                            : "expected a spec or --from-csv, not both")
                  << ", or a CSV manifest: dpmix new --from-csv MANIFEST.csv --public-from SPEC.json -o "
                     "STUDY.dpmix\n";
        return false;
    }
    if (args.manifest.empty()) return true;
    if (args.outputPath.empty()) {
        std::cerr << "dpmix new: --from-csv: -o is required: the project file to create (its spec is written "
                     "next to it, with .json)\n";
        return false;
    }
    auto spec = writeManifestSpec(args, args.outputPath);
    if (!spec) {
        std::cerr << "dpmix new: " << spec.error().message << " (nothing was written)\n";
        return false;
    }
    args.specPath = spec->string();
    return true;
}

// What `dpmix new` reports of the project it created: each source's facts and the study's size.
void printCreated(const project::ProjectFile& created, const std::filesystem::path& output) {
    const project::ProjectSpec& spec = created.spec();
    std::cout << "created " << output.string() << " (\"" << spec.name << "\")\n";
    auto sources = created.sources();
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
}

}  // namespace

void registerNewCommand(CLI::App& app, CommandContext& ctx) {
    // The arguments live as long as the command (CLI11 writes into them when it parses).
    auto args = std::make_shared<NewArgs>();
    auto* cmd = app.add_subcommand("new", "Create a project file (.dpmix) from a project spec (JSON)");
    cmd->add_option("spec", args->specPath, "project spec, e.g. projects/fashion-mnist.json (or --from-csv)");
    args->outputOption = cmd->add_option("-o,--output", args->outputPath,
                                         "project file to create (default: the spec's name with .dpmix, next to it)");
    cmd->add_flag("--force", args->force, "replace the project file if it exists");
    addManifestOptions(cmd, *args);
    cmd->callback([&ctx, args] {
        if (!resolveSpec(*args)) {
            ctx.exitCode = 2;
            return;
        }
        const auto& specPath = args->specPath;
        const auto& outputPath = args->outputPath;
        const bool force = args->force;
        const CLI::Option* outputOption = args->outputOption;
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
        printCreated(*created, output);
        ctx.exitCode = 0;
    });
}

}  // namespace dpmix::cli
