#include "engine/audit_runs/one_run_audit_storage.h"

#include "engine/privacy/ledger.h"
#include "engine/privacy/parameters.h"

#include <nlohmann/json.hpp>

#include <cmath>

namespace dpmix::audit_runs {
namespace {

using training_audit::AuditedMechanism;

const char* const kScore =
    "the margin the training added to the canary, (2y - 1) * (logit after - logit at the initialisation), less "
    "the median of that gain over the canaries with the same label";

const char* const kWhiteBoxScore =
    "the largest noisy clipped sum a step released at the canary's coordinate, less the mean of those sums over the "
    "steps";

/// What was audited and how: the settings of the training.
nlohmann::json trainingDetails(const OneRunAuditStageReport& r) {
    nlohmann::json d;
    d["audit"] = "training";
    d["kind"] = "one-run";
    d["variant"] = r.whiteBox ? "white-box" : "black-box";
    d["mechanism"] = training_audit::toString(r.mechanism);
    if (std::isfinite(r.claimedEpsilon)) d["claimed_epsilon"] = r.claimedEpsilon;
    d["canary"] = oneRunCanaryName(r);
    d["neighbouring"] = r.whiteBox ? "add/remove one example whose clipped gradient is a Dirac canary C * e_j"
                                   : "add/remove one labelled image (x, y)";
    d["model"] = "the study's downstream model (small CNN), random initialisation of the run seed";
    d["task"] = r.task;
    d["split_b"] = r.splitB;
    d["training_size"] = r.trainingSize;
    d["steps"] = r.steps;
    d["batch"] = r.batch;
    d["q"] = r.q;
    d[r.mechanism == AuditedMechanism::Dirichlet ? "r" : "sigma"] = r.noise;
    if (r.mechanism != AuditedMechanism::Dirichlet) d["clip"] = r.clip;
    d["lr"] = r.learningRate;
    d["seed"] = r.seed;
    return d;
}

nlohmann::json auditDetails(const OneRunAuditStageReport& r) {
    nlohmann::json d = trainingDetails(r);
    d["canaries"] = r.canaries;
    d["included"] = r.included;
    d["guesses_in"] = r.guessesIn;
    d["guesses_out"] = r.guessesOut;
    d["guesses"] = r.guesses;
    d["correct"] = r.correct;
    d["comparisons"] = 1;  // k₊ = k₋ fixed before the training: no union bound
    d["epsilon_lb"] = r.epsilonLB;
    d["score"] = r.whiteBox ? kWhiteBoxScore : kScore;
    if (r.whiteBox) d["observed"] = "every step's noisy clipped sum at each canary's coordinate";
    d["test_auc"] = r.testAuc;
    d["train_seconds"] = r.trainSeconds;
    d["wall_seconds"] = r.wallSeconds;
    return d;
}

}  // namespace

std::string oneRunConfigJson(const OneRunAuditStageOptions& o, const OneRunAuditStageReport& r) {
    nlohmann::json j;
    j["stage"] = "audit";
    j["audit"] = "training";
    j["kind"] = "one-run";
    j["variant"] = o.whiteBox ? "white-box" : "black-box";
    j["name"] = r.name;
    j["mechanism"] = training_audit::toString(o.mechanism);
    j["canary"] = oneRunCanaryName(r);
    if (std::isfinite(r.claimedEpsilon)) j["claimed_epsilon"] = r.claimedEpsilon;
    j["canaries"] = o.canaries;
    j["guesses_each_way"] = r.guessesIn;
    j["steps"] = r.steps;
    j["seed"] = o.seed;
    j["confidence"] = o.confidence;
    j["randomness"] = privacy::toString(o.randomness);
    j["device"] = o.device;
    if (!o.whiteBox && o.canary == training_audit::TrainingCanaryKind::LargeNorm) j["norm_multiple"] = o.normMultiple;
    return j.dump();
}

privacy::AuditCounts oneRunConfusion(const privacy::OneRunGuesses& g, std::span<const std::uint8_t> included) {
    privacy::AuditCounts c;
    for (std::size_t i = 0; i < g.guess.size(); ++i) {
        if (g.guess[i] == privacy::MembershipGuess::Abstain) continue;
        const bool in = included[i] != 0;
        (in ? c.positives : c.negatives) += 1;
        if (g.guess[i] == privacy::MembershipGuess::In && !in) ++c.falsePositives;
        if (g.guess[i] == privacy::MembershipGuess::Out && in) ++c.falseNegatives;
    }
    return c;
}

Status storeOneRunAudit(project::ProjectFile& project, const OneRunAuditStageReport& r,
                        const privacy::AuditCounts& counts, const std::string& device) {
    privacy::Ledger ledger(project.spec().privacy.composition);
    ledger.record(privacy::nonPrivateEntry(
        "audit", "B",
        std::string(r.whiteBox ? "white-box " : "") + "one-run audit training of the " +
            std::string(training_audit::toString(r.mechanism)) + " fine-tuning on split B (" +
            std::to_string(r.splitB) + " images) plus " + std::to_string(r.included) + " " +
            (r.whiteBox ? "gradient " : "") + "canaries; results are empirical bounds, not releases"));
    if (auto s = project.recordLedger(r.runId, ledger); !s) return s.error();
    nlohmann::json details = auditDetails(r);
    details["device"] = device;
    project::AuditRecord record;
    record.runId = r.runId;
    record.name = r.name;
    record.counts = counts;
    record.delta = r.delta;
    record.confidence = r.confidence;
    record.epsilonLowerBound = r.epsilonLB;
    record.detailsJson = details.dump();
    if (auto s = project.addAudit(record); !s) return s.error();
    if (auto s = project.addMetrics({{r.runId, "epsilon-lower-bound", "", r.epsilonLB},
                                     {r.runId, "correct-guesses", "", static_cast<double>(r.correct)},
                                     {r.runId, "guesses", "", static_cast<double>(r.guesses)},
                                     {r.runId, "test-auc", "", r.testAuc},
                                     {r.runId, "wall-seconds", "", r.wallSeconds}});
        !s)
        return s.error();
    return std::nullopt;
}

}  // namespace dpmix::audit_runs
