// dpmix-text: runs a text (language-modelling) study's stages — the process `dpmix run` hands a
// text project to. A separate program because Debian's sentencepiece carries its own protobuf
// (3.14) and exports its symbols, while LibTorch loads the system protobuf (3.21): one process
// holding both aborts at start-up. This program links no LibTorch.
//   dpmix-text run SPEC_OR_PROJECT [--stages proxies,mixture] [--epsilon E,...] [--rho R]
//                  [--seed S,...] [--json] [--export-tokens] [--relearn-mixture]
// --export-tokens writes the token cache <project>.tokens/ (text_downstream_tokens.h) that the
// LibTorch process (`dpmix run ... --stages ...,pretrain,finetune,evaluate`) trains the LM from;
// its mixture then reuses a DP-MixMin λ the project already released (TextStudySettings::downstream)
// unless --relearn-mixture.
#include "app/cli/argument_checks.h"
#include "app/cli/cli_support.h"
#include "app/cli/mixture_json.h"
#include "app/cli/number_parsing.h"
#include "app/cli/project_commands.h"
#include "app/cli/terminal_safe.h"
#include "app/cli/usage_hints.h"
#include "engine/core/file_size_limit.h"
#include "engine/core/malloc_tuning.h"
#include "engine/core/program_guard.h"
#include "engine/core/version.h"
#include "engine/text_study/text_downstream_export.h"
#include "engine/text_study/text_study.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <csignal>
#include <iostream>
#include <sstream>

using namespace dpmix;

namespace {

struct TextArgs {
    std::string project, stages = "proxies,mixture", epsilons, rho, seeds;
    bool json = false, exportTokens = false, reproducible = false, relearnMixture = false;
    std::string accountant;  // empty: the spec's
};

Result<pipeline::StudyRunOptions> textStudyOptions(const TextArgs& args) {
    pipeline::StudyRunOptions options;
    options.stages = cli::splitList(args.stages);
    if (args.reproducible) options.reproducible = true;
    options.relearnMixture = args.relearnMixture;
    if (!args.accountant.empty()) {
        privacy::Accountant accountant;
        privacy::parseAccountant(args.accountant, accountant);  // CLI11 admitted only rdp and prv
        options.accountant = accountant;
    }
    for (const auto& e : cli::splitList(args.epsilons)) {
        auto v = cli::parseReal(e, "--epsilon");
        if (!v) return v.error();
        if (!(*v > 0)) return Error{"--epsilon = " + e + " is out of range: expected a number > 0"};
        options.epsilons.push_back(*v);
    }
    if (!args.rho.empty()) {
        auto v = cli::parseReal(args.rho, "--rho");
        if (!v) return v.error();
        options.rho = *v;
    }
    for (const auto& s : cli::splitList(args.seeds)) {
        auto v = cli::parseInteger(s, "--seed");
        if (!v || *v < 0) return Error{"--seed = " + s + " is out of range: expected an integer >= 0"};
        options.seeds.push_back(static_cast<std::uint64_t>(*v));
    }
    return options;
}

// The token cache for the language-model stages; returns an exit code, `written` its folder.
int exportTokenCache(project::ProjectFile& project, const text_study::TextStudyReport& report,
                     const CancellationToken& cancel, std::string& written) {
    std::cerr << "dpmix run: tokenising the public domains and the sensitive mail for the language-model stages\n";
    Result<text_tokens::TokenCache> cache = Error{""};
    try {
        cache = text_study::buildTokenCache(project, report, cancel);
    } catch (const Cancelled&) {
        std::cerr << "dpmix run: cancelled while exporting tokens; no token cache was written\n";
        return 130;
    }
    if (!cache) {
        std::cerr << "dpmix run: " << cache.error().message << '\n';
        return 1;
    }
    written = text_tokens::tokenCacheDir(project.path()).string();
    if (auto e = text_tokens::writeTokenCache(written, *cache)) {
        std::cerr << "dpmix run: " << e->message << '\n';
        return 1;
    }
    std::cerr << "dpmix run: token cache written to " << written << '\n';
    return 0;
}

void printTextStudy(const text_study::TextStudyReport& report, const std::string& tokenCache, bool json) {
    nlohmann::ordered_json tasks = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < report.study.mixtures.size(); ++i) {
        const auto& m = report.study.mixtures[i];
        const auto& d = report.seeds[i];
        const auto& o = m.outcome;
        for (std::size_t pi = 0; pi < o.privateLambdas.size(); ++pi) {
            const auto& p = o.privateLambdas[pi];
            auto row = cli::privateLambdaJson(m, p);
            row["users_a"] = d.usersA;
            row["users_b"] = d.usersB;
            row["perplexity_dp"] = d.perplexityDp[pi];
            row["perplexity_star"] = d.perplexityStar;
            row["perplexity_uniform"] = d.perplexityUniform;
            row["perplexity_random_search"] = d.perplexityRandomSearch;
            tasks.push_back(std::move(row));
        }
    }
    if (json) {
        nlohmann::ordered_json out{{"project", report.study.project},
                                   {"vocabulary", report.vocabularySize},
                                   {"test_documents", report.testDocuments},
                                   {"test_users", report.testUsers},
                                   {"tasks", tasks}};
        if (!tokenCache.empty()) out["token_cache"] = tokenCache;
        std::cout << out.dump(2) << '\n';
        return;
    }
    std::cout << "project " << report.study.project << "  (vocabulary " << report.vocabularySize
              << ", test: " << report.testUsers << " users, " << report.testDocuments << " mails)\n";
    for (const auto& t : tasks)
        std::cout << "task " << t["task"].get<std::string>() << " seed " << t["seed"] << " eps " << t["epsilon"]
                  << ": cos(DP, λ*) " << t["cos_dp"] << " vs uniform " << t["cos_uniform"]
                  << "; test perplexity DP-MixMin " << t["perplexity_dp"] << ", λ* " << t["perplexity_star"]
                  << ", uniform " << t["perplexity_uniform"] << ", random search " << t["perplexity_random_search"]
                  << '\n';
}

// `dpmix-text run` once its arguments are parsed; returns the exit code.
int executeTextRun(const TextArgs& args) {
    auto options = textStudyOptions(args);
    if (!options) {
        std::cerr << "dpmix run: " << options.error().message << '\n';
        return 2;
    }
    auto opened = cli::openProjectForRuns(args.project);
    if (!opened) {
        std::cerr << "dpmix run: " << opened.error().message << '\n';
        return 2;
    }
    project::ProjectFile project = std::move(opened).value();
    const CancellationToken cancel;
    ProgressCallback progress = [](const ProgressEvent& e) {
        if (e.total > 0 && (e.done == e.total || e.done % std::max<long long>(1, e.total / 10) == 0))
            std::cerr << "[" << e.stage << "] " << e.done << "/" << e.total << '\n';
    };
    text_study::TextStudySettings settings;
    settings.downstream = args.exportTokens;  // the language-model stages follow: a released λ is reused
    text_study::TextStudyReport report;
    const int code =
        cli::runInterruptible("dpmix run", "the run in flight is marked cancelled in " + project.path().string(),
                              cancel, progress, report, [&](const auto& p, const auto& c, const auto& log) {
                                  return text_study::runTextStudy(project, *options, settings, p, c, log);
                              });
    if (code != 0) return code;
    std::string tokenCache;
    if (args.exportTokens) {
        cli::InterruptCancels ctrlC(cancel);
        if (const int exported = exportTokenCache(project, report, cancel, tokenCache); exported != 0) return exported;
    }
    printTextStudy(report, tokenCache, args.json);
    return 0;
}

}  // namespace

int runTextMain(int argc, char** argv) {
    tuneMallocForTraining();
    reportFileSizeLimitAsError();
    dpmix::cli::installTerminalSafeOutput();
    CLI::App app{"dpmix-text — the text (language-modelling) studies of dpmix; `dpmix run` calls it for text projects",
                 "dpmix-text"};
    app.set_version_flag("--version", "dpmix-text " + versionString());
    app.require_subcommand(1);
    TextArgs args;
    auto* run = app.add_subcommand("run", "Run a text study's stages and store the results in its project");
    run->add_option("project", args.project, "a .dpmix project, or a spec JSON")->required();
    run->add_option("--stages", args.stages, "comma-separated stages: proxies, mixture (default: proxies,mixture)");
    run->add_option("--epsilon,--epsilons", args.epsilons, "target epsilon(s), comma-separated (default: the spec's)");
    run->add_option("--rho", args.rho,
                    "fraction of the sensitive training users for mixture learning (default: the spec's)");
    run->add_option("--seed,--seeds", args.seeds, "run seed(s), comma-separated (default: the spec's)");
    run->add_flag("--json", args.json, "print the results as one JSON object");
    run->add_flag(
        "--reproducible", args.reproducible,
        "seed the DP mechanisms from the run seed: re-derivable results, no release (default: secret randomness)");
    run->add_option("--accountant", args.accountant,
                    "rdp or prv: the accountant that calibrates every DP mechanism's noise and certifies its ledger "
                    "entry (default: the spec's privacy.accountant)")
        ->check(CLI::IsMember({"rdp", "prv"}));
    run->add_flag("--export-tokens", args.exportTokens,
                  "after the mixture stage, write the tokenised corpora, splits and lambdas to <project>.tokens/ "
                  "for the language-model stages of `dpmix run`; a DP-MixMin lambda the project already released "
                  "for the same seed, epsilon and settings is then reused (no second spend)");
    run->add_flag("--relearn-mixture", args.relearnMixture,
                  "with --export-tokens: learn DP-MixMin's lambda again (and spend again) even where the project "
                  "already released it");
    cli::addSharedChecks(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (app.exit(e) == 0) return 0;
        if (const std::string hint = cli::usageHint(app, std::vector<std::string>(argv + 1, argv + argc));
            !hint.empty())
            std::cerr << hint << '\n';
        return 2;
    }
    return executeTextRun(args);
}

int main(int argc, char** argv) {
    return dpmix::guardedMain("dpmix-text", [&] { return runTextMain(argc, argv); });
}
