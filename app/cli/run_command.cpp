// `dpmix run SPEC_OR_PROJECT [--stages proxies,mixture[,pretrain,finetune,evaluate]] [--methods ...]
//  [--tasks ...] [--epsilon E[,E...]] [--rho R] [--seed S[,S...]] [--json]`: runs the study's stages,
// stores every result in the project and prints λ against λ* (and the downstream AUCs). With
// --executor slurm each seed is one array task of a Slurm job and `dpmix jobs merge` stores the
// runs (docs/CLUSTER.md, "The run grid"; with secret randomness each attempt is a release, "Secret runs").
#include "app/cli/cli_support.h"
#include "app/cli/command.h"
#include "app/cli/device_option.h"
#include "app/cli/executor_options.h"
#include "app/cli/mixture_json.h"
#include "app/cli/number_parsing.h"
#include "app/cli/project_commands.h"
#include "app/cli/ranks_option.h"
#include "app/cli/run_text_study.h"
#include "engine/executor/cluster_submission.h"
#include "engine/executor/run_units.h"
#include "engine/methods/method_plan.h"
#include "engine/pipeline/study_runner.h"
#include "engine/project/result_summary.h"
#include "engine/project/spec_json.h"
#include "engine/study_plan/run_options.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <memory>
#include <sstream>

namespace dpmix::cli {
namespace {

using nlohmann::ordered_json;

std::string fmtVector(const Eigen::VectorXd& v) {
    std::ostringstream s;
    s.precision(3);
    s << std::fixed << '[';
    for (Eigen::Index i = 0; i < v.size(); ++i) s << (i ? " " : "") << v[i];
    s << ']';
    return s.str();
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
    std::string methods;  // empty: every method
    std::string tasks;
    std::string epsilons;
    std::string rho;
    std::string cap;  // empty: the spec's and the budget store's
    std::string seeds;
    std::string seedCount;
    int proxyEpochs = 3;
    // kNotGiven: the flag was not given (any value given, -1 included, is checked).
    static constexpr long long kNotGiven = std::numeric_limits<long long>::min();
    long long pretrainSteps = kNotGiven;
    long long finetuneSteps = kNotGiven;
    long long proxyExamples = 0;
    bool json = false;
    bool reproducible = false;
    bool keepTokens = false;
    bool relearnMixture = false;
    bool estimate = false;
    std::string accountant;  // empty: the spec's
    std::string device = "auto";
    int ranks = 1;  // --ranks: DP-SGD on this many local processes (ranks_option.h)
    ExecutorArgs cluster;
};

// The run seeds: a list (--seed) or a count (--seeds N = 0 .. N-1), never both.
Result<std::vector<std::uint64_t>> runSeeds(const RunArgs& args, std::string& spelled) {
    spelled = args.seeds;
    if (!args.seedCount.empty()) {
        if (!args.seeds.empty())
            return Error{"--seed and --seeds are alternatives: give a list with --seed or a count with --seeds"};
        auto n = parseInteger(args.seedCount, "--seeds");
        if (!n) return n.error();
        if (*n < 1 || *n > 1000)
            return Error{"--seeds = " + args.seedCount + " is out of range: expected a number of seeds from 1 to 1000"};
        for (long long s = 0; s < *n; ++s) spelled += (s ? "," : "") + std::to_string(s);
    }
    std::vector<std::uint64_t> seeds;
    for (const auto& s : splitList(spelled)) {
        auto v = parseInteger(s, "--seed");
        if (!v) return v.error();
        if (*v < 0) return Error{"--seed = " + s + " is out of range: expected an integer >= 0"};
        seeds.push_back(static_cast<std::uint64_t>(*v));
    }
    return seeds;
}

// The command line as the study runner's options, checked; `spelledSeeds` gets the seed list.
Result<pipeline::StudyRunOptions> studyRunOptions(const RunArgs& args, std::string& spelledSeeds) {
    pipeline::StudyRunOptions options;
    options.stages = splitList(args.stages);
    if (!args.methods.empty()) options.methods = splitList(args.methods);
    options.tasks = splitList(args.tasks);
    for (const auto& e : splitList(args.epsilons)) {
        auto v = parseReal(e, "--epsilon");
        if (!v) return v.error();
        options.epsilons.push_back(*v);
    }
    if (!args.rho.empty()) {
        auto v = parseReal(args.rho, "--rho");
        if (!v) return v.error();
        options.rho = *v;
    }
    if (!args.cap.empty()) {
        auto v = parseReal(args.cap, "--cap");
        if (!v) return v.error();
        if (!(*v > 0.0 && *v <= 1e6))
            return Error{"--cap " + args.cap + " is out of range: expected the data set's total epsilon, in (0, 1e6]"};
        options.budgetCap = *v;
    }
    auto seeds = runSeeds(args, spelledSeeds);
    if (!seeds) return seeds.error();
    options.seeds = std::move(seeds).value();
    options.proxy.epochs = args.proxyEpochs;
    if (args.pretrainSteps != RunArgs::kNotGiven) options.pretrainSteps = args.pretrainSteps;
    if (args.finetuneSteps != RunArgs::kNotGiven) options.finetuneSteps = args.finetuneSteps;
    options.proxy.maxExamples = args.proxyExamples;
    if (args.reproducible) options.reproducible = true;
    options.relearnMixture = args.relearnMixture;
    if (!args.accountant.empty()) {
        privacy::Accountant accountant;
        privacy::parseAccountant(args.accountant, accountant);  // CLI11 admitted only rdp and prv
        options.accountant = accountant;
    }
    auto device = commandDevice(args.device);
    if (!device) return device.error();
    options.device = *device;
    if (auto err = study_plan::checkStudyRunOptions(options)) return Error{cliMessage(*err)};
    return options;
}

void printStudyJson(const pipeline::StudyRunReport& report) {
    ordered_json tasks = ordered_json::array();
    for (const auto& m : report.mixtures) {
        const auto& o = m.outcome;
        for (const auto& p : o.privateLambdas) tasks.push_back(privateLambdaJson(m, p));
    }
    ordered_json downstream = ordered_json::array();
    for (const auto& d : report.downstream)
        downstream.push_back(
            {{"method", d.method},
             {"task", d.task},
             {"seed", d.seed},
             {"epsilon", d.epsilon},
             {"test_auc", d.testAuc},
             {"pretrained_test_auc",
              std::isfinite(d.pretrainedTestAuc) ? ordered_json(d.pretrainedTestAuc) : ordered_json(nullptr)},
             {"ledger_epsilon", std::isinf(d.ledgerEpsilon) ? ordered_json("inf") : ordered_json(d.ledgerEpsilon)},
             {"established", d.established},
             {"run", d.runId}});
    ordered_json summary = ordered_json::array();
    for (const auto& row : summarize(report))
        summary.push_back({{"method", row.method},
                           {"epsilon", row.epsilon},
                           {"macro_auc_mean", row.mean},
                           {"macro_auc_std", row.std},
                           {"seeds", row.seeds}});
    ordered_json out{{"project", report.project}, {"proxy_public_auc", report.proxyPublicAuc}, {"tasks", tasks}};
    if (!report.downstream.empty()) {
        out["downstream"] = downstream;
        out["summary"] = summary;
    }
    std::cout << out.dump(2) << '\n';
}

void printStudyText(const pipeline::StudyRunReport& report) {
    std::cout << "project " << report.project << "\ncomponents:";
    for (const auto& c : report.componentNames) std::cout << " [" << c << "]";
    std::cout << "\nproxy: mean AUC on held-out public images " << report.proxyPublicAuc << "\n\n";
    for (const auto& m : report.mixtures) {
        const auto& o = m.outcome;
        std::cout << "task " << o.task << "  (seed " << m.seed << ", rho " << m.rho << ": split A " << m.splitA
                  << ", split B " << m.splitB << ")\n"
                  << "  lambda*        " << fmtVector(o.lambdaStar) << "\n"
                  << "  uniform        " << fmtVector(o.lambdaUniform) << "  cos " << o.uniformCosine << "  L1 "
                  << o.uniformL1 << "\n"
                  << "  random search  " << fmtVector(o.lambdaRandomSearch) << "  cos " << o.randomSearchCosine
                  << "  (chosen non-privately)\n";
        for (const auto& p : o.privateLambdas)
            std::cout << "  DP eps=" << p.epsilon << "   " << fmtVector(p.lambda) << "  cos " << p.cosine << "  L1 "
                      << p.l1 << "  (sigma " << p.sigma << ", epsilon spent " << p.epsilonSpent << ", delta " << p.delta
                      << ")\n";
        std::cout << '\n';
    }
    if (report.downstream.empty()) return;
    std::cout << "macro AUC on the sensitive test split (mean over tasks; mean ± std over seeds)\n";
    for (const auto& row : summarize(report))
        std::cout << "  eps " << row.epsilon << "  " << row.method
                  << std::string(20 - std::min<std::size_t>(19, row.method.size()), ' ') << row.mean << " ± " << row.std
                  << "  (" << row.seeds << " seed(s))\n";
}

int badRunInput(const std::string& message) {
    std::cerr << "dpmix run: " << message << '\n';
    return 2;
}

// --executor slurm: the proxy obtained here, the project copied into a job directory next to it
// and one array task per seed submitted; `dpmix jobs merge` stores the runs later.
int submitRunToSlurm(const RunArgs& args, project::ProjectFile& project, const pipeline::StudyRunOptions& options) {
    if (auto bad = executor::checkSlurmOptions(args.cluster.slurm)) return badRunInput(cliMessage(*bad));
    if (args.cluster.dryRun) {
        const auto units = executor::studyRunWorkUnits(study_plan::resolveRunChoices(project.spec(), options).seeds);
        auto report = executor::cluster::submitJob(project, executor::cluster::JobKind::Run, "{}", units,
                                                   args.cluster.slurm, true);
        if (!report) return badRunInput(report.error().message);
        printDryRun(*report);
        return 0;
    }
    executor::cluster::SubmitReport report;
    const int code = runInterruptible("dpmix run", "nothing was submitted", CancellationToken{}, stderrProgress(),
                                      report, [&](const auto& progress, const auto& cancel, const auto& log) {
                                          return executor::submitStudyRunToSlurm(project, options, args.cluster.slurm,
                                                                                 progress, cancel, log);
                                      });
    if (code != 0) return code;
    if (!study_plan::resolveRunChoices(project.spec(), options).reproducible)
        std::cerr << "dpmix run: secret randomness: every attempt at a unit (its first start, dpmix jobs resubmit, a "
                     "Slurm requeue) is a release of its own, reserved in the budget store before it runs "
                     "(docs/CLUSTER.md, \"Secret runs\")\n";
    printSubmitted(project, report, args.json, "the runs");
    return 0;
}

// --estimate: the run's time on this machine from its planned work and a step timed now; runs nothing.
int printEstimate(project::ProjectFile& project, const pipeline::StudyRunOptions& options) {
    if (isTextProject(project)) return badRunInput("--estimate times image studies; a text study has no estimate yet");
    auto estimate = pipeline::estimateStudyRun(
        project, options, [](const std::string& line) { std::cerr << "dpmix run: " << line << '\n'; });
    if (!estimate) return badRunInput(estimate.error().message);
    const auto minutes = estimate->seconds / 60.0;
    std::cout << "estimated time on this machine: about "
              << (minutes < 1.0 ? std::to_string(static_cast<int>(estimate->seconds + 0.5)) + " s"
                                : std::to_string(static_cast<int>(minutes + 0.5)) + " min")
              << " (planned work " << static_cast<long long>(estimate->work)
              << " examples through the network; a training step of " << estimate->batch << " measured at "
              << static_cast<int>(estimate->stepMilliseconds + 0.5) << " ms just now). Nothing was run.\n";
    return 0;
}

// `dpmix run` once its arguments are parsed; returns the exit code.
int executeRun(const RunArgs& args) {
    std::string spelledSeeds;
    auto options = studyRunOptions(args, spelledSeeds);
    if (!options) return badRunInput(options.error().message);
    const bool slurm = args.cluster.executor == "slurm";
    if (slurm) {
        // A host that cannot submit changes nothing (no project created, no proxy trained).
        if (auto e = executor::cluster::checkCanSubmit(); e && !args.cluster.dryRun) {
            std::cerr << "dpmix run: " << cliMessage(*e) << '\n';
            return 1;
        }
    }
    if (auto bad = ranksOutOfRange(args.ranks)) return badRunInput(*bad);
    auto opened = openProjectForRuns(args.project);
    if (!opened) {
        std::cerr << "dpmix run: " << opened.error().message << '\n';
        return 2;
    }
    project::ProjectFile project = std::move(opened).value();
    if (slurm && isTextProject(project))
        return badRunInput("--executor slurm runs image studies; a text study runs here");
    if (auto refusal = ranksRefusal(args.ranks, isTextProject(project), project.spec(), *options))
        return badRunInput(*refusal);
    if (slurm) {
        RunArgs onSlurm = args;
        onSlurm.cluster.slurm.ranks = args.ranks;  // each array task asks for the ranks as Slurm tasks
        return submitRunToSlurm(onSlurm, project, *options);
    }
    if (args.estimate) return printEstimate(project, *options);
    if (isTextProject(project))
        return runTextProject(project, *options, {args.epsilons, args.rho, spelledSeeds, args.json, args.keepTokens});
    const auto onRanks = installLocalRanks(args.ranks);
    // Ctrl-C stops the stage in flight; its run is marked cancelled.
    pipeline::StudyRunReport report;
    const int code = runInterruptible(
        "dpmix run", "the run in flight is marked cancelled in " + project.path().string(), CancellationToken{},
        stderrProgress(), report, [&](const auto& progress, const auto& cancel, const auto& log) {
            return pipeline::runStudy(project, *options, progress, cancel, log);
        });
    if (code != 0) return code;
    if (args.json)
        printStudyJson(report);
    else
        printStudyText(report);
    return 0;
}

}  // namespace

void registerRunCommand(CLI::App& app, CommandContext& ctx) {
    // The arguments live as long as the command (CLI11 writes into them when it parses).
    auto args = std::make_shared<RunArgs>();
    auto* run = app.add_subcommand("run", "Run a study's stages and store the results in its project");
    run->add_option("project", args->project, "a .dpmix project, or a spec JSON (its project is created next to it)")
        ->required();
    run->add_option("--stages", args->stages,
                    "comma-separated stages: proxies, mixture, pretrain, finetune, evaluate (or downstream = the last "
                    "three) (default: proxies,mixture)");
    run->add_option("--methods", args->methods,
                    "methods for the downstream stages: " + methods::shortNameList() + " (default: all of them)");
    run->add_option("--tasks", args->tasks, "comma-separated sensitive task names (default: every task)");
    run->add_option("--epsilon,--epsilons", args->epsilons, "target epsilon(s), comma-separated (default: the spec's)");
    run->add_option("--rho", args->rho,
                    "fraction of the sensitive training data for mixture learning (default: the spec's)");
    run->add_option("--cap", args->cap,
                    "refuse the run if the sensitive data set's total epsilon would exceed this (besides the spec's "
                    "privacy.budget and the budget store's cap)");
    run->add_option("--seed", args->seeds, "run seed(s), comma-separated, e.g. 0,1,2 (default: the spec's)");
    run->add_option("--seeds", args->seedCount, "number of seeds N: runs seeds 0 .. N-1 (instead of --seed)");
    run->add_option("--proxy-epochs", args->proxyEpochs, "epochs of proxy training on the public data (default 3)");
    run->add_option("--pretrain-steps", args->pretrainSteps, "override the spec's pretraining steps");
    run->add_option("--finetune-steps", args->finetuneSteps, "override the spec's fine-tuning steps");
    run->add_option("--proxy-examples", args->proxyExamples,
                    "train the proxy on at most this many public images (0 = all)");
    run->add_flag("--json", args->json, "print the results as one JSON object");
    run->add_flag("--reproducible", args->reproducible,
                  "seed every DP mechanism from the run seed (and the release's identity): results can be re-derived, "
                  "but the file stores the seed, so no run is a release (default: secret randomness, or the spec's "
                  "privacy.reproducible)");
    run->add_option("--accountant", args->accountant,
                    "rdp or prv: the accountant that calibrates every DP mechanism's noise and certifies its ledger "
                    "entry (default: the spec's privacy.accountant)")
        ->check(CLI::IsMember({"rdp", "prv"}));
    run->add_flag("--estimate", args->estimate,
                  "print how long the run would take on this machine (its planned work times a training step timed "
                  "now on random pixels) and run nothing");
    run->add_flag("--relearn-mixture", args->relearnMixture,
                  "downstream stages (image and text studies): learn DP-MixMin's lambda again (and spend "
                  "again) even where the project already released it for the same seed, task, epsilon and "
                  "settings (default: that release is reused, no second spend)");
    run->add_flag("--keep-tokens", args->keepTokens,
                  "text studies: keep <project>.tokens/ (the tokenised sensitive text, with user ids) after the "
                  "language-model stages (default: removed; it is sensitive data)");
    addDeviceOption(*run, args->device);
    addRanksOption(*run, args->ranks);
    addExecutorOptions(*run, args->cluster, "the whole grid in this process");
    run->callback([&ctx, args, run] {
        if (auto flag = misplacedSlurmFlag(*run, args->cluster)) {
            ctx.exitCode = badRunInput(*flag);
            return;
        }
        ctx.exitCode = executeRun(*args);
    });
}

}  // namespace dpmix::cli
