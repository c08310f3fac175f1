#include "app/cli/one_run_audit_command.h"

#include "app/cli/cli_support.h"
#include "app/cli/device_option.h"
#include "app/cli/number_parsing.h"
#include "app/cli/project_commands.h"
#include "engine/audit/claim_verdict.h"
#include "engine/audit_runs/one_run_audit_stage.h"
#include "engine/audit_runs/training_audit_stage.h"
#include "engine/privacy/parameters.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <iostream>

namespace dpmix::cli {
namespace one_run {  // named: the command line builds in unity batches beside the other audits
namespace {

using training_audit::AuditedMechanism;

int badInput(const std::string& message) {
    std::cerr << "dpmix audit: " << message << '\n';
    return 2;
}

Result<long long> integerFlag(const std::string& text, const char* flag) { return parseInteger(text, flag); }

Result<audit_runs::OneRunAuditStageOptions> stageOptions(const OneRunAuditCliArgs& a) {
    audit_runs::OneRunAuditStageOptions o;
    o.task = a.task;
    o.whiteBox = a.whiteBox;
    if (a.mechanism == "mixture" || !training_audit::parseAuditedMechanism(a.mechanism, o.mechanism))
        return Error{"--mechanism = '" + a.mechanism +
                     "': a one-run audit audits a fine-tuning mechanism: expected dp-sgd, dirichlet or sgd"};
    if (!a.canary.empty() && !training_audit::parseTrainingCanaryKind(a.canary, o.canary))
        return Error{"--canary = '" + a.canary +
                     "' is not a canary of a one-run audit: expected large-norm, flipped-label or gradient-aligned"};
    auto canaries = integerFlag(a.canaries, "--canaries");
    if (!canaries) return canaries.error();
    o.canaries = *canaries;
    if (!a.guesses.empty()) {
        auto k = integerFlag(a.guesses, "--guesses");
        if (!k) return k.error();
        if (*k < 1) return Error{"--guesses = " + a.guesses + " is out of range: expected 1 to canaries / 2"};
        o.guesses = *k;
    }
    auto seed = integerFlag(a.seed, "--seed");
    if (!seed) return seed.error();
    if (*seed < 0) return Error{"--seed = " + a.seed + " is out of range: expected an integer >= 0"};
    o.seed = static_cast<std::uint64_t>(*seed);
    if (!a.steps.empty()) {
        auto steps = integerFlag(a.steps, "--steps");
        if (!steps) return steps.error();
        o.steps = *steps;
    }
    if (!a.epsilon.empty()) {
        auto e = parseReal(a.epsilon, "--epsilon");
        if (!e) return e.error();
        o.epsilon = *e;
    }
    auto norm = parseReal(a.normMultiple, "--norm-multiple");
    if (!norm) return norm.error();
    o.normMultiple = *norm;
    if (!a.accountant.empty()) {
        privacy::Accountant accountant;
        privacy::parseAccountant(a.accountant, accountant);  // CLI11 admitted only rdp and prv
        o.accountant = accountant;
    }
    auto device = commandDevice(a.device);
    if (!device) return device.error();
    o.device = *device;
    if (auto e = audit_runs::checkOneRunAuditValues(o)) return Error{cliMessage(*e)};
    return o;
}

/// The verdict the stored audits now give on this mechanism's claim (this audit included).
std::string verdictLine(const project::ProjectFile& project, const audit_runs::OneRunAuditStageReport& r) {
    if (!std::isfinite(r.claimedEpsilon))
        return r.epsilonLB > 0.0 ? "leakage found: the guesses detect membership"
                                 : "no leakage found: the canaries are too weak to detect membership even "
                                   "without noise (more canaries, guesses or steps)";
    auto audits = audit_runs::storedMechanismAudits(project);
    if (!audits) return "verdict unavailable: " + audits.error().message;
    const auto v = audit::claimVerdict(training_audit::toString(r.mechanism), r.claimedEpsilon, r.delta, *audits);
    return audit::describe(v, r.claimedEpsilon);
}

std::string noiseName(const audit_runs::OneRunAuditStageReport& r) {
    return r.mechanism == AuditedMechanism::Dirichlet ? "r" : "sigma";
}

void printJson(const project::ProjectFile& project, const audit_runs::OneRunAuditStageReport& r) {
    nlohmann::ordered_json out{
        {"project", project.path().string()},
        {"run_id", r.runId},
        {"task", r.task},
        {"audit", r.name},
        {"kind", "one-run"},
        {"variant", r.whiteBox ? "white-box" : "black-box"},
        {"mechanism", training_audit::toString(r.mechanism)},
        {"canary", audit_runs::oneRunCanaryName(r)},
        {"claimed_epsilon",
         std::isfinite(r.claimedEpsilon) ? nlohmann::ordered_json(r.claimedEpsilon) : nlohmann::ordered_json("none")},
        {"delta", r.delta},
        {"confidence", r.confidence},
        {"canaries", r.canaries},
        {"included", r.included},
        {"guesses_in", r.guessesIn},
        {"guesses_out", r.guessesOut},
        {"guesses", r.guesses},
        {"correct", r.correct},
        {"epsilon_lb", r.epsilonLB},
        {"split_b", r.splitB},
        {"training_size", r.trainingSize},
        {"steps", r.steps},
        {"batch", r.batch},
        {"q", r.q},
        {noiseName(r), r.noise},
        {"clip", r.clip},
        {"lr", r.learningRate},
        {"seed", r.seed},
        {"test_auc", r.testAuc},
        {"train_seconds", r.trainSeconds},
        {"wall_seconds", r.wallSeconds},
        {"verdict", verdictLine(project, r)}};
    std::cout << out.dump(2) << '\n';
}

void printText(const project::ProjectFile& project, const audit_runs::OneRunAuditStageReport& r) {
    const std::string claimed =
        std::isfinite(r.claimedEpsilon) ? privacy::formatNumber(r.claimedEpsilon) : std::string("none (sigma 0)");
    std::cout << (r.whiteBox ? "white-box " : "") << "one-run audit " << r.name << " of task '" << r.task << "' (run "
              << r.runId << " in " << project.path().string() << ")\n"
              << "  mechanism " << training_audit::toString(r.mechanism) << ", claimed epsilon " << claimed
              << ", delta " << r.delta << ", " << noiseName(r) << " " << r.noise << ", clip " << r.clip << ", q " << r.q
              << ", T " << r.steps << ", batch " << r.batch << ", lr " << r.learningRate << "\n"
              << "  canaries " << r.canaries << " " << audit_runs::oneRunCanaryName(r) << " (" << r.included
              << " included); split B " << r.splitB << " images, trained on " << r.trainingSize << "\n"
              << "  guesses " << r.guessesIn << " in + " << r.guessesOut << " out, correct " << r.correct << " of "
              << r.guesses << "\n"
              << "  epsilon_LB " << r.epsilonLB << "  (" << r.confidence * 100 << "%, one-run bound)\n"
              << "  test AUC " << r.testAuc << "; fine-tuning " << r.trainSeconds << " s, audit " << r.wallSeconds
              << " s\n"
              << "  verdict: " << verdictLine(project, r) << "\n";
}

}  // namespace
}  // namespace one_run

int executeOneRunAudit(const OneRunAuditCliArgs& args) {
    auto options = one_run::stageOptions(args);
    if (!options) return one_run::badInput(options.error().message);
    auto opened = openProjectForRuns(args.project);
    if (!opened) return one_run::badInput(opened.error().message);
    project::ProjectFile project = std::move(opened).value();
    if (auto err = audit_runs::checkOneRunAuditStageOptions(project, *options))
        return one_run::badInput(cliMessage(*err));

    audit_runs::OneRunAuditStageReport report;
    const int code = runInterruptible(
        "dpmix audit", "the audit run is marked cancelled in " + project.path().string(), CancellationToken{},
        stderrProgress(), report, [&](const auto& progress, const auto& cancel, const auto& log) {
            return audit_runs::runOneRunAuditStage(project, *options, progress, cancel, log);
        });
    if (code != 0) return code;
    if (args.json)
        one_run::printJson(project, report);
    else
        one_run::printText(project, report);
    return 0;
}

}  // namespace dpmix::cli
