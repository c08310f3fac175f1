// The command line's argument handling on arbitrary argument vectors: CLI11 with dpmix's shared
// checks (empty lists refused, --threads bounded) and the number rules every command applies to
// its flags (parseReal / parseInteger on each comma-separated value). It must answer with
// values or a parse error, never crash, hang or let another exception escape. The commands'
// own registry needs the engine (LibTorch), which the sanitizer build leaves out; the hostile
// campaign (scripts/hostile-campaign.sh) runs the real program.
#include "app/cli/argument_checks.h"
#include "app/cli/cli_support.h"
#include "app/cli/number_parsing.h"

#include <CLI/CLI.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace {

// The shapes of dpmix's flags: a list of reals, a list of integers, whole-number counts, a path,
// a bounded thread count, a flag and a positional project.
struct Flags {
    std::string project, epsilons, seeds, stages, methods, steps, output, cap;
    int threads = 1;
    bool json = false;
};

void checkNumbers(const Flags& f) {
    for (const auto& e : dpmix::cli::splitList(f.epsilons)) (void)dpmix::cli::parseReal(e, "--epsilon");
    for (const auto& s : dpmix::cli::splitList(f.seeds)) (void)dpmix::cli::parseInteger(s, "--seed");
    if (!f.steps.empty()) (void)dpmix::cli::parseInteger(f.steps, "--finetune-steps");
    if (!f.cap.empty() && f.cap != "none") (void)dpmix::cli::parseReal(f.cap, "--cap");
    (void)dpmix::cli::splitList(f.stages);
    (void)dpmix::cli::splitList(f.methods);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    // Arguments are the input's NUL- or newline-separated pieces (a real argv has no NUL inside
    // an argument, so NUL only separates).
    std::vector<std::string> args{"dpmix"};
    std::string current;
    for (std::size_t i = 0; i < size && args.size() < 64; ++i) {
        const char c = static_cast<char>(data[i]);
        if (c == '\0' || c == '\n') {
            args.push_back(current);
            current.clear();
        } else {
            current.push_back(c);
        }
    }
    if (!current.empty()) args.push_back(current);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());

    Flags f;
    CLI::App app{"dpmix (fuzz)"};
    app.require_subcommand(0, 1);
    CLI::App* run = app.add_subcommand("run", "run a study");
    run->add_option("project", f.project, "project or spec")->required();
    run->add_option("--epsilon", f.epsilons, "privacy budgets, comma-separated");
    run->add_option("--seed", f.seeds, "seeds, comma-separated");
    run->add_option("--stages", f.stages, "stages");
    run->add_option("--methods", f.methods, "methods");
    run->add_option("--finetune-steps", f.steps, "steps");
    run->add_option("--cap", f.cap, "the data set's total cap");
    run->add_option("--threads", f.threads, "threads");
    CLI::App* budget = app.add_subcommand("budget", "the privacy budget");
    budget->add_option("project", f.project, "project")->required();
    budget->add_option("-o,--output", f.output, "output path");
    budget->add_flag("--json", f.json, "JSON");
    dpmix::cli::addSharedChecks(app);
    try {
        app.parse(static_cast<int>(argv.size()), argv.data());
        checkNumbers(f);
    } catch (const CLI::ParseError&) {
        // a usage error: the program prints it and exits 2
    }
    return 0;
}
