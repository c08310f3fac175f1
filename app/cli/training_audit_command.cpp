#include "app/cli/training_audit_command.h"

#include "app/cli/audit_json.h"
#include "app/cli/cli_support.h"
#include "app/cli/device_option.h"
#include "app/cli/number_parsing.h"
#include "app/cli/project_commands.h"
#include "engine/audit/parallel_runs.h"
#include "engine/audit_runs/training_audit_stage.h"
#include "engine/privacy/parameters.h"
#include "engine/runtime/runtime_info.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <iostream>

namespace dpmix::cli {
namespace {

using training_audit::AuditedMechanism;

int badInput(const std::string& message) {
    std::cerr << "dpmix audit: " << message << '\n';
    return 2;
}

Result<audit_runs::TrainingAuditStageOptions> stageOptions(const TrainingAuditCliArgs& a) {
    audit_runs::TrainingAuditStageOptions o;
    o.task = a.task;
    if (!training_audit::parseAuditedMechanism(a.mechanism, o.mechanism))
        return Error{"--mechanism = '" + a.mechanism +
                     "' is not a mechanism: expected mixture, dirichlet, dp-sgd or sgd"};
    if (!training_audit::parseTrainingCanaryKind(a.canary, o.canary))
        return Error{"--canary = '" + a.canary +
                     "' is not a canary of a training audit: expected flipped-label, "
                     "large-norm or gradient-aligned"};
    struct IntegerFlag {
        const std::string& text;
        const char* flag;
        long long& out;
    };
    long long runs = 1000, seed = 0, examples = 0, steps = 0, batch = 0;
    const std::string automatic = "0";  // --examples and --batch unset: chosen on the study
    for (const IntegerFlag f : {IntegerFlag{a.runs.empty() ? std::string("1000") : a.runs, "--runs", runs},
                                IntegerFlag{a.seed, "--seed", seed},
                                IntegerFlag{a.examples.empty() ? automatic : a.examples, "--examples", examples},
                                IntegerFlag{a.steps, "--steps", steps},
                                IntegerFlag{a.batch.empty() ? automatic : a.batch, "--batch", batch}}) {
        auto v = parseInteger(f.text, f.flag);
        if (!v) return v.error();
        f.out = *v;
    }
    if (seed < 0) return Error{"--seed = " + a.seed + " is out of range: expected an integer >= 0"};
    if (!a.batch.empty() && (batch < 1 || batch > 1'000'000))
        return Error{"--batch = " + a.batch + " is out of range: expected 1 to examples"};
    if (!a.examples.empty() && examples < 2)
        return Error{"--examples = " + a.examples + " is out of range: expected 2 to 100000 images"};
    o.runs = runs;
    o.seed = static_cast<std::uint64_t>(seed);
    o.examples = examples;
    o.steps = steps;
    o.batch = static_cast<int>(batch);
    if (!a.epsilon.empty()) {
        if (o.mechanism == AuditedMechanism::Sgd)
            return Error{"--epsilon: non-private SGD claims no epsilon (it is the control that must find leakage)"};
        auto e = parseReal(a.epsilon, "--epsilon");
        if (!e) return e.error();
        o.epsilon = *e;
    }
    if (!a.lr.empty()) {
        auto lr = parseReal(a.lr, "--lr");
        if (!lr) return lr.error();
        o.learningRate = *lr;
    }
    auto norm = parseReal(a.normMultiple, "--norm-multiple");
    if (!norm) return norm.error();
    o.normMultiple = *norm;
    if (!a.accountant.empty()) {
        privacy::Accountant accountant;
        privacy::parseAccountant(a.accountant, accountant);  // CLI11 admitted only rdp and prv
        o.accountant = accountant;
    }
    if (a.threads < 0) return Error{"--threads = " + std::to_string(a.threads) + " is out of range: expected >= 1"};
    o.threads = a.threads;
    auto device = commandDevice(a.device);
    if (!device) return device.error();
    o.device = *device;
    if (auto e = audit_runs::checkTrainingAuditValues(o)) return Error{cliMessage(*e)};
    return o;
}

std::string claimed(const training_audit::TrainingAuditResult& r) {
    return std::isfinite(r.claimedEpsilon) ? privacy::formatNumber(r.claimedEpsilon)
                                           : std::string("none (non-private)");
}

/// The verdict the stored audits now give on this mechanism's claim (this audit included).
std::string verdictLine(const project::ProjectFile& project, const training_audit::TrainingAuditResult& r) {
    if (!std::isfinite(r.claimedEpsilon))
        return r.epsilonLB > 0.0 ? "leakage found: the canary can detect membership"
                                 : "no leakage found: the canary is too weak to "
                                   "detect membership even without privacy";
    auto audits = audit_runs::storedMechanismAudits(project);
    if (!audits) return "verdict unavailable: " + audits.error().message;
    const auto v = audit::claimVerdict(training_audit::toString(r.mechanism), r.claimedEpsilon, r.delta, *audits);
    return audit::describe(v, r.claimedEpsilon);
}

void printJson(const project::ProjectFile& project, const audit_runs::TrainingAuditStageReport& report) {
    const auto& r = report.result;
    nlohmann::ordered_json out{
        {"project", project.path().string()},
        {"run_id", report.runId},
        {"task", report.task},
        {"audit", report.name},
        {"mechanism", training_audit::toString(r.mechanism)},
        {"canary", training_audit::toString(r.canary)},
        {"canary_description", report.canaryDescription},
        {"claimed_epsilon",
         std::isfinite(r.claimedEpsilon) ? nlohmann::ordered_json(r.claimedEpsilon) : nlohmann::ordered_json("none")},
        {"delta", r.delta}};
    putAttackOutcome(out, r);
    out.update(nlohmann::ordered_json{{"examples", r.examples},
                                      {"steps", r.steps},
                                      {"q", r.q},
                                      {r.mechanism == AuditedMechanism::Dirichlet ? "r" : "sigma", r.noise},
                                      {"lr", r.learningRate},
                                      {"seed", r.seed},
                                      {"score_in_mean", r.scoreMeanIn},
                                      {"score_in_std", r.scoreStdIn},
                                      {"score_out_mean", r.scoreMeanOut},
                                      {"score_out_std", r.scoreStdOut},
                                      {"verdict", verdictLine(project, r)}});
    std::cout << out.dump(2) << '\n';
}

void printText(const project::ProjectFile& project, const audit_runs::TrainingAuditStageReport& report) {
    const auto& r = report.result;
    std::cout << "audit " << report.name << " of task '" << report.task << "' (run " << report.runId << " in "
              << project.path().string() << ")\n"
              << "  mechanism " << training_audit::toString(r.mechanism) << ", claimed epsilon " << claimed(r)
              << ", delta " << r.delta << ", " << (r.mechanism == AuditedMechanism::Dirichlet ? "r " : "sigma ")
              << r.noise << ", q " << r.q << ", T " << r.steps << ", lr " << r.learningRate << "\n"
              << "  canary " << report.canaryDescription << "\n"
              << "  trainings " << r.runsPerWorld << " per world on " << r.examples << " images (" << r.evalOut << " + "
              << r.evalIn << " evaluate)\n"
              << "  threshold " << r.threshold << " (" << audit::toString(r.direction) << ")\n"
              << "  FPR " << r.fpr << " (" << r.falsePositives << "), FNR " << r.fnr << " (" << r.falseNegatives
              << ")\n"
              << "  canary loss in " << r.scoreMeanIn << " +- " << r.scoreStdIn << ", out " << r.scoreMeanOut << " +- "
              << r.scoreStdOut << "\n"
              << "  epsilon_LB " << r.epsilonLB << "  (" << r.confidence * 100 << "% Clopper-Pearson)\n"
              << "  verdict: " << verdictLine(project, r) << "\n";
}

}  // namespace

int executeTrainingAudit(const TrainingAuditCliArgs& args) {
    auto options = stageOptions(args);
    if (!options) return badInput(options.error().message);
    auto opened = openProjectForRuns(args.project);
    if (!opened) return badInput(opened.error().message);
    project::ProjectFile project = std::move(opened).value();
    if (auto err = audit_runs::checkTrainingAuditStageOptions(project, *options)) return badInput(cliMessage(*err));
    // The trainings run one per thread: torch's own intra-op threads would oversubscribe the cores.
    if (audit::resolveThreads(options->threads) > 1) runtime::setThreads(1);

    audit_runs::TrainingAuditStageReport report;
    const int code = runInterruptible(
        "dpmix audit", "the audit run is marked cancelled in " + project.path().string(), CancellationToken{},
        stderrProgress(), report, [&](const auto& progress, const auto& cancel, const auto& log) {
            return audit_runs::runTrainingAuditStage(project, *options, progress, cancel, log);
        });
    if (code != 0) return code;
    if (args.json)
        printJson(project, report);
    else
        printText(project, report);
    return 0;
}

}  // namespace dpmix::cli
