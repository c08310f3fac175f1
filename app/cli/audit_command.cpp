// `dpmix audit SPEC_OR_PROJECT --task T --canary natural|max-clip [--runs R] [--no-noise]
//  [--epsilon E] [--seed S] [--threads N] [--json]`: the canary audit of the mixture step on
// the study's split A (docs/AUDIT.md); with --mechanism dirichlet|dp-sgd|sgd the audit of a
// fine-tuning mechanism instead (training_audit_command.h), and with --one-run the one-run audit of
// the study's own fine-tuning (one_run_audit_command.h). The mixture audit prints ε_LB, FPR, FNR and the threshold
// and stores the audit in the project as a run of method "audit". Progress goes to stderr.
#include "app/cli/audit_json.h"
#include "app/cli/cli_support.h"
#include "app/cli/command.h"
#include "app/cli/device_option.h"
#include "app/cli/executor_options.h"
#include "app/cli/number_parsing.h"
#include "app/cli/one_run_audit_command.h"
#include "app/cli/project_commands.h"
#include "app/cli/training_audit_command.h"
#include "engine/audit_runs/audit_stage.h"
#include "engine/executor/audit_units.h"
#include "engine/executor/cluster_jobs.h"
#include "engine/executor/cluster_submission.h"
#include "engine/project/spec_json.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <iostream>
#include <memory>
#include <span>

namespace dpmix::cli {
namespace {

struct AuditArgs {
    std::string project;
    std::string task;
    std::string canary;
    std::string mechanism = "mixture";
    std::string runs;  // empty: 2000 (mixture), 1000 (training)
    std::string canaryExamples = "1";
    bool noNoise = false;
    std::string epsilon;
    std::string accountant;  // empty: the spec's
    std::string seed = "0";
    int threads = 0;
    std::string device = "auto";
    std::string maxClipSign = "lower";
    std::string maxClipTarget = "top";
    int proxyEpochs = 3;
    long long proxyExamples = 0;
    bool json = false;
    // The executor (docs/CLUSTER.md): local (default) or slurm, and the Slurm job's settings.
    ExecutorArgs cluster;
    long long units = 8;
    // Training audits (--mechanism dirichlet|dp-sgd|sgd) only.
    std::string examples, steps = "50", batch, lr, normMultiple = "10";  // empty examples/batch: automatic
    // The one-run audit of the study's fine-tuning (--one-run) only.
    bool oneRun = false, whiteBox = false;
    std::string canaries = "1000", guesses;  // empty guesses: round(0.1 m) each way
};

int badInput(const std::string& message) {
    std::cerr << "dpmix audit: " << message << '\n';
    return 2;
}

// A spec given where a project is expected would create its project on open: check the task
// against the spec first, so that a wrong --task changes nothing on disk.
std::optional<std::string> taskMissingFromSpec(const std::string& path, const std::string& task) {
    if (path.size() < 5 || path.substr(path.size() - 5) != ".json") return std::nullopt;
    auto spec = project::loadProjectSpecFile(path);
    if (!spec || spec->sensitiveTasks.empty()) return std::nullopt;  // the opener reports a bad spec
    std::string names;
    for (const auto& t : spec->sensitiveTasks) {
        if (t.name == task) return std::nullopt;
        names += (names.empty() ? "'" : ", '") + t.name + "'";
    }
    return "--task: unknown task '" + task + "': expected one of " + names;
}

// The command line as the audit stage's options; every value check that needs no project, so a
// bad value fails before anything is opened or created.
Result<audit_runs::AuditStageOptions> auditOptions(const AuditArgs& args) {
    audit_runs::AuditStageOptions options;
    options.task = args.task;
    if (args.canary == "natural")
        options.canary = audit::CanaryKind::Natural;
    else if (args.canary == "max-clip")
        options.canary = audit::CanaryKind::MaxClip;
    else
        return Error{"--canary = '" + args.canary + "' is not a canary: expected natural or max-clip"};
    if (args.maxClipSign == "lower")
        options.maxClipSign = audit::MaxClipSign::LowerTopSource;
    else if (args.maxClipSign == "raise")
        options.maxClipSign = audit::MaxClipSign::RaiseTopSource;
    else
        return Error{"--max-clip-sign = '" + args.maxClipSign + "' is not a sign: expected lower or raise"};
    if (args.maxClipTarget == "top")
        options.maxClipTarget = audit::MaxClipTarget::TopSource;
    else if (args.maxClipTarget == "quietest")
        options.maxClipTarget = audit::MaxClipTarget::QuietestSource;
    else
        return Error{"--max-clip-target = '" + args.maxClipTarget + "' is not a target: expected top or quietest"};
    auto runs = parseInteger(args.runs.empty() ? std::string("2000") : args.runs, "--runs");
    if (!runs) return runs.error();
    options.runs = *runs;
    auto copies = parseInteger(args.canaryExamples, "--canary-examples");
    if (!copies) return copies.error();
    options.canaryExamples = *copies;
    if (!args.epsilon.empty()) {
        auto e = parseReal(args.epsilon, "--epsilon");
        if (!e) return e.error();
        options.epsilon = *e;
    }
    auto seed = parseInteger(args.seed, "--seed");
    if (!seed) return seed.error();
    if (*seed < 0) return Error{"--seed = " + args.seed + " is out of range: expected an integer >= 0"};
    options.seed = static_cast<std::uint64_t>(*seed);
    if (args.threads < 0)
        return Error{"--threads = " + std::to_string(args.threads) + " is out of range: expected >= 1"};
    options.threads = args.threads;
    options.noNoise = args.noNoise;
    if (!args.accountant.empty()) {
        privacy::Accountant accountant;
        privacy::parseAccountant(args.accountant, accountant);  // CLI11 admitted only rdp and prv
        options.accountant = accountant;
    }
    options.proxy.epochs = args.proxyEpochs;
    options.proxy.maxExamples = args.proxyExamples;
    auto device = commandDevice(args.device);
    if (!device) return device.error();
    options.proxy.device = *device;
    if (args.proxyEpochs < 1)
        return Error{"--proxy-epochs = " + std::to_string(args.proxyEpochs) + " is out of range: expected >= 1"};
    if (options.runs < 2)
        return Error{"--runs = " + args.runs + " is out of range: expected an integer >= 2 (runs per world)"};
    if (options.epsilon && !(*options.epsilon > 0.0))
        return Error{"--epsilon = " + args.epsilon + " is out of range: expected a finite number > 0"};
    return options;
}

void printAuditJson(const project::ProjectFile& project, const audit_runs::AuditStageReport& report,
                    const audit_runs::AuditStageOptions& options) {
    const auto& r = report.result;
    const bool inf = std::isinf(r.claimedEpsilon) || options.noNoise;
    nlohmann::ordered_json out{
        {"project", project.path().string()}, {"run_id", report.runId}, {"task", report.task}, {"audit", report.name}};
    putAttackOutcome(out, r);
    out.update(nlohmann::ordered_json{
        {"claimed_epsilon", inf ? nlohmann::ordered_json("inf") : nlohmann::ordered_json(r.claimedEpsilon)},
        {"sigma", r.sigma},
        {"delta", r.delta},
        {"split_a", report.splitA},
        {"privacy_unit", privacy::toString(r.unit)},
        {"canary_examples", r.canaryExamples},
        {"seed", r.seed},
        {"score_in_mean", report.scoreMeanIn},
        {"score_in_std", report.scoreStdIn},
        {"score_out_mean", report.scoreMeanOut},
        {"score_out_std", report.scoreStdOut}});
    if (options.canary == audit::CanaryKind::Natural) {
        out["canary_example"] = report.canaryExample;
        out["canary_label"] = report.canaryLabel;
    } else {
        out["top_source"] = r.topSource;
        out["max_clip_sign"] = audit::toString(r.maxClipSign);
        out["max_clip_target"] = audit::toString(r.maxClipTarget);
    }
    std::cout << out.dump(2) << '\n';
}

void printAuditText(const project::ProjectFile& project, const audit_runs::AuditStageReport& report,
                    const audit_runs::AuditStageOptions& options) {
    const auto& r = report.result;
    const bool inf = std::isinf(r.claimedEpsilon) || options.noNoise;
    std::cout << "audit " << report.name << " of task '" << report.task << "' (run " << report.runId << " in "
              << project.path().string() << ")\n"
              << "  claimed epsilon " << (inf ? std::string("inf (no noise)") : std::to_string(r.claimedEpsilon))
              << ", sigma " << r.sigma << ", delta " << r.delta << ", split A " << report.splitA << ", unit "
              << privacy::toString(r.unit)
              << (r.canaryExamples > 1 ? ", canary user of " + std::to_string(r.canaryExamples) + " images"
                                       : std::string())
              << "\n"
              << "  runs " << r.runsPerWorld << " per world (" << r.evalOut << " + " << r.evalIn << " evaluate)\n"
              << "  threshold " << r.threshold << " (" << audit::toString(r.direction) << ")\n"
              << "  FPR " << r.fpr << " (" << r.falsePositives << "), FNR " << r.fnr << " (" << r.falseNegatives
              << ")\n"
              << "  score in " << report.scoreMeanIn << " +- " << report.scoreStdIn << ", out " << report.scoreMeanOut
              << " +- " << report.scoreStdOut << "\n"
              << "  epsilon_LB " << r.epsilonLB << "  (" << r.confidence * 100 << "% Clopper-Pearson)\n";
}

// Flags that belong to one kind of audit only: given with the other, they are refused rather
// than ignored.
const char* const kMixtureOnlyFlags[] = {"--no-noise",        "--canary-examples", "--max-clip-sign",
                                         "--max-clip-target", "--proxy-epochs",    "--proxy-examples"};
const char* const kTrainingOnlyFlags[] = {"--examples", "--steps", "--batch", "--lr", "--norm-multiple"};
// The one-run audit takes the study's own batch, learning rate and data, and trains once.
const char* const kNotOneRunFlags[] = {"--no-noise",
                                       "--canary-examples",
                                       "--max-clip-sign",
                                       "--max-clip-target",
                                       "--proxy-epochs",
                                       "--proxy-examples",
                                       "--examples",
                                       "--batch",
                                       "--lr",
                                       "--runs",
                                       "--threads",
                                       "--executor",
                                       "--units"};
const char* const kOneRunOnlyFlags[] = {"--canaries", "--guesses", "--white-box"};
// A white-box audit's canaries are Dirac gradients of norm C: no canary image to choose or scale.
const char* const kNotWhiteBoxFlags[] = {"--canary", "--norm-multiple"};

std::optional<std::string> misplacedOneRunFlag(const CLI::App& cmd, const AuditArgs& args) {
    if (args.oneRun) {
        for (const char* flag : kNotOneRunFlags)
            if (cmd.count(flag) > 0)
                return std::string(flag) +
                       " does not belong to a one-run audit (--one-run), which trains once with "
                       "the study's own fine-tuning settings";
        if (args.whiteBox)
            for (const char* flag : kNotWhiteBoxFlags)
                if (cmd.count(flag) > 0)
                    return std::string(flag) +
                           " does not belong to a white-box audit (--white-box), whose canaries are Dirac "
                           "gradients of norm C";
        return std::nullopt;
    }
    for (const char* flag : kOneRunOnlyFlags)
        if (cmd.count(flag) > 0) return std::string(flag) + " belongs to a one-run audit (--one-run)";
    if (cmd.count("--canary") == 0) return std::string("--canary is required (unless --one-run)");
    return std::nullopt;
}

int executeOneRunAuditCommand(const CLI::App& cmd, const AuditArgs& a) {
    if (auto missing = taskMissingFromSpec(a.project, a.task)) return badInput(*missing);
    OneRunAuditCliArgs o;
    o.project = a.project;
    o.task = a.task;
    o.mechanism = a.mechanism;
    o.canary = a.canary;
    o.canaries = a.canaries;
    o.guesses = a.guesses;
    o.epsilon = a.epsilon;
    o.accountant = a.accountant;
    o.seed = a.seed;
    if (cmd.count("--steps") > 0) o.steps = a.steps;  // unset: the spec's fine-tuning steps
    o.normMultiple = a.normMultiple;
    o.device = a.device;
    o.json = a.json;
    o.whiteBox = a.whiteBox;
    return executeOneRunAudit(o);
}

std::optional<std::string> misplacedFlag(const CLI::App& cmd, const AuditArgs& args) {
    if (auto flag = misplacedOneRunFlag(cmd, args)) return flag;
    if (args.oneRun) return std::nullopt;
    const bool mixture = args.mechanism == "mixture";
    for (const char* flag :
         mixture ? std::span<const char* const>(kTrainingOnlyFlags) : std::span<const char* const>(kMixtureOnlyFlags))
        if (cmd.count(flag) > 0)
            return std::string(flag) +
                   (mixture
                        ? " belongs to a training audit (--mechanism dirichlet, dp-sgd or sgd)"
                        : " belongs to the mixture audit (--mechanism mixture), not to --mechanism " + args.mechanism);
    return std::nullopt;
}

int executeTrainingAuditCommand(const AuditArgs& a) {
    if (auto missing = taskMissingFromSpec(a.project, a.task)) return badInput(*missing);
    TrainingAuditCliArgs t;
    t.project = a.project;
    t.task = a.task;
    t.mechanism = a.mechanism;
    t.canary = a.canary;
    t.runs = a.runs;
    t.epsilon = a.epsilon;
    t.accountant = a.accountant;
    t.seed = a.seed;
    t.threads = a.threads;
    t.device = a.device;
    t.examples = a.examples;
    t.steps = a.steps;
    t.batch = a.batch;
    t.lr = a.lr;
    t.normMultiple = a.normMultiple;
    t.json = a.json;
    return executeTrainingAudit(t);
}

// --executor slurm: the audit's inputs frozen into a job directory next to the project and its
// blocks of runs submitted as one Slurm job array; `dpmix jobs merge` stores the audit later.
int submitAuditToSlurm(const AuditArgs& args, project::ProjectFile& project,
                       const audit_runs::AuditStageOptions& options) {
    if (args.cluster.dryRun) {
        // The script and the command only: no proxy, no job directory.
        auto units = executor::cluster::auditWorkUnits(options.runs, args.units, options.seed);
        if (!units) return badInput(cliMessage(units.error()));
        if (auto bad = executor::checkSlurmOptions(args.cluster.slurm)) return badInput(cliMessage(*bad));
        auto report = executor::cluster::submitJob(project, executor::cluster::JobKind::Audit, "{}", *units,
                                                   args.cluster.slurm, true);
        if (!report) return badInput(report.error().message);
        printDryRun(*report);
        return 0;
    }
    executor::cluster::SubmitReport report;
    const int code = runInterruptible("dpmix audit", "nothing was submitted", CancellationToken{}, stderrProgress(),
                                      report, [&](const auto& progress, const auto& cancel, const auto& log) {
                                          return executor::submitAuditToSlurm(
                                              project, options, args.units, args.cluster.slurm, progress, cancel, log);
                                      });
    if (code != 0) return code;
    printSubmitted(project, report, args.json, "the audit");
    return 0;
}

// `dpmix audit` once its arguments are parsed; returns the exit code.
int executeAudit(const AuditArgs& args) {
    auto options = auditOptions(args);
    if (!options) return badInput(options.error().message);
    if (auto missing = taskMissingFromSpec(args.project, args.task)) return badInput(*missing);
    auto opened = openProjectForRuns(args.project);
    if (!opened) return badInput(opened.error().message);
    project::ProjectFile project = std::move(opened).value();
    if (auto err = audit_runs::checkAuditStageOptions(project, *options)) return badInput(cliMessage(*err));

    if (args.cluster.executor == "slurm") return submitAuditToSlurm(args, project, *options);

    audit_runs::AuditStageReport report;
    const int code = runInterruptible("dpmix audit", "the audit run is marked cancelled in " + project.path().string(),
                                      CancellationToken{}, stderrProgress(), report,
                                      [&](const auto& progress, const auto& cancel, const auto& log) {
                                          return audit_runs::runAuditStage(project, *options, progress, cancel, log);
                                      });
    if (code != 0) return code;
    if (args.json)
        printAuditJson(project, report, *options);
    else
        printAuditText(project, report, *options);
    return 0;
}

// The one-run audit's own flags (--one-run, --canaries, --guesses, --white-box).
void addOneRunOptions(CLI::App& cmd, AuditArgs& args) {
    cmd.add_flag("--one-run", args.oneRun,
                 "one-run audit of the study's own fine-tuning (its model, steps, batch, clip, lr; sigma calibrated "
                 "as a run would): one training on split B with --canaries canaries, each in by a fair coin");
    cmd.add_option("--canaries", args.canaries, "one-run audit: canaries m (default 1000)");
    cmd.add_option("--guesses", args.guesses,
                   "one-run audit: guesses k each way, fixed in advance: the k highest scores 'in', the k lowest "
                   "'out' (default: round(0.1 m))");
    cmd.add_flag("--white-box", args.whiteBox,
                 "one-run audit of DP-SGD (dp-sgd or sgd) with Dirac canary gradients inserted as extra examples, "
                 "scored from every step's noisy sum (docs/AUDIT.md, 'The white-box one-run audit')");
}

}  // namespace

void registerAuditCommand(CLI::App& app, CommandContext& ctx) {
    // The arguments live as long as the command (CLI11 writes into them when it parses).
    auto args = std::make_shared<AuditArgs>();
    auto* cmd = app.add_subcommand("audit",
                                   "Canary audit of the mixture step or of a fine-tuning mechanism on a study: an "
                                   "empirical lower bound on epsilon");
    cmd->add_option("project", args->project, "a .dpmix project, or a spec JSON (its project is created next to it)")
        ->required();
    cmd->add_option("--task", args->task, "the sensitive task to audit")->required();
    cmd->add_option("--canary", args->canary,
                    "mixture audit: natural (a held-out example of split B) or max-clip (a gradient of norm C); "
                    "training audit: flipped-label, large-norm or gradient-aligned (docs/AUDIT.md); required unless "
                    "--one-run (default there: large-norm)");
    cmd->add_option("--canary-examples", args->canaryExamples,
                    "max-clip canary: images of the canary user (default 1); at user level the mechanism clips the "
                    "user once, at example level each image counts on its own");
    cmd->add_option("--runs", args->runs,
                    "runs per world (half choose the threshold, half evaluate it; default 2000, training audits 1000)");
    cmd->add_flag("--no-noise", args->noNoise, "audit the mechanism without noise (the control: epsilon = inf)");
    cmd->add_option("--epsilon", args->epsilon, "claimed epsilon of the audited mechanism (default: the spec's first)");
    cmd->add_option("--accountant", args->accountant,
                    "rdp or prv: the accountant that certifies the claimed epsilon and calibrates the mechanism's "
                    "noise (default: the spec's privacy.accountant)")
        ->check(CLI::IsMember({"rdp", "prv"}));
    cmd->add_option("--seed", args->seed, "rho split, natural canary and audit seed (default 0)");
    cmd->add_option("--max-clip-sign", args->maxClipSign,
                    "max-clip canary: lower (default) or raise the top source's weight");
    cmd->add_option("--max-clip-target", args->maxClipTarget,
                    "max-clip canary: top (default; the source with the largest lambda*, as the paper) or quietest "
                    "(the source whose clipped gradient varies least over split A: the stronger attack)");
    cmd->add_option("--threads", args->threads, "threads for the audit runs (default: all cores)");
    addDeviceOption(*cmd, args->device);
    cmd->add_option("--proxy-epochs", args->proxyEpochs,
                    "epochs of proxy training if no stored proxy matches (default 3, as dpmix run)");
    cmd->add_option("--proxy-examples", args->proxyExamples,
                    "train the proxy on at most this many public images (0 = all)");
    cmd->add_flag("--json", args->json, "print the result as one JSON object");
    addExecutorOptions(*cmd, args->cluster, "the runs on this machine's threads");
    cmd->add_option("--units", args->units,
                    "slurm: array tasks, each world's runs in units/2 blocks (even; default 8)");
    cmd->add_option("--mechanism", args->mechanism,
                    "mixture (default: the mixture step of DP-MixMin), or a fine-tuning mechanism: dirichlet, dp-sgd "
                    "(the control at the same epsilon) or sgd (the non-private control)")
        ->check(CLI::IsMember({"mixture", "dirichlet", "dp-sgd", "sgd"}));
    cmd->add_option("--examples", args->examples,
                    "training audit: images of split B the mechanism trains on (default: 1000, or split B if smaller)");
    cmd->add_option("--steps", args->steps,
                    "training audit: steps of each training (default 50); one-run audit: the fine-tuning's steps "
                    "(default: the spec's stages.finetune.steps)");
    cmd->add_option("--batch", args->batch,
                    "training audit: expected batch size, q = batch / examples (default: examples / 10)");
    cmd->add_option("--lr", args->lr, "training audit: learning rate (default 0.1 Dirichlet, 0.5 DP-SGD and SGD)");
    cmd->add_option("--norm-multiple", args->normMultiple,
                    "training audit, large-norm canary: its norm in mean image norms (default 10)");
    addOneRunOptions(*cmd, *args);
    cmd->callback([&ctx, args, cmd] {
        if (auto flag = misplacedFlag(*cmd, *args)) {
            ctx.exitCode = badInput(*flag);
            return;
        }
        if (auto flag = misplacedSlurmFlag(*cmd, args->cluster, {"--units"})) {
            ctx.exitCode = badInput(*flag);
            return;
        }
        if (args->oneRun) {
            ctx.exitCode = executeOneRunAuditCommand(*cmd, *args);
            return;
        }
        if (args->cluster.executor == "slurm" && args->mechanism != "mixture") {
            ctx.exitCode = badInput("--executor slurm runs the mixture audit; a training audit runs locally");
            return;
        }
        ctx.exitCode = args->mechanism == "mixture" ? executeAudit(*args) : executeTrainingAuditCommand(*args);
    });
}

}  // namespace dpmix::cli
