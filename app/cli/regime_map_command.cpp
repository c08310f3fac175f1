// `dpmix experiment regime-map POOL.json… --sizes … --epsilons … --seeds …`: runs every
// (pool, n, ε, seed) of the grid as a stored study run (resuming: finished runs are skipped), then
// prints the map — per cell the methods' macro AUC and DP-MixMin's paired differences to Random
// Init and Uniform with 95% intervals — and with --write-map stores it for the workbench's advice.
// --report-only prints the map from what the projects hold; --executor slurm submits one Slurm
// array per (pool, n), one task per seed (each covering every ε), merged later by `dpmix jobs merge`.
#include "app/cli/regime_map_command.h"

#include "app/cli/cli_support.h"
#include "app/cli/device_option.h"
#include "app/cli/executor_options.h"
#include "app/cli/number_parsing.h"
#include "app/cli/source_weights_table.h"
#include "app/cli/terminal_safe.h"
#include "engine/core/joined_list.h"
#include "engine/executor/cluster_submission.h"
#include "engine/executor/run_units.h"
#include "engine/experiment_runs/regime_map_runs.h"
#include "engine/experiments/regime_advice.h"
#include "engine/experiments/source_weights.h"
#include "engine/project/project_file.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>

namespace dpmix::cli {
namespace {

struct RegimeMapArgs {
    std::vector<std::string> pools;
    std::string sizes = "500,2000,8000,0";
    std::string epsilons = "0.5,1,4";
    std::string seeds = "0,1,2";
    std::string methods, tasks;
    long long pretrainSteps = 0, finetuneSteps = 0;
    double rho = 0.0;
    std::string model;
    long long resnetWidth = 0;
    std::string out = "regime-map";
    std::string writeMap;
    std::string reference;
    int proxyEpochs = 3;
    long long proxyExamples = 0;
    std::string device = "auto";
    bool reportOnly = false;
    bool json = false;
    ExecutorArgs cluster;
};

int badMapInput(const std::string& message) {
    std::cerr << "dpmix experiment regime-map: " << oneLine(message) << '\n';
    return 2;
}

Result<experiments::RegimeGrid> gridOf(const RegimeMapArgs& args) {
    experiments::RegimeGrid grid;
    for (const auto& item : splitList(args.sizes)) {
        if (item == "all") {
            grid.sizes.push_back(0);
            continue;
        }
        auto n = parseInteger(item, "--sizes");
        if (!n) return n.error();
        grid.sizes.push_back(*n);
    }
    for (const auto& item : splitList(args.epsilons)) {
        auto e = parseReal(item, "--epsilons");
        if (!e) return e.error();
        grid.epsilons.push_back(*e);
    }
    for (const auto& item : splitList(args.seeds)) {
        auto s = parseInteger(item, "--seeds");
        if (!s) return s.error();
        if (*s < 0) return Error{"--seeds: " + item + " is negative; expected seeds >= 0"};
        grid.seeds.push_back(static_cast<std::uint64_t>(*s));
    }
    grid.methods = splitList(args.methods);
    grid.tasks = splitList(args.tasks);
    if (args.pretrainSteps > 0) grid.pretrainSteps = args.pretrainSteps;
    if (args.finetuneSteps > 0) grid.finetuneSteps = args.finetuneSteps;
    if (args.rho > 0.0) grid.rho = args.rho;
    if (!args.model.empty()) grid.model = args.model;
    if (args.resnetWidth != 0) grid.resnetWidth = args.resnetWidth;
    if (auto bad = experiments::checkRegimeGrid(grid)) return *bad;
    return grid;
}

void printCell(const experiments::RegimeCell& c) {
    char line[256];
    std::snprintf(line, sizeof line, "  n %-7lld eps %-5g", c.n, c.epsilon);
    std::cout << line;
    for (const auto& [method, s] : c.methods) {
        std::snprintf(line, sizeof line, "  %s %.4f±%.4f", method.c_str(), s.mean, s.std);
        std::cout << line;
    }
    std::cout << "\n      DP-MixMin − Random Init " << experiments::differenceText(c.vsRandomInit)
              << "   DP-MixMin − Uniform " << experiments::differenceText(c.vsUniform) << "   (" << c.vsRandomInit.seeds
              << " seeds, " << c.tasks << " task" << (c.tasks == 1 ? "" : "s") << ")"
              << (c.paysOff() ? "   PAYS: ahead of both beyond seed noise" : "") << '\n';
}

void printMap(const experiments::RegimeMap& map) {
    std::cout << "regime map (" << oneLine(map.reference) << "): macro test AUC, mean ± std over seeds; paired "
              << "differences with 95% Student-t intervals over seeds\n";
    std::string pool;
    for (const auto& c : map.cells) {
        if (c.pool != pool) std::cout << "pool " << oneLine(c.pool) << " (" << traitsOf(c.poolKind).label << ")\n";
        pool = c.pool;
        printCell(c);
    }
}

// Per study with several public sources: λ_DP's and λ*'s weight per source.
int printSourceWeights(const std::vector<experiment_runs::RegimeStudy>& studies) {
    for (const auto& study : studies) {
        if (study.kind != experiments::PoolKind::Heterogeneous) continue;
        auto project = project::ProjectFile::open(study.project, project::OpenMode::ReadOnly);
        if (!project) return badMapInput(project.error().message);
        auto rows = experiments::storedSourceWeights(*project);
        if (!rows) return badMapInput(rows.error().message);
        printSourceWeightRows(study.name, *rows);
    }
    return 0;
}

int writeMapFile(const experiments::RegimeMap& map, const std::string& file) {
    std::ofstream out(file, std::ios::binary);
    out << experiments::regimeMapToJson(map);
    if (!out) {
        std::cerr << "dpmix experiment regime-map: --write-map " << oneLine(file) << ": cannot write it\n";
        return 1;
    }
    std::cerr << "dpmix experiment regime-map: wrote the map to " << oneLine(file) << '\n';
    return 0;
}

// One Slurm array per (pool, n), one task per seed (each covering every ε); --dry-run prints each
// job's script and submits nothing.
int submitToSlurm(const std::vector<experiment_runs::RegimeStudy>& studies, const experiments::RegimeGrid& grid,
                  const RegimeMapArgs& args, const pipeline::ProxyOptions& proxy, const std::string& device) {
    for (const auto& study : studies) {
        auto opened = project::ProjectFile::open(study.project);
        if (!opened) return badMapInput(opened.error().message);
        project::ProjectFile project = std::move(opened).value();
        const auto options = experiment_runs::regimeRunOptions(grid, grid.seeds, proxy, device);  // a task per seed
        if (args.cluster.dryRun) {
            auto report =
                executor::cluster::submitJob(project, executor::cluster::JobKind::Run, "{}",
                                             executor::studyRunWorkUnits(grid.seeds), args.cluster.slurm, true);
            if (!report) return badMapInput(report.error().message);
            printDryRun(*report);
            continue;
        }
        executor::cluster::SubmitReport report;
        const int code = runInterruptible(
            "dpmix experiment regime-map", "nothing more was submitted", CancellationToken{}, stderrProgress(), report,
            [&](const auto& progress, const auto& cancel, const auto& log) {
                return executor::submitStudyRunToSlurm(project, options, args.cluster.slurm, progress, cancel, log);
            });
        if (code != 0) return code;
        printSubmitted(project, report, args.json, "the regime map's runs");
    }
    return 0;
}

int runRegimeMapCommand(const CLI::App& cmd, const RegimeMapArgs& args) {
    auto grid = gridOf(args);
    if (!grid) return badMapInput(grid.error().message);
    if (auto misplaced = misplacedSlurmFlag(cmd, args.cluster)) return badMapInput(*misplaced);
    auto device = commandDevice(args.device);
    if (!device) return badMapInput(device.error().message);
    const bool slurm = args.cluster.executor == "slurm";
    if (slurm) {
        if (auto bad = executor::checkSlurmOptions(args.cluster.slurm)) return badMapInput(cliMessage(*bad));
        // A host that cannot submit changes nothing (no study written, no proxy trained).
        if (auto e = executor::cluster::checkCanSubmit(); e && !args.cluster.dryRun) {
            std::cerr << "dpmix experiment regime-map: " << cliMessage(*e) << '\n';
            return 1;
        }
    }
    std::vector<std::filesystem::path> pools(args.pools.begin(), args.pools.end());
    std::vector<experiment_runs::RegimeStudy> studies;
    const auto log = [](const std::string& line) { std::cerr << "dpmix experiment regime-map: " << line << '\n'; };
    auto prepared = experiment_runs::prepareRegimeStudies(pools, *grid, args.out, log);
    if (!prepared) return badMapInput(prepared.error().message);
    studies = std::move(*prepared);
    pipeline::ProxyOptions proxy;
    proxy.epochs = args.proxyEpochs;
    proxy.maxExamples = args.proxyExamples;
    if (slurm) return submitToSlurm(studies, *grid, args, proxy, *device);
    if (!args.reportOnly) {
        experiment_runs::RegimeRunCounts counts;
        const int code = runInterruptible(
            "dpmix experiment regime-map", "the finished runs are stored; run the same command again to resume",
            CancellationToken{}, stderrProgress(), counts, [&](const auto& progress, const auto& cancel, const auto&) {
                return experiment_runs::runRegimeMap(studies, *grid, proxy, *device, progress, cancel, log);
            });
        if (code != 0) return code;
        log(std::to_string(counts.ran) + " run(s) made, " + std::to_string(counts.skipped) + " already stored");
    }
    std::string reference = args.reference;
    if (reference.empty())
        reference = "the pools " + core::joinedList(args.pools) + (args.model.empty() ? "" : ", model " + args.model) +
                    (args.resnetWidth != 0 ? ", width " + std::to_string(args.resnetWidth) : "");
    auto map = experiment_runs::collectRegimeMap(studies, reference);
    if (!map) return badMapInput(map.error().message);
    if (args.json)
        std::cout << experiments::regimeMapToJson(*map);
    else {
        printMap(*map);
        if (const int code = printSourceWeights(studies); code != 0) return code;
    }
    return args.writeMap.empty() ? 0 : writeMapFile(*map, args.writeMap);
}

}  // namespace

void registerRegimeMap(CLI::App& experiment, CommandContext& ctx) {
    auto args = std::make_shared<RegimeMapArgs>();
    auto* cmd = experiment.add_subcommand(
        "regime-map",
        "Where private data selection pays: every method over sensitive set sizes n and epsilons, "
        "with paired differences over seeds (docs/RESULTS.md, \"The regime map\")");
    cmd->add_option("pools", args->pools,
                    "one spec JSON per public pool (its sensitive data and tasks are the study's)")
        ->required();
    cmd->add_option("--sizes", args->sizes,
                    "sensitive set sizes n, comma-separated; all = the whole source "
                    "(default 500,2000,8000,all)");
    cmd->add_option("--epsilons", args->epsilons, "target epsilons, comma-separated (default 0.5,1,4)");
    cmd->add_option("--seeds", args->seeds, "run seeds, comma-separated (default 0,1,2)");
    cmd->add_option("--methods", args->methods, "methods, comma-separated (default: all five)");
    cmd->add_option("--tasks", args->tasks, "sensitive tasks, comma-separated (default: every task)");
    cmd->add_option("--pretrain-steps", args->pretrainSteps, "override each pool spec's pretraining steps");
    cmd->add_option("--finetune-steps", args->finetuneSteps, "override each pool spec's fine-tuning steps");
    cmd->add_option("--rho", args->rho, "override each pool spec's rho");
    cmd->add_option("--model", args->model,
                    "the network pretrained and fine-tuned: small-cnn or resnet18 (default: each pool spec's "
                    "stages.finetune.model); another model than the pool's runs in studies of its own (NAME-MODEL)");
    cmd->add_option("--resnet-width", args->resnetWidth,
                    "ResNet-18's first stage width, a multiple of 8 (default: the pool spec's, else 64); "
                    "another width than the pool's runs in studies of its own (NAME-resnet18-wW)");
    cmd->add_option("--out", args->out, "folder for the studies' specs and projects (default regime-map)");
    cmd->add_option("--write-map", args->writeMap, "also store the map as JSON (the workbench's advice reads it)");
    cmd->add_option("--reference", args->reference, "what the map was measured on, in words (stored in the map)");
    cmd->add_option("--proxy-epochs", args->proxyEpochs, "epochs of proxy training on the public data (default 3)");
    cmd->add_option("--proxy-examples", args->proxyExamples, "train the proxy on at most this many public images");
    addDeviceOption(*cmd, args->device);
    cmd->add_flag("--report-only", args->reportOnly, "run nothing: print the map from what the projects hold");
    cmd->add_flag("--json", args->json, "print the map as the stored JSON");
    addExecutorOptions(*cmd, args->cluster, "every run on this machine");
    cmd->callback([cmd, args, &ctx] { ctx.exitCode = runRegimeMapCommand(*cmd, *args); });
}

}  // namespace dpmix::cli
