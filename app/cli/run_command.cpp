// `dpmix run SPEC_OR_PROJECT [--stages proxies,mixture[,pretrain,finetune,evaluate]] [--methods ...]
//  [--tasks ...] [--epsilon E[,E...]] [--rho R] [--seed S[,S...]] [--json]`: runs the study's stages,
// stores every result in the project and prints λ against λ* (and the downstream AUCs).
#include "app/cli/cli_support.h"
#include "app/cli/command.h"
#include "app/cli/number_parsing.h"
#include "app/cli/project_commands.h"
#include "engine/pipeline/study_runner.h"
#include "engine/project/result_summary.h"
#include "engine/pipeline/text_downstream.h"
#include "engine/pipeline/text_downstream_tokens.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <sys/wait.h>
#include <unistd.h>
#include <map>
#include <cstdio>
#include <iostream>
#include <sstream>

namespace dpmix::cli {
namespace {

using nlohmann::ordered_json;


ordered_json vec(const Eigen::VectorXd& v) { return std::vector<double>(v.data(), v.data() + v.size()); }

std::string fmtVector(const Eigen::VectorXd& v) {
    std::ostringstream s;
    s.precision(3);
    s << std::fixed << '[';
    for (Eigen::Index i = 0; i < v.size(); ++i) s << (i ? " " : "") << v[i];
    s << ']';
    return s.str();
}


bool isTextProject(const project::ProjectFile& project) {
    auto sources = project.sources();
    if (!sources) return false;
    for (const auto& s : *sources)
        if (s.role == "sensitive" && s.facts.kind == "text") return true;
    return false;
}

// Runs dpmix-text (from this program's folder) as a child process and waits for it: text studies
// tokenise with sentencepiece, which cannot share a process with LibTorch. Returns its exit
// status (128 + signal when it was killed). With `stdoutToStderr` the child's report goes to
// stderr, so that this process's stdout carries only its own (e.g. --json) output.
int runTextStudyChild(const std::vector<std::string>& args, bool stdoutToStderr) {
    char self[4096];
    const ssize_t len = ::readlink("/proc/self/exe", self, sizeof self - 1);
    std::filesystem::path dir = len > 0 ? std::filesystem::path(std::string(self, static_cast<std::size_t>(len))).parent_path()
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
        const std::string msg = "dpmix run: this is a text study, which runs in " + program + ", but it cannot be started: " +
                                std::strerror(errno) + "\n";
        (void)!::write(STDERR_FILENO, msg.data(), msg.size());
        ::_exit(127);
    }
    // Ctrl-C reaches the child too (same process group), which marks its run cancelled and exits:
    // this process ignores it meanwhile and reports the child's status.
    auto previous = std::signal(SIGINT, SIG_IGN);
    int status = 0;
    pid_t waited;
    while ((waited = ::waitpid(child, &status, 0)) < 0 && errno == EINTR) {
    }
    std::signal(SIGINT, previous);
    if (waited < 0) return 1;
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return 1;
}

// Test perplexity per (ε, method): mean ± sample std over seeds, in the order the runs ran.
std::vector<project::ResultSummaryRow> summarizePerplexity(const pipeline::TextDownstreamReport& report, const std::string& task) {
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

int runTextProject(project::ProjectFile& project, const pipeline::StudyRunOptions& options, const std::string& epsilons,
                   const std::string& rho, const std::string& seeds, bool json, bool keepTokens) {
    std::vector<std::string> childStages;
    bool downstream = false;
    for (const auto& s : options.stages) {
        if (s == "proxies" || s == "mixture") childStages.push_back(s);
        else downstream = true;  // pretrain, finetune, evaluate, downstream: the LM stages
    }
    if (downstream && std::find(childStages.begin(), childStages.end(), "mixture") == childStages.end())
        childStages.push_back("mixture");  // the LM stages need this run's λ and splits
    std::string stageList;
    for (const auto& s : childStages) stageList += (stageList.empty() ? "" : ",") + s;
    std::vector<std::string> textArgs{"dpmix-text", "run", project.path().string(), "--stages", stageList};
    if (!epsilons.empty()) textArgs.insert(textArgs.end(), {"--epsilon", epsilons});
    if (!rho.empty()) textArgs.insert(textArgs.end(), {"--rho", rho});
    if (!seeds.empty()) textArgs.insert(textArgs.end(), {"--seed", seeds});
    if (options.reproducible.value_or(false)) textArgs.emplace_back("--reproducible");
    if (downstream) textArgs.emplace_back("--export-tokens");
    else if (json) textArgs.emplace_back("--json");
    TokenCacheRemoval removal{downstream ? pipeline::tokenCacheDir(project.path()) : std::filesystem::path(), keepTokens};
    const int code = runTextStudyChild(textArgs, downstream);
    if (code != 0 || !downstream) return code;

    auto reopened = openProjectArgument(project.path().string());  // the child wrote runs: read them fresh
    if (!reopened) {
        std::cerr << "dpmix run: " << reopened.error().message << '\n';
        return 1;
    }
    project::ProjectFile fresh = std::move(reopened).value();
    auto cache = pipeline::readTokenCache(pipeline::tokenCacheDir(fresh.path()));
    if (!cache) {
        std::cerr << "dpmix run: " << cache.error().message << '\n';
        return 1;
    }
    std::vector<std::string> methods;
    for (const auto& m : options.methods.empty() ? splitList("dpmixmin,uniform,random-search,random-init,nonprivate")
                                                 : options.methods)
        methods.push_back(*pipeline::canonicalMethod(m));
    auto settings = pipeline::textDownstreamSettings(fresh.spec(), options.pretrainSteps, options.finetuneSteps);
    if (options.reproducible) settings.reproducible = *options.reproducible;
    CancellationToken cancel;
    InterruptCancels ctrlC(cancel);
    auto log = [](const std::string& line) { std::cerr << "dpmix run: " << line << '\n'; };
    Result<pipeline::TextDownstreamReport> report = Error{""};
    try {
        report = pipeline::runTextDownstream(fresh, *cache, methods, options.epsilons, settings, stderrProgress(), cancel, log);
    } catch (const Cancelled&) {
        std::cerr << "dpmix run: cancelled; the run in flight is marked cancelled in " << fresh.path() << '\n';
        return 130;
    }
    if (!report) {
        std::cerr << "dpmix run: " << report.error().message << '\n';
        return 1;
    }
    const auto rows = summarizePerplexity(*report, cache->task);
    if (json) {
        ordered_json runs = ordered_json::array();
        for (const auto& r : report->runs)
            runs.push_back({{"method", r.method}, {"seed", r.seed}, {"epsilon", r.epsilon},
                            {"test_perplexity", r.testPerplexity},
                            {"pretrained_test_perplexity", std::isfinite(r.pretrainedPerplexity) ? ordered_json(r.pretrainedPerplexity) : ordered_json(nullptr)},
                            {"finetune_users", r.finetuneUsers}, {"q", r.q}, {"sigma", r.sigma},
                            {"ledger_epsilon", std::isinf(r.ledgerEpsilon) ? ordered_json("inf") : ordered_json(r.ledgerEpsilon)},
                            {"established", r.established}, {"run", r.runId}});
        ordered_json summary = ordered_json::array();
        for (const auto& row : rows)
            summary.push_back({{"method", row.method}, {"epsilon", row.epsilon}, {"test_perplexity_mean", row.mean},
                               {"test_perplexity_std", row.std}, {"seeds", row.seeds}});
        std::cout << ordered_json{{"project", fresh.path().string()}, {"task", cache->task}, {"downstream", runs}, {"summary", summary}}.dump(2) << '\n';
    } else {
        std::cout << "project " << fresh.path().string() << "  (task " << cache->task << ", " << cache->testUsers.size()
                  << " test users)\n"
                  << "method               eps    seed  ft users  sigma    ppl before ft  test ppl  ledger eps\n";
        for (const auto& r : report->runs) {
            char line[256];
            std::snprintf(line, sizeof line, "%-20s %-6g %-5llu %-9lld %-8.3f %-14.2f %-9.2f %s\n", r.method.c_str(), r.epsilon,
                          static_cast<unsigned long long>(r.seed), r.finetuneUsers, r.sigma, r.pretrainedPerplexity,
                          r.testPerplexity, std::isinf(r.ledgerEpsilon) ? "inf (non-private step)" : std::to_string(r.ledgerEpsilon).c_str());
            std::cout << line;
        }
        std::cout << "\ntest perplexity on the test users' mail (lower is better; mean ± std over seeds)\n";
        for (const auto& row : rows)
            std::cout << "  eps " << row.epsilon << "  " << row.method << std::string(20 - std::min<std::size_t>(19, row.method.size()), ' ')
                      << row.mean << " ± " << row.std << "  (" << row.seeds << " seed(s))\n";
    }
    return 0;
}

// Macro AUC (mean over the tasks run) per (ε, method, seed), then mean ± sample std over seeds.
std::vector<project::ResultSummaryRow> summarize(const pipeline::StudyRunReport& report) {
    std::vector<project::ResultObservation> observations;
    for (const auto& d : report.downstream)
        observations.push_back({d.method, d.task, static_cast<long long>(d.seed), d.epsilon, d.testAuc, d.runId});
    return project::summarizeResults(observations);
}

struct RunArgs {
    std::string project;
    std::string stages = "proxies,mixture";
    std::string methods = "dpmixmin,uniform,random-search,random-init,nonprivate";
    std::string tasks;
    std::string epsilons;
    std::string rho;
    std::string seeds;
    std::string seedCount;
    int proxyEpochs = 3;
    long long pretrainSteps = -1;  // -1: not given (0 is given, and refused)
    long long finetuneSteps = -1;
    long long proxyExamples = 0;
    bool json = false;
    bool reproducible = false;
    bool keepTokens = false;
};

}  // namespace

void registerRunCommand(CLI::App& app, CommandContext& ctx) {
    static RunArgs args;
    auto* run = app.add_subcommand("run", "Run a study's stages and store the results in its project");
    run->add_option("project", args.project, "a .dpmix project, or a spec JSON (its project is created next to it)")->required();
    run->add_option("--stages", args.stages,
                    "comma-separated stages: proxies, mixture, pretrain, finetune, evaluate (or downstream = the last "
                    "three) (default: proxies,mixture)");
    run->add_option("--methods", args.methods,
                    "methods for the downstream stages: dpmixmin, uniform, random-search, random-init, nonprivate "
                    "(default: all five)");
    run->add_option("--tasks", args.tasks, "comma-separated sensitive task names (default: every task)");
    run->add_option("--epsilon,--epsilons", args.epsilons, "target epsilon(s), comma-separated (default: the spec's)");
    run->add_option("--rho", args.rho, "fraction of the sensitive training data for mixture learning (default: the spec's)");
    run->add_option("--seed", args.seeds, "run seed(s), comma-separated, e.g. 0,1,2 (default: the spec's)");
    run->add_option("--seeds", args.seedCount, "number of seeds N: runs seeds 0 .. N-1 (instead of --seed)");
    run->add_option("--proxy-epochs", args.proxyEpochs, "epochs of proxy training on the public data (default 3)");
    run->add_option("--pretrain-steps", args.pretrainSteps, "override the spec's pretraining steps");
    run->add_option("--finetune-steps", args.finetuneSteps, "override the spec's fine-tuning steps");
    run->add_option("--proxy-examples", args.proxyExamples, "train the proxy on at most this many public images (0 = all)");
    run->add_flag("--json", args.json, "print the results as one JSON object");
    run->add_flag("--reproducible", args.reproducible,
                  "seed every DP mechanism from the run seed (and the release's identity): results can be re-derived, "
                  "but the file stores the seed, so no run is a release (default: secret randomness, or the spec's "
                  "privacy.reproducible)");
    run->add_flag("--keep-tokens", args.keepTokens,
                  "text studies: keep <project>.tokens/ (the tokenised sensitive text, with user ids) after the "
                  "language-model stages (default: removed; it is sensitive data)");
    run->callback([&ctx] {
        pipeline::StudyRunOptions options;
        options.stages = splitList(args.stages);
        options.methods = splitList(args.methods);
        options.tasks = splitList(args.tasks);
        for (const auto& e : splitList(args.epsilons)) {
            auto v = parseReal(e, "--epsilon");
            if (!v) { std::cerr << "dpmix run: " << v.error().message << '\n'; ctx.exitCode = 2; return; }
            options.epsilons.push_back(*v);
        }
        if (!args.rho.empty()) {
            auto v = parseReal(args.rho, "--rho");
            if (!v) { std::cerr << "dpmix run: " << v.error().message << '\n'; ctx.exitCode = 2; return; }
            options.rho = *v;
        }
        if (!args.seedCount.empty()) {
            auto n = parseInteger(args.seedCount, "--seeds");
            if (!n || *n < 1 || *n > 1000 || !args.seeds.empty()) {
                std::cerr << "dpmix run: "
                          << (!args.seeds.empty() ? std::string("--seed and --seeds are alternatives: give a list with --seed or a count with --seeds")
                              : n ? "--seeds = " + args.seedCount + " is out of range: expected a number of seeds from 1 to 1000"
                                  : n.error().message)
                          << '\n';
                ctx.exitCode = 2;
                return;
            }
            for (long long s = 0; s < *n; ++s) args.seeds += (s ? "," : "") + std::to_string(s);
        }
        for (const auto& s : splitList(args.seeds)) {
            auto v = parseInteger(s, "--seed");
            if (!v || *v < 0) {
                std::cerr << "dpmix run: " << (v ? "--seed = " + s + " is out of range: expected an integer >= 0" : v.error().message) << '\n';
                ctx.exitCode = 2;
                return;
            }
            options.seeds.push_back(static_cast<std::uint64_t>(*v));
        }
        options.proxy.epochs = args.proxyEpochs;
        if (args.pretrainSteps != -1) options.pretrainSteps = args.pretrainSteps;
        if (args.finetuneSteps != -1) options.finetuneSteps = args.finetuneSteps;
        options.proxy.maxExamples = args.proxyExamples;
        if (args.reproducible) options.reproducible = true;
        if (auto err = pipeline::checkStudyRunOptions(options)) {
            std::cerr << "dpmix run: " << err->message << '\n';
            ctx.exitCode = 2;
            return;
        }
        auto opened = openProjectForRuns(args.project);
        if (!opened) {
            std::cerr << "dpmix run: " << opened.error().message << '\n';
            ctx.exitCode = 2;
            return;
        }
        project::ProjectFile project = std::move(opened).value();
        if (isTextProject(project)) {
            ctx.exitCode = runTextProject(project, options, args.epsilons, args.rho, args.seeds, args.json, args.keepTokens);
            return;
        }
        CancellationToken cancel;
        InterruptCancels ctrlC(cancel);  // Ctrl-C stops the stage in flight; its run is marked cancelled
        auto progress = stderrProgress();
        auto log = [](const std::string& line) { std::cerr << "dpmix run: " << line << '\n'; };
        Result<pipeline::StudyRunReport> report = Error{""};
        try {
            report = pipeline::runStudy(project, options, progress, cancel, log);
        } catch (const Cancelled&) {
            std::cerr << "dpmix run: cancelled; the run in flight is marked cancelled in " << project.path() << '\n';
            ctx.exitCode = 130;
            return;
        }
        if (!report) {
            std::cerr << "dpmix run: " << report.error().message << '\n';
            ctx.exitCode = 1;
            return;
        }
        if (args.json) {
            ordered_json tasks = ordered_json::array();
            for (const auto& m : report->mixtures) {
                const auto& o = m.outcome;
                for (const auto& p : o.privateLambdas) {
                    tasks.push_back({{"task", o.task},
                                     {"seed", p.seed},
                                     {"epsilon", p.epsilon},
                                     {"rho", m.rho},
                                     {"split_a", m.splitA},
                                     {"split_b", m.splitB},
                                     {"components", o.componentNames},
                                     {"lambda_dp", vec(p.lambda)},
                                     {"lambda_star", vec(o.lambdaStar)},
                                     {"lambda_uniform", vec(o.lambdaUniform)},
                                     {"lambda_random_search", vec(o.lambdaRandomSearch)},
                                     {"cos_dp", p.cosine},
                                     {"l1_dp", p.l1},
                                     {"cos_uniform", o.uniformCosine},
                                     {"l1_uniform", o.uniformL1},
                                     {"cos_random_search", o.randomSearchCosine},
                                     {"sigma", p.sigma},
                                     {"epsilon_spent", p.epsilonSpent},
                                     {"delta", p.delta}});
                }
            }
            ordered_json downstream = ordered_json::array();
            for (const auto& d : report->downstream)
                downstream.push_back({{"method", d.method},
                                      {"task", d.task},
                                      {"seed", d.seed},
                                      {"epsilon", d.epsilon},
                                      {"test_auc", d.testAuc},
                                      {"pretrained_test_auc", std::isfinite(d.pretrainedTestAuc) ? ordered_json(d.pretrainedTestAuc) : ordered_json(nullptr)},
                                      {"ledger_epsilon", std::isinf(d.ledgerEpsilon) ? ordered_json("inf") : ordered_json(d.ledgerEpsilon)},
                                      {"established", d.established},
                                      {"run", d.runId}});
            ordered_json summary = ordered_json::array();
            for (const auto& row : summarize(*report))
                summary.push_back({{"method", row.method}, {"epsilon", row.epsilon}, {"macro_auc_mean", row.mean},
                                   {"macro_auc_std", row.std}, {"seeds", row.seeds}});
            ordered_json out{{"project", report->project},
                             {"proxy_public_auc", report->proxyPublicAuc},
                             {"tasks", tasks}};
            if (!report->downstream.empty()) {
                out["downstream"] = downstream;
                out["summary"] = summary;
            }
            std::cout << out.dump(2) << '\n';
        } else {
            std::cout << "project " << report->project << "\ncomponents:";
            for (const auto& c : report->componentNames) std::cout << " [" << c << "]";
            std::cout << "\nproxy: mean AUC on held-out public images " << report->proxyPublicAuc << "\n\n";
            for (const auto& m : report->mixtures) {
                const auto& o = m.outcome;
                std::cout << "task " << o.task << "  (seed " << m.seed << ", rho " << m.rho << ": split A " << m.splitA
                          << ", split B " << m.splitB << ")\n"
                          << "  lambda*        " << fmtVector(o.lambdaStar) << "\n"
                          << "  uniform        " << fmtVector(o.lambdaUniform) << "  cos " << o.uniformCosine << "  L1 " << o.uniformL1 << "\n"
                          << "  random search  " << fmtVector(o.lambdaRandomSearch) << "  cos " << o.randomSearchCosine << "  (chosen non-privately)\n";
                for (const auto& p : o.privateLambdas)
                    std::cout << "  DP eps=" << p.epsilon << "   " << fmtVector(p.lambda) << "  cos " << p.cosine << "  L1 " << p.l1
                              << "  (sigma " << p.sigma << ", epsilon spent " << p.epsilonSpent << ", delta " << p.delta << ")\n";
                std::cout << '\n';
            }
            if (!report->downstream.empty()) {
                std::cout << "macro AUC on the sensitive test split (mean over tasks; mean ± std over seeds)\n";
                for (const auto& row : summarize(*report))
                    std::cout << "  eps " << row.epsilon << "  " << row.method << std::string(20 - std::min<std::size_t>(19, row.method.size()), ' ')
                              << row.mean << " ± " << row.std << "  (" << row.seeds << " seed(s))\n";
            }
        }
        ctx.exitCode = 0;
    });
}

}  // namespace dpmix::cli
