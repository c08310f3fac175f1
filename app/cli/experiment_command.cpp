// `dpmix experiment k-scaling|rho-sweep|epsilon-sweep SPEC_OR_PROJECT ...`: the study-level
// experiments of docs/ALGORITHMS.md A.9–A.10 (engine/pipeline/experiments.h). Each prints its table (or --json) and
// stores its runs in the project. Progress goes to stderr.
#include "app/cli/cli_support.h"
#include "app/cli/command.h"
#include "app/cli/device_option.h"
#include "app/cli/number_parsing.h"
#include "app/cli/project_commands.h"
#include "engine/pipeline/experiments.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
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

std::string valueText(double v) {
    if (std::isinf(v)) return "inf";
    std::ostringstream s;
    s << v;
    return s.str();
}

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

struct KScalingArgs : CommonArgs {
    std::string ks = "2,4,8,16,32,64,128,256,512";
    double gapTolerance = 1e-6;
    long long maxClasses = 0;
};

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
    cmd->callback([&ctx, held] {
        const KScalingArgs& args = *held;
        const std::string what = "k-scaling";
        pipeline::KScalingStageOptions options;
        options.ks.clear();
        for (const auto& item : splitList(args.ks)) {
            auto v = parseInteger(item, "--ks");
            if (!v) {
                ctx.exitCode = badInput(what, v.error().message);
                return;
            }
            options.ks.push_back(*v);
        }
        std::string error;
        auto seeds = parseCount(args.seeds, "--seeds", 5, error);
        if (!seeds) {
            ctx.exitCode = badInput(what, error);
            return;
        }
        options.seeds = *seeds;
        options.epsilon = parseOptionalEpsilon(args.epsilon, error);
        if (!error.empty()) {
            ctx.exitCode = badInput(what, error);
            return;
        }
        options.threads = args.threads;
        options.proxy.epochs = std::max(1, args.proxyEpochs);
        options.proxy.maxExamples = args.proxyExamples;
        auto device = commandDevice(args.device);
        if (!device) {
            ctx.exitCode = badInput(what, device.error().message);
            return;
        }
        options.proxy.device = *device;
        options.gapTolerance = args.gapTolerance;
        options.maxClasses = args.maxClasses;
        if (auto err = pipeline::checkKScalingStageOptions(options)) {
            ctx.exitCode = badInput(what, cliMessage(*err));
            return;
        }
        ctx.exitCode =
            runExperiment(what, args.project,
                          [&](project::ProjectFile& project, const ProgressCallback& progress,
                              const CancellationToken& cancel, const pipeline::LogSink& log) -> Status {
                              auto r = pipeline::runKScalingExperiment(project, options, progress, cancel, log);
                              if (!r) return r.error();
                              if (args.json) {
                                  ordered_json rows = ordered_json::array();
                                  for (std::size_t i = 0; i < r->ks.size(); ++i) {
                                      ordered_json perClass = ordered_json::object();
                                      for (std::size_t c = 0; c < r->classes.size(); ++c)
                                          perClass[r->classes[c]] = r->perClass[c].rows[i].meanExcess.mean;
                                      rows.push_back({{"k", r->ks[i]},
                                                      {"mean_excess", r->meanExcess[i]},
                                                      {"std_over_classes", r->stdOverClasses[i]},
                                                      {"max_gap", r->maxGap[i]},
                                                      {"per_class", perClass}});
                                  }
                                  ordered_json out{{"project", project.path().string()},
                                                   {"run_id", r->runId},
                                                   {"epsilon", r->epsilon},
                                                   {"split_a", r->splitA},
                                                   {"seeds", options.seeds},
                                                   {"classes", r->classes},
                                                   {"rows", rows}};
                                  if (r->fitted)
                                      out["fit"] = {{"min_k", 32},
                                                    {"slope", r->fit.slope},
                                                    {"intercept", r->fit.intercept},
                                                    {"r_squared", r->fit.rSquared},
                                                    {"points", r->fit.points}};
                                  else
                                      out["fit_error"] = r->fitError;
                                  std::cout << out.dump(2) << '\n';
                              } else {
                                  std::cout << "k-scaling (run " << r->runId << "): epsilon " << r->epsilon
                                            << ", split A " << r->splitA << ", " << options.seeds << " seeds x "
                                            << r->classes.size() << " one-vs-rest class tasks\n"
                                            << "       k   mean excess   std over classes   max FW gap of lambda*\n";
                                  for (std::size_t i = 0; i < r->ks.size(); ++i) {
                                      char line[128];
                                      std::snprintf(line, sizeof line, "%8lld   %11.3e   %11.3e        %9.1e\n",
                                                    r->ks[i], r->meanExcess[i], r->stdOverClasses[i], r->maxGap[i]);
                                      std::cout << line;
                                  }
                                  if (r->fitted)
                                      std::cout << "log-log slope for k >= 32: " << r->fit.slope << " (R^2 "
                                                << r->fit.rSquared << ", " << r->fit.points << " points)\n";
                                  else
                                      std::cout << "no slope: " << r->fitError << '\n';
                              }
                              return std::nullopt;
                          });
    });
}

// The sweep's values, seeds and ε from the command line, checked.
Result<pipeline::SweepStageOptions> sweepOptions(const CommonArgs& args, const std::string& values, bool rho,
                                                 const std::string& flag) {
    pipeline::SweepStageOptions options;
    for (const auto& item : splitList(values)) {
        if (!rho && (item == "inf" || item == "+inf")) {
            options.values.push_back(std::numeric_limits<double>::infinity());
            continue;
        }
        auto v = parseReal(item, flag);
        if (!v) return v.error();
        options.values.push_back(*v);
    }
    std::string error;
    auto seeds = parseCount(args.seeds, "--seeds", 3, error);
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
    const auto check =
        rho ? pipeline::checkRhoSweepStageOptions(options) : pipeline::checkEpsilonSweepStageOptions(options);
    if (check) return Error{cliMessage(*check)};
    return options;
}

// Runs the sweep and prints its table (or JSON).
Status runSweep(project::ProjectFile& project, const pipeline::SweepStageOptions& options, bool rho, bool json,
                const ProgressCallback& progress, const CancellationToken& cancel, const pipeline::LogSink& log) {
    ordered_json tasks = ordered_json::array();
    std::ostringstream table;
    auto addRow = [&](ordered_json& rows, const std::string& key, double value, long long n, const audit::MeanStd& cos,
                      const audit::MeanStd& l1, long long runId) {
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
        auto r = pipeline::runRhoSweepExperiment(project, options, progress, cancel, log);
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
        auto r = pipeline::runEpsilonSweepExperiment(project, options, progress, cancel, log);
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
    cmd->callback([&ctx, args, values, rho, what, flag] {
        auto options = sweepOptions(*args, *values, rho, flag);
        if (!options) {
            ctx.exitCode = badInput(what, options.error().message);
            return;
        }
        ctx.exitCode = runExperiment(what, args->project,
                                     [&](project::ProjectFile& project, const ProgressCallback& progress,
                                         const CancellationToken& cancel, const pipeline::LogSink& log) {
                                         return runSweep(project, *options, rho, args->json, progress, cancel, log);
                                     });
    });
}

}  // namespace

void registerExperimentCommand(CLI::App& app, CommandContext& ctx) {
    auto* cmd = app.add_subcommand("experiment", "Study-level experiments: k-scaling, rho-sweep, epsilon-sweep");
    cmd->require_subcommand(1);
    registerKScaling(*cmd, ctx);
    registerSweep(*cmd, ctx, true);
    registerSweep(*cmd, ctx, false);
}

}  // namespace dpmix::cli
