#include "engine/training_audit/training_audit.h"

#include "engine/audit/attack_judgement.h"
#include "engine/audit/parallel_runs.h"
#include "engine/core/mean_std.h"
#include "engine/core/seed_derivation.h"
#include "engine/privacy/parameters.h"
#include "engine/train/model.h"
#include "engine/training_audit/audit_trainer.h"

#include <cmath>
#include <limits>

namespace dpmix::training_audit {
namespace {

constexpr std::uint64_t kOutWorld = 0;
constexpr std::uint64_t kInWorld = 1;
constexpr std::uint64_t kInitialisation = 2;

Status checkOptions(const TrainingAuditOptions& o) {
    using privacy::formatNumber;
    if (o.runsPerWorld < 2)
        return Error{"runs = " + std::to_string(o.runsPerWorld) + " is out of range: expected at least 2 per world",
                     "runs"};
    if (!(o.selectFraction > 0.0 && o.selectFraction < 1.0))
        return Error{"select fraction = " + formatNumber(o.selectFraction) + " is out of range: expected (0, 1)",
                     "select-fraction"};
    if (!(o.confidence > 0.0 && o.confidence < 1.0))
        return Error{"confidence = " + formatNumber(o.confidence) + " is out of range: expected (0, 1)", "confidence"};
    if (o.steps < 1) return Error{"steps = " + std::to_string(o.steps) + " is out of range: expected >= 1", "steps"};
    if (o.expectedBatchSize < 1)
        return Error{"batch = " + std::to_string(o.expectedBatchSize) + " is out of range: expected >= 1", "batch"};
    if (o.mechanism != AuditedMechanism::Sgd && !(o.epsilon > 0.0 && std::isfinite(o.epsilon)))
        return Error{"epsilon = " + formatNumber(o.epsilon) + " is out of range: expected a finite value > 0",
                     "epsilon"};
    if (o.threads < 0)
        return Error{"threads = " + std::to_string(o.threads) + ": expected 0 (all cores) or more", "threads"};
    return std::nullopt;
}

Status checkData(const TrainingAuditData& d) {
    if (auto e = train::checkImages("audited images", d.images)) return e;
    if (static_cast<std::int64_t>(d.labels.size()) != d.images.count)
        return Error{"labels: " + std::to_string(d.labels.size()) + " labels for " + std::to_string(d.images.count) +
                     " images"};
    for (int y : d.labels)
        if (y != 0 && y != 1) return Error{"labels: " + std::to_string(y) + " is not a binary label (0 or 1)"};
    if (static_cast<std::int64_t>(d.canary.pixels.size()) != d.images.imageSize())
        return Error{"canary: " + std::to_string(d.canary.pixels.size()) + " pixels, the images have " +
                     std::to_string(d.images.imageSize())};
    for (float v : d.canary.pixels)
        if (!std::isfinite(v)) return Error{"canary: a pixel is not finite"};
    if (d.canary.label != 0 && d.canary.label != 1) return Error{"canary: its label must be 0 or 1"};
    return std::nullopt;
}

}  // namespace

const char* toString(AuditedMechanism m) {
    switch (m) {
        case AuditedMechanism::Dirichlet: return "dirichlet";
        case AuditedMechanism::DpSgd: return "dp-sgd";
        case AuditedMechanism::Sgd: return "sgd";
    }
    return "?";
}

bool parseAuditedMechanism(const std::string& text, AuditedMechanism& out) {
    for (auto m : {AuditedMechanism::Dirichlet, AuditedMechanism::DpSgd, AuditedMechanism::Sgd})
        if (text == toString(m)) {
            out = m;
            return true;
        }
    return false;
}

namespace {

// The audit's outcome: the attack judged on the canary's losses in both worlds (the lower bound on
// ε and its error rates), what it audited and how, and the scores' summaries.
TrainingAuditResult auditResult(const TrainingAuditData& data, const TrainingAuditOptions& options,
                                const AuditTrainer& trainer, std::vector<double> scoresIn,
                                std::vector<double> scoresOut) {
    const long long R = options.runsPerWorld;
    const std::int64_t n = data.images.count;
    TrainingAuditResult res;
    const auto judged =
        audit::judgeAttack(scoresIn, scoresOut, options.selectFraction, options.delta, options.confidence);
    res.epsilonLB = judged.bound.epsilonLB;
    res.fprUpper = judged.bound.fprUpper;
    res.fnrUpper = judged.bound.fnrUpper;
    res.falsePositives = judged.counts.falsePositives;
    res.falseNegatives = judged.counts.falseNegatives;
    res.evalOut = judged.counts.negatives;
    res.evalIn = judged.counts.positives;
    res.fpr = static_cast<double>(res.falsePositives) / static_cast<double>(res.evalOut);
    res.fnr = static_cast<double>(res.falseNegatives) / static_cast<double>(res.evalIn);
    res.threshold = judged.choice.threshold;
    res.direction = judged.choice.direction;
    res.selectEpsilonLB = judged.choice.epsilonLB;
    res.mechanism = options.mechanism;
    res.canary = data.canary.kind;
    res.claimedEpsilon =
        options.mechanism == AuditedMechanism::Sgd ? std::numeric_limits<double>::infinity() : options.epsilon;
    res.delta = options.delta;
    res.confidence = options.confidence;
    res.seed = options.seed;
    res.runsPerWorld = R;
    res.examples = n;
    res.steps = options.steps;
    res.q = trainer.q();
    res.noise = trainer.noise();
    res.learningRate = trainer.learningRate();
    const auto inStats = meanStd(scoresIn), outStats = meanStd(scoresOut);
    res.scoreMeanIn = inStats.mean;
    res.scoreStdIn = inStats.std;
    res.scoreMeanOut = outStats.mean;
    res.scoreStdOut = outStats.std;
    if (options.keepScores) {
        res.scoresIn = std::move(scoresIn);
        res.scoresOut = std::move(scoresOut);
    }
    return res;
}

}  // namespace

Result<TrainingAuditResult> runTrainingAudit(const TrainingAuditData& data, const TrainingAuditOptions& options,
                                             const ProgressCallback& progress, const CancellationToken& cancel) {
    if (auto e = checkOptions(options)) return *e;
    if (auto e = checkData(data)) return *e;
    const std::int64_t n = data.images.count;
    if (options.expectedBatchSize > n)
        return Error{"batch = " + std::to_string(options.expectedBatchSize) + " is larger than the " +
                         std::to_string(n) + " audited images",
                     "batch"};
    auto trainer = AuditTrainer::make(options, n);
    if (!trainer) return trainer.error();

    // The "in" world: D followed by the canary.
    std::vector<float> inPixels(data.images.pixels.begin(), data.images.pixels.end());
    inPixels.insert(inPixels.end(), data.canary.pixels.begin(), data.canary.pixels.end());
    std::vector<int> inLabels(data.labels.begin(), data.labels.end());
    inLabels.push_back(data.canary.label);
    const train::ImageView outView = data.images;
    const train::ImageView inView{inPixels, n + 1, data.images.channels, data.images.height, data.images.width};
    const train::ImageView canaryView{data.canary.pixels, 1, data.images.channels, data.images.height,
                                      data.images.width};

    auto spec = logisticHeadSpec(data.images);
    if (!spec) return spec.error();
    const train::Model initial =
        train::Model::create(*spec, seeds::derive(options.seed, kInitialisation, 0), options.device);

    const long long R = options.runsPerWorld;
    std::vector<double> scoresOut(static_cast<std::size_t>(R)), scoresIn(static_cast<std::size_t>(R));
    // Job j < R is out-world run j; job R + j is in-world run j. Each writes only its own slot.
    auto job = [&](long long jobIndex) -> Status {
        const bool in = jobIndex >= R;
        const long long run = in ? jobIndex - R : jobIndex;
        train::Model model = initial.clone();
        const auto seed = seeds::derive(options.seed, in ? kInWorld : kOutWorld, static_cast<std::uint64_t>(run));
        // An audit is a simulation by the data owner, not a release: its runs are seeded so that
        // the audit can be re-run and checked.
        const auto randomness = privacy::RandomnessSource::seeded(seed, "training-audit");
        if (auto e = trainer->train(model, in ? inView : outView, in ? std::span<const int>(inLabels) : data.labels,
                                    randomness, {}, cancel))
            return Error{"audit run " + std::to_string(run) + (in ? " (in)" : " (out)") + ": " + e->message};
        auto logits = model.logits(canaryView);
        if (!logits) return logits.error();
        (in ? scoresIn : scoresOut)[static_cast<std::size_t>(run)] = canaryLoss((*logits)[0], data.canary.label);
        return std::nullopt;
    };
    if (auto e = audit::runIndexedJobs(2 * R, options.threads, job, "audit", progress, cancel)) return *e;

    return auditResult(data, options, *trainer, std::move(scoresIn), std::move(scoresOut));
}

}  // namespace dpmix::training_audit
