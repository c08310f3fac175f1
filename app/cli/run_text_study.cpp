#include "app/cli/run_text_study.h"

#include "app/cli/cli_support.h"
#include "app/cli/project_commands.h"
#include "engine/methods/method_plan.h"
#include "engine/project/result_summary.h"
#include "engine/study_plan/run_options.h"
#include "engine/text_downstream/text_downstream.h"
#include "engine/text_tokens/text_downstream_tokens.h"

#include <nlohmann/json.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>

namespace dpmix::cli {

using nlohmann::ordered_json;

bool isTextProject(const project::ProjectFile& project) {
    auto sources = project.sources();
    if (!sources) return false;
    for (const auto& s : *sources)
        if (s.role == project::SourceRole::Sensitive && s.facts.kind == data::SourceKind::Text) return true;
    return false;
}

namespace {

// Runs dpmix-text (from this program's folder) as a child process and waits for it: text studies
// tokenise with sentencepiece, which cannot share a process with LibTorch. Returns its exit
// status (128 + signal when it was killed). With `stdoutToStderr` the child's report goes to
// stderr, so that this process's stdout carries only its own (e.g. --json) output.
int runTextStudyChild(const std::vector<std::string>& args, bool stdoutToStderr) {
    char self[4096];
    const ssize_t len = ::readlink("/proc/self/exe", self, sizeof self - 1);
    std::filesystem::path dir =
        len > 0 ? std::filesystem::path(std::string(self, static_cast<std::size_t>(len))).parent_path()
                : std::filesystem::path(".");
    const std::string program = (dir / "dpmix-text").string();
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    std::cout.flush();
    std::cerr.flush();
    const pid_t child = ::fork();
    if (child < 0) {
        std::cerr << "dpmix run: cannot start " << program << ": " << std::strerror(errno) << '\n';
        return 1;
    }
    if (child == 0) {
        if (stdoutToStderr) ::dup2(STDERR_FILENO, STDOUT_FILENO);
        ::execv(program.c_str(), argv.data());
        const std::string msg = "dpmix run: this is a text study, which runs in " + program +
                                ", but it cannot be started: " + std::strerror(errno) +
                                " (build it: scripts/setup.sh dpmix-text)\n";
        (void)!::write(STDERR_FILENO, msg.data(), msg.size());
        ::_exit(127);
    }
    // Ctrl-C reaches the child too (same process group), which marks its run cancelled and exits:
    // this process ignores it meanwhile and reports the child's status.
    auto previous = std::signal(SIGINT, SIG_IGN);
    int status = 0;
    pid_t waited;
    while ((waited = ::waitpid(child, &status, 0)) < 0 && errno == EINTR) {}
    std::signal(SIGINT, previous);
    if (waited < 0) return 1;
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return 1;
}

// Test perplexity per (ε, method): mean ± sample std over seeds, in the order the runs ran.
std::vector<project::ResultSummaryRow> summarizePerplexity(const text_downstream::TextDownstreamReport& report,
                                                           const std::string& task) {
    std::vector<project::ResultObservation> observations;
    for (const auto& r : report.runs)
        observations.push_back({r.method, task, static_cast<long long>(r.seed), r.epsilon, r.testPerplexity, r.runId});
    return project::summarizeResults(observations);
}

// The text study: dpmix-text runs the proxies and mixture stages (and exports tokens); the
// language-model stages then run here, in the LibTorch process. Returns the exit code.
// The token cache holds the whole tokenised sensitive corpus with its users' ids: it is removed
// when the language-model stages are done (whatever their outcome) unless the user keeps it.
struct TokenCacheRemoval {
    std::filesystem::path dir;
    bool keep = false;
    ~TokenCacheRemoval() {
        if (keep || dir.empty()) return;
        std::error_code ec;
        if (std::filesystem::remove_all(dir, ec) > 0 && !ec)
            std::cerr << "dpmix run: removed the token cache " << dir
                      << " (it holds the tokenised sensitive text; --keep-tokens keeps it)\n";
    }
};

// The child's command line: the stages it runs (the mixture whenever the LM stages follow: they
// need this run's λ and splits) and the user's own spelling of ε, ρ and seeds.
std::vector<std::string> textChildArguments(const project::ProjectFile& project,
                                            const pipeline::StudyRunOptions& options, const TextRunArguments& given,
                                            bool downstream) {
    std::vector<std::string> childStages;
    for (const auto& s : options.stages)
        if (s == "proxies" || s == "mixture") childStages.push_back(s);
    if (downstream && std::find(childStages.begin(), childStages.end(), "mixture") == childStages.end())
        childStages.push_back("mixture");
    std::string stageList;
    for (const auto& s : childStages) stageList += (stageList.empty() ? "" : ",") + s;
    std::vector<std::string> args{"dpmix-text", "run", project.path().string(), "--stages", stageList};
    if (!given.epsilons.empty()) args.insert(args.end(), {"--epsilon", given.epsilons});
    if (!given.rho.empty()) args.insert(args.end(), {"--rho", given.rho});
    if (!given.seeds.empty()) args.insert(args.end(), {"--seed", given.seeds});
    if (options.reproducible.value_or(false)) args.emplace_back("--reproducible");
    if (options.accountant) args.insert(args.end(), {"--accountant", privacy::toString(*options.accountant)});
    if (downstream) {
        args.emplace_back("--export-tokens");  // the mixture reuses a released λ unless told otherwise
        if (options.relearnMixture) args.emplace_back("--relearn-mixture");
    } else if (given.json)
        args.emplace_back("--json");
    return args;
}

void printTextDownstream(const project::ProjectFile& project, const text_tokens::TokenCache& cache,
                         const text_downstream::TextDownstreamReport& report, bool json) {
    const auto rows = summarizePerplexity(report, cache.task);
    if (json) {
        ordered_json runs = ordered_json::array();
        for (const auto& r : report.runs)
            runs.push_back(
                {{"method", r.method},
                 {"seed", r.seed},
                 {"epsilon", r.epsilon},
                 {"test_perplexity", r.testPerplexity},
                 {"pretrained_test_perplexity",
                  std::isfinite(r.pretrainedPerplexity) ? ordered_json(r.pretrainedPerplexity) : ordered_json(nullptr)},
                 {"finetune_users", r.finetuneUsers},
                 {"q", r.q},
                 {"sigma", r.sigma},
                 {"ledger_epsilon", std::isinf(r.ledgerEpsilon) ? ordered_json("inf") : ordered_json(r.ledgerEpsilon)},
                 {"established", r.established},
                 {"run", r.runId}});
        ordered_json summary = ordered_json::array();
        for (const auto& row : rows)
            summary.push_back({{"method", row.method},
                               {"epsilon", row.epsilon},
                               {"test_perplexity_mean", row.mean},
                               {"test_perplexity_std", row.std},
                               {"seeds", row.seeds}});
        std::cout << ordered_json{{"project", project.path().string()},
                                  {"task", cache.task},
                                  {"downstream", runs},
                                  {"summary", summary}}
                         .dump(2)
                  << '\n';
        return;
    }
    std::cout << "project " << project.path().string() << "  (task " << cache.task << ", " << cache.testUsers.size()
              << " test users)\n"
              << "method               eps    seed  ft users  sigma    ppl before ft  test ppl  ledger eps\n";
    for (const auto& r : report.runs) {
        char line[256];
        std::snprintf(line, sizeof line, "%-20s %-6g %-5llu %-9lld %-8.3f %-14.2f %-9.2f %s\n", r.method.c_str(),
                      r.epsilon, static_cast<unsigned long long>(r.seed), r.finetuneUsers, r.sigma,
                      r.pretrainedPerplexity, r.testPerplexity,
                      std::isinf(r.ledgerEpsilon) ? "inf (non-private step)" : std::to_string(r.ledgerEpsilon).c_str());
        std::cout << line;
    }
    std::cout << "\ntest perplexity on the test users' mail (lower is better; mean ± std over seeds)\n";
    for (const auto& row : rows)
        std::cout << "  eps " << row.epsilon << "  " << row.method
                  << std::string(20 - std::min<std::size_t>(19, row.method.size()), ' ') << row.mean << " ± " << row.std
                  << "  (" << row.seeds << " seed(s))\n";
}

// The language-model stages on the token cache the child exported; returns the exit code.
int runTextDownstreamStages(const std::filesystem::path& path, const pipeline::StudyRunOptions& options, bool json) {
    auto reopened = openProjectArgument(path.string());  // the child wrote runs: read them fresh
    if (!reopened) {
        std::cerr << "dpmix run: " << reopened.error().message << '\n';
        return 1;
    }
    project::ProjectFile fresh = std::move(reopened).value();
    auto cache = text_tokens::readTokenCache(text_tokens::tokenCacheDir(fresh.path()));
    if (!cache) {
        std::cerr << "dpmix run: " << cache.error().message << '\n';
        return 1;
    }
    std::vector<std::string> chosen;
    for (const auto& m : options.methods.empty() ? methods::allMethodNames() : options.methods)
        chosen.push_back(*study_plan::canonicalMethod(m));
    auto settings = text_downstream::textDownstreamSettings(fresh.spec(), options.pretrainSteps, options.finetuneSteps);
    if (options.reproducible) settings.reproducible = *options.reproducible;
    if (options.accountant) settings.accountant = *options.accountant;
    settings.device = options.device;
    text_downstream::TextDownstreamReport report;
    const int code = runInterruptible("dpmix run", "the run in flight is marked cancelled in " + fresh.path().string(),
                                      CancellationToken{}, stderrProgress(), report,
                                      [&](const auto& progress, const auto& cancel, const auto& log) {
                                          return text_downstream::runTextDownstream(
                                              fresh, *cache, chosen, options.epsilons, settings, progress, cancel, log);
                                      });
    if (code != 0) return code;
    printTextDownstream(fresh, *cache, report, json);
    return 0;
}

}  // namespace

int runTextProject(project::ProjectFile& project, const pipeline::StudyRunOptions& options,
                   const TextRunArguments& given) {
    bool downstream = false;
    for (const auto& s : options.stages)
        if (s != "proxies" && s != "mixture")
            downstream = true;  // pretrain, finetune, evaluate, downstream: the LM stages
    TokenCacheRemoval removal{downstream ? text_tokens::tokenCacheDir(project.path()) : std::filesystem::path(),
                              given.keepTokens};
    const int code = runTextStudyChild(textChildArguments(project, options, given, downstream), downstream);
    if (code != 0 || !downstream) return code;
    return runTextDownstreamStages(project.path(), options, given.json);
}

}  // namespace dpmix::cli
