// `dpmix experiment k-scaling|rho-sweep|epsilon-sweep|adamix SPEC_OR_PROJECT ...`: the study-level
// experiments of docs/ALGORITHMS.md A.9–A.10 (engine/experiment_runs/mixture_experiment_runs.h) and the AdaMix-R
// experiment (docs/ADAMIX.md; engine/experiment_runs/adamix_experiment_stage.h). Each prints its table (or
// --json) and stores its runs in the project. Progress goes to stderr. With --executor slurm each
// is frozen here and submitted as a job array instead (docs/CLUSTER.md); `dpmix jobs merge` stores it.
#include "app/cli/cli_support.h"
#include "app/cli/command.h"
#include "app/cli/device_option.h"
#include "app/cli/executor_options.h"
#include "app/cli/experiment_tables.h"
#include "app/cli/number_parsing.h"
#include "app/cli/project_commands.h"
#include "app/cli/regime_map_command.h"
#include "engine/executor/adamix_units.h"
#include "engine/executor/cluster_submission.h"
#include "engine/experiment_runs/adamix_experiment_stage.h"
#include "engine/experiment_runs/mixture_experiment_runs.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <functional>
#include <iostream>
#include <limits>
#include <memory>
#include <sstream>

namespace dpmix::cli {
namespace {

using nlohmann::ordered_json;

struct CommonArgs {
    std::string project;
    std::string seeds;
    std::string epsilon;
    int threads = 0;
    int proxyEpochs = 3;
    long long proxyExamples = 0;
    std::string device = "auto";
    bool json = false;
};

int badInput(const std::string& what, const std::string& message) {
    std::cerr << "dpmix experiment " << what << ": " << message << '\n';
    return 2;
}

// Runs `body` with Ctrl-C wired to the token and progress on stderr; maps errors to exit codes.
template <typename Body>
int runExperiment(const std::string& what, const std::string& projectArg, Body&& body) {
    auto opened = openProjectForRuns(projectArg);
    if (!opened) return badInput(what, opened.error().message);
    project::ProjectFile project = std::move(opened).value();
    CancellationToken cancel;
    InterruptCancels ctrlC(cancel);
    ProgressCallback progress = stderrProgress();
    pipeline::LogSink log = [what](const std::string& line) {
        std::cerr << "dpmix experiment " << what << ": " << line << '\n';
    };
    try {
        auto err = body(project, progress, cancel, log);
        if (err) {
            std::cerr << "dpmix experiment " << what << ": " << cliMessage(*err) << '\n';
            return 1;
        }
    } catch (const Cancelled&) {
        std::cerr << "dpmix experiment " << what << ": cancelled\n";
        return 130;
    }
    return 0;
}

std::optional<long long> parseCount(const std::string& text, const std::string& flag, long long fallback,
                                    std::string& error) {
    if (text.empty()) return fallback;
    auto v = parseInteger(text, flag);
    if (!v) {
        error = v.error().message;
        return std::nullopt;
    }
    return *v;
}

std::optional<double> parseOptionalEpsilon(const std::string& text, std::string& error) {
    if (text.empty()) return std::nullopt;
    auto v = parseReal(text, "--epsilon");
    if (!v) error = v.error().message;
    return v ? std::optional<double>(*v) : std::nullopt;
}

// --executor slurm for an experiment: the host checked, the project opened, then the dry run
// (`units`: the array the job would have) or `submit` (which freezes the experiment and submits
// it); `dpmix jobs merge` stores the results later.
template <typename Submit>
int submitExperiment(const std::string& what, const std::string& projectArg, const ExecutorArgs& cluster, bool json,
                     const std::function<std::vector<executor::cluster::WorkUnit>(const project::ProjectFile&)>& units,
                     executor::cluster::JobKind kind, const std::string& stores, Submit&& submit) {
    namespace cl = executor::cluster;
    if (auto bad = executor::checkSlurmOptions(cluster.slurm)) return badInput(what, cliMessage(*bad));
    // A host that cannot submit changes nothing (no project created, no proxy trained).
    if (auto e = cl::checkCanSubmit(); e && !cluster.dryRun) {
        std::cerr << "dpmix experiment " << what << ": " << cliMessage(*e) << '\n';
        return 1;
    }
    auto opened = openProjectForRuns(projectArg);
    if (!opened) return badInput(what, opened.error().message);
    project::ProjectFile project = std::move(opened).value();
    if (cluster.dryRun) {
        auto report = cl::submitJob(project, kind, "{}", units(project), cluster.slurm, true);
        if (!report) return badInput(what, report.error().message);
        printDryRun(*report);
        return 0;
    }
    cl::SubmitReport report;
    const int code =
        runInterruptible("dpmix experiment " + what, "nothing was submitted", CancellationToken{}, stderrProgress(),
                         report, [&](const auto& progress, const auto& cancel, const auto& log) {
                             return submit(project, progress, cancel, log);
                         });
    if (code != 0) return code;
    printSubmitted(project, report, json, stores);
    return 0;
}

struct KScalingArgs : CommonArgs {
    std::string ks = "2,4,8,16,32,64,128,256,512";
    double gapTolerance = 1e-6;
    long long maxClasses = 0;
    ExecutorArgs cluster;
};

// The one-vs-rest classes a k-scaling runs, from the project's record of its sensitive source.
long long kScalingClassCount(const project::ProjectFile& project, long long maxClasses) {
    long long classes = 0;
    if (auto sources = project.sources())
        for (const auto& s : *sources)
            if (s.role == project::SourceRole::Sensitive) classes = static_cast<long long>(s.facts.labelNames.size());
    return maxClasses > 0 ? std::min(classes, maxClasses) : classes;
}

// The flags the study-level experiments share: --seeds (default `defaultSeeds`), --epsilon,
// --threads, --proxy-epochs, --proxy-examples, --device.
template <typename Options>
Status readCommonArgs(const CommonArgs& args, long long defaultSeeds, Options& options) {
    std::string error;
    auto seeds = parseCount(args.seeds, "--seeds", defaultSeeds, error);
    if (!seeds) return Error{error};
    options.seeds = *seeds;
    options.epsilon = parseOptionalEpsilon(args.epsilon, error);
    if (!error.empty()) return Error{error};
    options.threads = args.threads;
    options.proxy.epochs = std::max(1, args.proxyEpochs);
    options.proxy.maxExamples = args.proxyExamples;
    auto device = commandDevice(args.device);
    if (!device) return device.error();
    options.proxy.device = *device;
    return std::nullopt;
}

// The flags as engine options; errors name the flag.
Result<experiment_runs::KScalingStageOptions> kScalingOptions(const KScalingArgs& args) {
    experiment_runs::KScalingStageOptions options;
    options.ks.clear();
    for (const auto& item : splitList(args.ks)) {
        auto v = parseInteger(item, "--ks");
        if (!v) return v.error();
        options.ks.push_back(*v);
    }
    if (auto e = readCommonArgs(args, 5, options)) return *e;
    options.gapTolerance = args.gapTolerance;
    options.maxClasses = args.maxClasses;
    if (auto err = experiment_runs::checkKScalingStageOptions(options)) return Error{cliMessage(*err)};
    return options;
}

void registerKScaling(CLI::App& parent, CommandContext& ctx) {
    // The arguments live as long as the command (CLI11 writes into them when it parses).
    auto held = std::make_shared<KScalingArgs>();
    KScalingArgs& args = *held;
    auto* cmd = parent.add_subcommand("k-scaling",
                                      "Excess error of DP-MixMin vs the number of sources k (class-subset sources)");
    cmd->add_option("project", args.project, "a .dpmix project, or a spec JSON")->required();
    cmd->add_option("--ks", args.ks, "values of k, comma-separated (default 2,4,...,512)");
    cmd->add_option("--gap-tolerance", args.gapTolerance,
                    "Frank-Wolfe gap of the non-private reference lambda* (default 1e-6)");
    cmd->add_option("--classes", args.maxClasses, "run the first N one-vs-rest class tasks (default 0 = all)");
    cmd->add_option("--seeds", args.seeds, "DP seeds per (class, k) (default 5)");
    cmd->add_option("--epsilon", args.epsilon, "epsilon of the DP runs (default: the spec's first)");
    cmd->add_option("--threads", args.threads, "threads for the runs (default: all cores)");
    addDeviceOption(*cmd, args.device);
    cmd->add_option("--proxy-epochs", args.proxyEpochs,
                    "epochs of proxy training if no stored proxy matches (default 3, as dpmix run)");
    cmd->add_option("--proxy-examples", args.proxyExamples,
                    "train the proxy on at most this many public images (0 = all)");
    cmd->add_flag("--json", args.json, "print the results as one JSON object");
    addExecutorOptions(*cmd, args.cluster, "every class on this machine");
    cmd->callback([&ctx, held, cmd] {
        const KScalingArgs& args = *held;
        const std::string what = "k-scaling";
        if (auto misplaced = misplacedSlurmFlag(*cmd, args.cluster)) {
            ctx.exitCode = badInput(what, *misplaced);
            return;
        }
        auto parsed = kScalingOptions(args);
        if (!parsed) {
            ctx.exitCode = badInput(what, parsed.error().message);
            return;
        }
        const experiment_runs::KScalingStageOptions options = *parsed;
        if (args.cluster.executor == "slurm") {
            ctx.exitCode = submitExperiment(
                what, args.project, args.cluster, args.json,
                [&](const project::ProjectFile& p) {
                    return executor::kScalingWorkUnits(kScalingClassCount(p, options.maxClasses));
                },
                executor::cluster::JobKind::KScaling, "the k-scaling",
                [&](project::ProjectFile& p, const auto& progress, const auto& cancel, const auto& log) {
                    return executor::submitKScalingToSlurm(p, options, args.cluster.slurm, progress, cancel, log);
                });
            return;
        }
        ctx.exitCode =
            runExperiment(what, args.project,
                          [&](project::ProjectFile& project, const ProgressCallback& progress,
                              const CancellationToken& cancel, const pipeline::LogSink& log) -> Status {
                              auto r = experiment_runs::runKScalingExperiment(project, options, progress, cancel, log);
                              if (!r) return r.error();
                              printKScalingReport(*r, project.path().string(), options.seeds, args.json);
                              return std::nullopt;
                          });
    });
}

// The sweep's values, seeds and ε from the command line, checked.
Result<experiment_runs::SweepStageOptions> sweepOptions(const CommonArgs& args, const std::string& values, bool rho,
                                                        const std::string& flag) {
    experiment_runs::SweepStageOptions options;
    for (const auto& item : splitList(values)) {
        if (!rho && (item == "inf" || item == "+inf")) {
            options.values.push_back(std::numeric_limits<double>::infinity());
            continue;
        }
        auto v = parseReal(item, flag);
        if (!v) return v.error();
        options.values.push_back(*v);
    }
    if (auto e = readCommonArgs(args, 3, options)) return *e;
    const auto check = rho ? experiment_runs::checkRhoSweepStageOptions(options)
                           : experiment_runs::checkEpsilonSweepStageOptions(options);
    if (check) return Error{cliMessage(*check)};
    return options;
}

// Runs the sweep and prints its table (or JSON).
Status runSweep(project::ProjectFile& project, const experiment_runs::SweepStageOptions& options, bool rho, bool json,
                const ProgressCallback& progress, const CancellationToken& cancel, const pipeline::LogSink& log) {
    ordered_json tasks = ordered_json::array();
    std::ostringstream table;
    auto addRow = [&](ordered_json& rows, const std::string& key, double value, long long n, const MeanStd& cos,
                      const MeanStd& l1, long long runId) {
        ordered_json row{{key, std::isinf(value) ? ordered_json("inf") : ordered_json(value)},
                         {"split_a", n},
                         {"cos_mean", cos.mean},
                         {"cos_std", cos.std},
                         {"l1_mean", l1.mean},
                         {"l1_std", l1.std},
                         {"run_id", runId}};
        rows.push_back(row);
        char line[160];
        std::snprintf(line, sizeof line, "  %-6s %7lld   cos %.4f ± %.4f   L1 %.4f ± %.4f\n", valueText(value).c_str(),
                      n, cos.mean, cos.std, l1.mean, l1.std);
        table << line;
    };
    if (rho) {
        auto r = experiment_runs::runRhoSweepExperiment(project, options, progress, cancel, log);
        if (!r) return r.error();
        for (std::size_t t = 0; t < r->tasks.size(); ++t) {
            const auto& res = r->perTask[t];
            table << "task '" << r->tasks[t] << "' (uniform cos " << res.uniformCosine << ")\n     rho  split A\n";
            ordered_json rows = ordered_json::array();
            for (std::size_t i = 0; i < res.rows.size(); ++i)
                addRow(rows, "rho", res.rows[i].rho, res.rows[i].examples, res.rows[i].cosine, res.rows[i].l1,
                       r->runIds[t][i]);
            tasks.push_back({{"task", r->tasks[t]}, {"uniform_cos", res.uniformCosine}, {"rows", rows}});
        }
        if (json)
            std::cout << ordered_json{{"project", project.path().string()},
                                      {"epsilon", r->epsilon},
                                      {"seeds", options.seeds},
                                      {"tasks", tasks}}
                             .dump(2)
                      << '\n';
        else
            std::cout << "rho sweep at epsilon " << r->epsilon << ", " << options.seeds
                      << " seeds (reference: lambda* of the full train set)\n"
                      << table.str();
    } else {
        auto r = experiment_runs::runEpsilonSweepExperiment(project, options, progress, cancel, log);
        if (!r) return r.error();
        for (std::size_t t = 0; t < r->tasks.size(); ++t) {
            const auto& res = r->perTask[t];
            table << "task '" << r->tasks[t] << "' (uniform cos " << res.uniformCosine << ", L1 " << res.uniformL1
                  << ")\n     eps  split A\n";
            ordered_json rows = ordered_json::array();
            for (std::size_t i = 0; i < res.rows.size(); ++i)
                addRow(rows, "epsilon", res.rows[i].epsilon, r->splitA, res.rows[i].cosine, res.rows[i].l1,
                       r->runIds[t][i]);
            tasks.push_back({{"task", r->tasks[t]},
                             {"uniform_cos", res.uniformCosine},
                             {"uniform_l1", res.uniformL1},
                             {"rows", rows}});
        }
        if (json)
            std::cout << ordered_json{{"project", project.path().string()},
                                      {"split_a", r->splitA},
                                      {"seeds", options.seeds},
                                      {"tasks", tasks}}
                             .dump(2)
                      << '\n';
        else
            std::cout << "epsilon sweep on split A (" << r->splitA << "), " << options.seeds << " seeds\n"
                      << table.str();
    }
    return std::nullopt;
}

void registerSweep(CLI::App& parent, CommandContext& ctx, bool rho) {
    // The arguments live as long as the command (CLI11 writes into them when it parses).
    auto args = std::make_shared<CommonArgs>();
    auto cluster = std::make_shared<ExecutorArgs>();
    auto values = std::make_shared<std::string>(rho ? "0.05,0.1,0.2,0.3" : "0.2,0.5,1,2,5,inf");
    const std::string what = rho ? "rho-sweep" : "epsilon-sweep";
    const std::string flag = rho ? "--rhos" : "--epsilons";
    auto* cmd = parent.add_subcommand(what, rho ? "cos / L1 of lambda_DP to the full-train lambda* for each rho"
                                                : "cos / L1 of lambda_DP to lambda* on split A for each epsilon");
    cmd->add_option("project", args->project, "a .dpmix project, or a spec JSON")->required();
    cmd->add_option(flag, *values,
                    rho ? "fractions, comma-separated (default 0.05,0.1,0.2,0.3)"
                        : "epsilons, comma-separated; inf = the non-private solution (default 0.2,0.5,1,2,5,inf)");
    cmd->add_option("--seeds", args->seeds, "DP seeds per value (default 3)");
    if (rho) cmd->add_option("--epsilon", args->epsilon, "epsilon of the DP runs (default: the spec's first)");
    cmd->add_option("--threads", args->threads, "threads for the runs (default: all cores)");
    addDeviceOption(*cmd, args->device);
    cmd->add_option("--proxy-epochs", args->proxyEpochs,
                    "epochs of proxy training if no stored proxy matches (default 3, as dpmix run)");
    cmd->add_option("--proxy-examples", args->proxyExamples,
                    "train the proxy on at most this many public images (0 = all)");
    cmd->add_flag("--json", args->json, "print the results as one JSON object");
    addExecutorOptions(*cmd, *cluster, "every point on this machine");
    cmd->callback([&ctx, cmd, args, cluster, values, rho, what, flag] {
        if (auto misplaced = misplacedSlurmFlag(*cmd, *cluster)) {
            ctx.exitCode = badInput(what, *misplaced);
            return;
        }
        auto options = sweepOptions(*args, *values, rho, flag);
        if (!options) {
            ctx.exitCode = badInput(what, options.error().message);
            return;
        }
        if (cluster->executor == "slurm") {
            const auto kind = rho ? executor::SweepKind::Rho : executor::SweepKind::Epsilon;
            ctx.exitCode = submitExperiment(
                what, args->project, *cluster, args->json,
                [&](const project::ProjectFile&) { return executor::sweepWorkUnits(options->values); },
                executor::cluster::JobKind::Sweep, "the sweep's runs",
                [&](project::ProjectFile& p, const auto& progress, const auto& cancel, const auto& log) {
                    return executor::submitSweepToSlurm(p, kind, *options, cluster->slurm, progress, cancel, log);
                });
            return;
        }
        ctx.exitCode = runExperiment(what, args->project,
                                     [&](project::ProjectFile& project, const ProgressCallback& progress,
                                         const CancellationToken& cancel, const pipeline::LogSink& log) {
                                         return runSweep(project, *options, rho, args->json, progress, cancel, log);
                                     });
    });
}

struct AdamixArgs {
    std::string project;
    std::string shots = "1,5,10";
    std::string privatePerClass = "50,500,all";
    std::string epsilons = "1,3,8";
    std::string seeds = "3";
    std::string methods;
    std::string shotsSource, extractorSource;
    std::string extractorEpochs = "3", extractorExamples = "0";
    bool mirror = false;
    int threads = 0;
    std::string device = "auto";
    bool json = false;
    ExecutorArgs cluster;
};

// The flags as engine options; errors name the flag.
Result<experiment_runs::AdamixExperimentOptions> adamixOptions(const AdamixArgs& args) {
    experiment_runs::AdamixExperimentOptions o;
    auto integers = [](const std::string& text, const std::string& flag, bool allowAll,
                       std::vector<long long>& out) -> Status {
        out.clear();
        for (const auto& item : splitList(text)) {
            if (allowAll && item == "all") {
                out.push_back(experiments::kAllPrivate);
                continue;
            }
            auto v = parseInteger(item, flag);
            if (!v) return v.error();
            if (*v < 1)
                return Error{flag + " = " + item + " is out of range: expected an integer >= 1" +
                             (allowAll ? " or all" : "")};
            out.push_back(*v);
        }
        if (out.empty()) return Error{flag + ": give at least one value"};
        return std::nullopt;
    };
    if (auto e = integers(args.shots, "--shots", false, o.grid.shots)) return *e;
    if (auto e = integers(args.privatePerClass, "--private-per-class", true, o.grid.privatePerClass)) return *e;
    o.grid.epsilons.clear();
    for (const auto& item : splitList(args.epsilons)) {
        auto v = parseReal(item, "--epsilons");
        if (!v) return v.error();
        if (!(*v > 0.0)) return Error{"--epsilons: epsilon = " + item + " is out of range: expected a number > 0"};
        o.grid.epsilons.push_back(*v);
    }
    auto seeds = parseInteger(args.seeds, "--seeds");
    if (!seeds) return seeds.error();
    o.grid.seeds = *seeds;
    if (!args.methods.empty()) {
        o.grid.methods.clear();
        for (const auto& item : splitList(args.methods)) {
            auto m = experiments::parseAdamixMethod(item);
            if (!m) return Error{cliMessage(m.error())};
            if (std::find(o.grid.methods.begin(), o.grid.methods.end(), *m) == o.grid.methods.end())
                o.grid.methods.push_back(*m);
        }
    }
    auto epochs = parseInteger(args.extractorEpochs, "--extractor-epochs");
    if (!epochs) return epochs.error();
    o.extractorEpochs = static_cast<int>(std::clamp<long long>(*epochs, -1, 1000000));
    auto examples = parseInteger(args.extractorExamples, "--extractor-examples");
    if (!examples) return examples.error();
    o.extractorExamples = *examples;
    o.mirror = args.mirror;
    o.shotsSource = args.shotsSource;
    o.extractorSource = args.extractorSource;
    o.grid.threads = args.threads;
    auto device = commandDevice(args.device);
    if (!device) return device.error();
    o.device = *device;
    if (auto err = experiment_runs::checkAdamixExperimentOptions(o)) return Error{cliMessage(*err)};
    return o;
}

void registerAdamix(CLI::App& parent, CommandContext& ctx) {
    // The arguments live as long as the command (CLI11 writes into them when it parses).
    auto held = std::make_shared<AdamixArgs>();
    AdamixArgs& args = *held;
    auto* cmd = parent.add_subcommand(
        "adamix", "AdaMix-R vs DP-GD, public-only and the non-private paragon on frozen features (docs/ADAMIX.md)");
    cmd->add_option("project", args.project, "a .dpmix project, or a spec JSON")->required();
    cmd->add_option("--shots", args.shots, "public shots per class, comma-separated (default 1,5,10)");
    cmd->add_option("--private-per-class", args.privatePerClass,
                    "private examples per class, comma-separated; all = every one left (default 50,500,all)");
    cmd->add_option("--epsilons", args.epsilons, "epsilons of the DP methods, comma-separated (default 1,3,8)");
    cmd->add_option("--seeds", args.seeds, "draw seeds (default 3)");
    cmd->add_option(
        "--methods", args.methods,
        "methods, comma-separated: M0 paragon, M1 public-only, M2 dp-gd, M3 dp-gd-warm-start, M4 adamix-r, "
        "M4a adamix-r-no-projection, M4b adamix-r-fixed-clip, M4c adamix-r-no-public-gradient (default all)");
    cmd->add_flag("--mirror", args.mirror,
                  "swap the roles: the private task is the public source with other classes (e.g. MNIST digits), the "
                  "extractor is trained on a public source with the sensitive source's classes");
    cmd->add_option("--shots-source", args.shotsSource,
                    "draw the shots from this registered public source (same classes as the private task) instead of "
                    "the private pool");
    cmd->add_option("--extractor-source", args.extractorSource,
                    "train the extractor on this registered public source (default: the first whose classes differ "
                    "from the private task's)");
    cmd->add_option("--extractor-epochs", args.extractorEpochs, "epochs of extractor training (default 3)");
    cmd->add_option("--extractor-examples", args.extractorExamples,
                    "train the extractor on at most this many images (0 = all)");
    cmd->add_option("--threads", args.threads, "threads for the grid (default: all cores)");
    addDeviceOption(*cmd, args.device);
    cmd->add_flag("--json", args.json, "print the results as one JSON object");
    addExecutorOptions(*cmd, args.cluster, "the whole grid on this machine");
    cmd->callback([&ctx, held, cmd] {
        const AdamixArgs& args = *held;
        const std::string what = "adamix";
        if (auto misplaced = misplacedSlurmFlag(*cmd, args.cluster)) {
            ctx.exitCode = badInput(what, *misplaced);
            return;
        }
        auto options = adamixOptions(args);
        if (!options) {
            ctx.exitCode = badInput(what, options.error().message);
            return;
        }
        if (args.cluster.executor == "slurm") {
            // One array task per seed × private-per-class value; the extractor and the features
            // are prepared here, once.
            ctx.exitCode = submitExperiment(
                what, args.project, args.cluster, args.json,
                [&](const project::ProjectFile&) { return executor::adamixWorkUnits(options->grid); },
                executor::cluster::JobKind::Adamix, "the AdaMix-R experiment",
                [&](project::ProjectFile& p, const auto& progress, const auto& cancel, const auto& log) {
                    return executor::submitAdamixToSlurm(p, *options, args.cluster.slurm, progress, cancel, log);
                });
            return;
        }
        ctx.exitCode =
            runExperiment(what, args.project,
                          [&](project::ProjectFile& project, const ProgressCallback& progress,
                              const CancellationToken& cancel, const pipeline::LogSink& log) -> Status {
                              auto r = experiment_runs::runAdamixExperiment(project, *options, progress, cancel, log);
                              if (!r) return r.error();
                              printAdamixReport(*r, project.path().string(), args.json);
                              return std::nullopt;
                          });
    });
}

}  // namespace

void registerExperimentCommand(CLI::App& app, CommandContext& ctx) {
    auto* cmd = app.add_subcommand("experiment",
                                   "Study-level experiments: k-scaling, rho-sweep, epsilon-sweep, adamix, regime-map");
    cmd->require_subcommand(1);
    registerKScaling(*cmd, ctx);
    registerSweep(*cmd, ctx, true);
    registerSweep(*cmd, ctx, false);
    registerAdamix(*cmd, ctx);
    registerRegimeMap(*cmd, ctx);
}

}  // namespace dpmix::cli
