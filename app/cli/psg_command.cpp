// `dpmix psg SPEC_OR_PROJECT …`: Private Set Generation on a study's sensitive images, its
// evaluation and references, stored as runs (engine/experiment_runs/psg_stage.h, docs/PSG.md);
// `dpmix psg export PROJECT --run ID --format idx|png-csv -o DIR`: the stored set as a data source.
#include "app/cli/cli_support.h"
#include "app/cli/command.h"
#include "app/cli/device_option.h"
#include "app/cli/number_parsing.h"
#include "app/cli/project_commands.h"
#include "engine/experiment_runs/psg_stage.h"
#include "engine/privacy/parameters.h"
#include "engine/project/project_file.h"
#include "engine/psg_set/set_export.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <memory>

namespace dpmix::cli {
namespace {

struct PsgArgs {
    std::string project;
    std::string spc, epsilon, iterations, accountant, seed = "0", evaluations, evaluationEpochs, dpSgdSteps;
    std::string device = "auto";
    bool reproducible = false, noReferences = false, json = false;
};

struct PsgExportArgs {
    std::string project, run, format = "idx", output, name;
};

int badInput(const std::string& command, const std::string& message) {
    std::cerr << command << ": " << message << '\n';
    return 2;
}

Result<experiment_runs::PsgStageOptions> stageOptions(const PsgArgs& a) {
    experiment_runs::PsgStageOptions o;
    auto integer = [](const std::string& text, const char* flag) -> Result<std::optional<long long>> {
        if (text.empty()) return std::optional<long long>{};
        auto v = parseInteger(text, flag);
        if (!v) return v.error();
        return std::optional<long long>{*v};
    };
    auto spc = integer(a.spc, "--spc");
    auto iterations = integer(a.iterations, "--iterations");
    auto seed = integer(a.seed, "--seed");
    auto evaluations = integer(a.evaluations, "--evaluations");
    auto epochs = integer(a.evaluationEpochs, "--evaluation-epochs");
    auto dpSgdSteps = integer(a.dpSgdSteps, "--dp-sgd-steps");
    for (const auto* r : {&spc, &iterations, &seed, &evaluations, &epochs, &dpSgdSteps})
        if (!*r) return r->error();
    if (**seed < 0) return Error{"--seed = " + a.seed + " is out of range: expected an integer >= 0"};
    o.seed = static_cast<std::uint64_t>(**seed);
    auto device = commandDevice(a.device);
    if (!device) return device.error();
    o.device = *device;
    if (*spc) {
        if (**spc < 0 || **spc > 1000) return Error{"--spc = " + a.spc + " is not supported: expected 1, 10, 20 or 50"};
        o.imagesPerClass = static_cast<int>(**spc);
    }
    if (*iterations) o.iterations = **iterations;
    if (*evaluations) {
        if (**evaluations < 1 || **evaluations > 100)
            return Error{"--evaluations = " + a.evaluations + " is out of range: expected 1 to 100"};
        o.evaluations = static_cast<int>(**evaluations);
    }
    if (*epochs) {
        if (**epochs < 1 || **epochs > 100'000)
            return Error{"--evaluation-epochs = " + a.evaluationEpochs + " is out of range: expected 1 to 1e5"};
        o.evaluationEpochs = static_cast<int>(**epochs);
    }
    if (*dpSgdSteps) o.dpSgdSteps = **dpSgdSteps;
    if (!a.epsilon.empty()) {
        auto e = parseReal(a.epsilon, "--epsilon");
        if (!e) return e.error();
        o.epsilon = *e;
    }
    if (!a.accountant.empty()) {
        privacy::Accountant accountant;
        privacy::parseAccountant(a.accountant, accountant);  // CLI11 admitted only rdp and prv
        o.accountant = accountant;
    }
    if (a.reproducible) o.reproducible = true;
    o.references = !a.noReferences;
    if (auto e = experiment_runs::checkPsgValues(o)) return Error{cliMessage(*e)};
    return o;
}

void printJson(const project::ProjectFile& project, const experiment_runs::PsgStageReport& r) {
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const auto& row : r.rows)
        rows.push_back(
            {{"set", row.label}, {"metric", row.key}, {"mean", row.mean}, {"std", row.std}, {"values", row.values}});
    nlohmann::ordered_json out{{"project", project.path().string()},
                               {"run_id", r.runId},
                               {"real_subset_run_id", r.realSubsetRunId},
                               {"dp_sgd_run_id", r.dpSgdRunId},
                               {"images_per_class", r.params.imagesPerClass},
                               {"classes", r.classNames},
                               {"iterations", r.params.iterations},
                               {"dp_gradient_steps", r.result.dpGradientSteps},
                               {"epsilon", r.result.entry.epsilon},
                               {"delta", r.params.delta},
                               {"sigma", r.result.entry.sigma},
                               {"q", r.result.entry.q},
                               {"accountant", privacy::toString(r.params.accountant)},
                               {"randomness", privacy::toString(r.params.randomness.mode)},
                               {"train_examples", r.trainExamples},
                               {"test_examples", r.testExamples},
                               {"accuracy", rows}};
    if (r.dpSgdRunId) out["dp_sgd_epsilon"] = r.dpSgdEpsilon;
    std::cout << out.dump(2) << '\n';
}

void printText(const project::ProjectFile& project, const experiment_runs::PsgStageReport& r) {
    const auto& e = r.result.entry;
    std::cout << "PSG run " << r.runId << " in " << project.path().string() << "\n"
              << "  S: " << r.params.imagesPerClass << " images per class x " << r.classNames.size() << " classes, "
              << r.params.iterations << " iterations = " << r.result.dpGradientSteps << " DP gradient steps\n"
              << "  privacy: epsilon " << privacy::formatNumber(e.epsilon) << ", delta " << r.params.delta << " ("
              << privacy::toString(r.params.accountant) << "), sigma " << e.sigma << ", q " << e.q << ", clip "
              << r.params.clipNorm << ", randomness " << privacy::toString(r.params.randomness.mode) << "\n"
              << "  data: " << r.trainExamples << " training images, evaluated on " << r.testExamples
              << " test images\n\n";
    std::printf("  %-36s %8s %8s %4s\n", "trained on", "accuracy", "std", "n");
    for (const auto& row : r.rows)
        std::printf("  %-36s %8.4f %8.4f %4zu\n", row.label.c_str(), row.mean, row.std, row.values.size());
    if (r.dpSgdRunId)
        std::cout << "\n  the DP-SGD reference (run " << r.dpSgdRunId << ") spends its own epsilon "
                  << privacy::formatNumber(r.dpSgdEpsilon) << " on the same training images\n";
}

int executePsg(const PsgArgs& args) {
    auto options = stageOptions(args);
    if (!options) return badInput("dpmix psg", options.error().message);
    auto opened = openProjectForRuns(args.project);
    if (!opened) return badInput("dpmix psg", opened.error().message);
    project::ProjectFile project = std::move(opened).value();
    if (auto p = experiment_runs::psgParamsFor(project.spec(), *options); !p)
        return badInput("dpmix psg", cliMessage(p.error()));
    experiment_runs::PsgStageReport report;
    const int code = runInterruptible(
        "dpmix psg",
        "the PSG run is marked cancelled in " + project.path().string() + " (its ledger kept, no set stored)",
        CancellationToken{}, stderrProgress(), report, [&](const auto& progress, const auto& cancel, const auto& log) {
            return experiment_runs::runPsgStage(project, *options, progress, cancel, log);
        });
    if (code != 0) return code;
    if (args.json)
        printJson(project, report);
    else
        printText(project, report);
    return 0;
}

int executePsgExport(const PsgExportArgs& a) {
    const std::string command = "dpmix psg export";
    psg::SetExportFormat format;
    if (!psg::parseSetExportFormat(a.format, format))
        return badInput(command, "--format = '" + a.format + "' is not a format: expected idx or png-csv");
    auto runId = parseInteger(a.run, "--run");
    if (!runId) return badInput(command, runId.error().message);
    auto opened = project::ProjectFile::open(a.project, project::OpenMode::ReadOnly);
    if (!opened) return badInput(command, opened.error().message);
    auto set = experiment_runs::loadStoredPrivateSet(*opened, *runId);
    if (!set) return badInput(command, cliMessage(set.error()));
    auto run = opened->run(*runId);
    std::vector<std::string> classes;
    try {
        classes = nlohmann::json::parse(run->configJson).at("classes").get<std::vector<std::string>>();
    } catch (const nlohmann::json::exception&) {
        return badInput(command, "run " + a.run + ": its configuration lacks the class names");
    }
    const std::string name = a.name.empty() ? "psg-run-" + a.run : a.name;
    auto exported = psg::exportPrivateSet(*set, classes, format, a.output, name);
    if (!exported) return badInput(command, exported.error().message);
    std::cout << "wrote " << exported->files.size() << " files of PSG run " << a.run << " to "
              << exported->folder.string() << "\n"
              << "register it as a public source of another study with this entry (also in source.json); the set is "
                 "differentially private, so training on it is post-processing of the epsilon its run already spent:\n"
              << exported->sourceJson << '\n';
    return 0;
}

}  // namespace

void registerPsgCommand(CLI::App& app, CommandContext& ctx) {
    auto args = std::make_shared<PsgArgs>();
    auto exportArgs = std::make_shared<PsgExportArgs>();
    auto* cmd =
        app.add_subcommand("psg",
                           "Private Set Generation: a small DP synthetic training set from a study's sensitive images, "
                           "evaluated against a random real subset and direct DP-SGD (docs/PSG.md)");
    cmd->add_option("project", args->project, "a .dpmix project, or a spec JSON (its project is created next to it)");
    cmd->add_option("--spc", args->spc, "images per class: 1, 10, 20 or 50 (default: the spec's psg section, else 10)");
    cmd->add_option("--epsilon", args->epsilon, "target epsilon (default: the spec's first)");
    cmd->add_option("--iterations", args->iterations,
                    "fresh networks to match on (default: the spec's; each costs outer x batch_loop DP steps)");
    cmd->add_option("--accountant", args->accountant, "rdp or prv (default: the spec's)")
        ->check(CLI::IsMember({"rdp", "prv"}));
    cmd->add_option("--seed", args->seed, "seed of S's start, the networks and the evaluations (default 0)");
    addDeviceOption(*cmd, args->device);
    cmd->add_option("--evaluations", args->evaluations, "networks trained per evaluated set (default: the spec's, 3)");
    cmd->add_option("--evaluation-epochs", args->evaluationEpochs, "epochs of each evaluation training (default 300)");
    cmd->add_option("--dp-sgd-steps", args->dpSgdSteps, "steps of the direct DP-SGD reference (0: none)");
    cmd->add_flag("--reproducible", args->reproducible,
                  "seeded sampling and noise: results can be re-derived, but the set is no release");
    cmd->add_flag("--no-references", args->noReferences, "skip the real-subset and DP-SGD reference runs");
    cmd->add_flag("--json", args->json, "print the result as JSON");

    auto* exp = cmd->add_subcommand("export", "Write a PSG run's private set as a data source (idx or PNG + CSV)");
    exp->add_option("project", exportArgs->project, "the .dpmix project")->required();
    exp->add_option("--run", exportArgs->run, "the PSG run id (dpmix inspect lists runs)")->required();
    exp->add_option("--format", exportArgs->format, "idx (grey images) or png-csv (default idx)");
    exp->add_option("-o,--output", exportArgs->output, "a new (or empty) folder to write into")->required();
    exp->add_option("--name", exportArgs->name, "the source name in source.json (default psg-run-ID)");
    exp->callback([&ctx, exportArgs] { ctx.exitCode = executePsgExport(*exportArgs); });
    cmd->callback([&ctx, args, cmd, exp] {
        if (exp->parsed()) return;  // `dpmix psg export …` ran its own callback
        if (args->project.empty()) {
            std::cerr
                << "dpmix psg: a spec or project is required (dpmix psg SPEC_OR_PROJECT, or dpmix psg export …)\n";
            ctx.exitCode = 2;
            return;
        }
        (void)cmd;
        ctx.exitCode = executePsg(*args);
    });
}

}  // namespace dpmix::cli
