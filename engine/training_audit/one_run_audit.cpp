#include "engine/training_audit/one_run_audit.h"

#include "engine/core/seed_derivation.h"
#include "engine/privacy/mechanism_random.h"
#include "engine/privacy/one_run_bound.h"
#include "engine/privacy/parameters.h"
#include "engine/train/model.h"
#include "engine/training_audit/audit_trainer.h"
#include "engine/training_audit/one_run_canaries.h"

#include <cmath>
#include <limits>

namespace dpmix::training_audit {
namespace {

// The same initialisation stream as the R-run audit (training_audit.cpp): with the same seed both
// audits start from the same model.
constexpr std::uint64_t kInitialisation = 2;

Status checkOptions(const OneRunAuditOptions& o) {
    using privacy::formatNumber;
    if (o.canaries < 1)
        return Error{"canaries = " + std::to_string(o.canaries) + " is out of range: expected >= 1", "canaries"};
    if (!(o.guessFraction > 0.0 && o.guessFraction <= 0.5))
        return Error{"guess fraction = " + formatNumber(o.guessFraction) + " is out of range: expected (0, 0.5]",
                     "guess-fraction"};
    if (std::llround(o.guessFraction * static_cast<double>(o.canaries)) < 1)
        return Error{"guess fraction = " + formatNumber(o.guessFraction) + " of " + std::to_string(o.canaries) +
                         " canaries makes no guess: expected at least one guess each way",
                     "guess-fraction"};
    if (!(o.confidence > 0.0 && o.confidence < 1.0))
        return Error{"confidence = " + formatNumber(o.confidence) + " is out of range: expected (0, 1)", "confidence"};
    if (!(o.delta >= 0.0 && o.delta < 1.0))
        return Error{"delta = " + formatNumber(o.delta) + " is out of range: expected [0, 1)", "delta"};
    if (o.steps < 1) return Error{"steps = " + std::to_string(o.steps) + " is out of range: expected >= 1", "steps"};
    if (o.expectedBatchSize < 1)
        return Error{"batch = " + std::to_string(o.expectedBatchSize) + " is out of range: expected >= 1", "batch"};
    if (o.mechanism != AuditedMechanism::Sgd && !(o.epsilon > 0.0 && std::isfinite(o.epsilon)))
        return Error{"epsilon = " + formatNumber(o.epsilon) + " is out of range: expected a finite value > 0",
                     "epsilon"};
    return std::nullopt;
}

Status checkData(const OneRunAuditData& d, const OneRunAuditOptions& o) {
    if (auto e = train::checkImages("audited images", d.images)) return e;
    if (static_cast<std::int64_t>(d.labels.size()) != d.images.count)
        return Error{"labels: " + std::to_string(d.labels.size()) + " labels for " + std::to_string(d.images.count) +
                     " images"};
    for (int y : d.labels)
        if (y != 0 && y != 1) return Error{"labels: " + std::to_string(y) + " is not a binary label (0 or 1)"};
    if (o.expectedBatchSize > d.images.count)
        return Error{"batch = " + std::to_string(o.expectedBatchSize) + " is larger than the " +
                         std::to_string(d.images.count) + " audited images",
                     "batch"};
    return std::nullopt;
}

TrainingAuditOptions trainingOptions(const OneRunAuditOptions& o) {
    TrainingAuditOptions t;
    t.mechanism = o.mechanism;
    t.epsilon = o.epsilon;
    t.delta = o.delta;
    t.accountant = o.accountant;
    t.steps = o.steps;
    t.expectedBatchSize = o.expectedBatchSize;
    t.learningRate = o.learningRate;
    t.clipNorm = o.clipNorm;
    t.alpha = o.alpha;
    return t;
}

/// D followed by the included canaries, and every canary alone (for scoring).
struct AuditImages {
    std::vector<float> trainPixels, canaryPixels;
    std::vector<int> trainLabels;
    long long trainCount = 0;
};

AuditImages assemble(const OneRunAuditData& data, const std::vector<TrainingCanary>& canaries,
                     const std::vector<std::uint8_t>& included) {
    AuditImages a;
    a.trainPixels.assign(data.images.pixels.begin(), data.images.pixels.end());
    a.trainLabels.assign(data.labels.begin(), data.labels.end());
    a.trainCount = data.images.count;
    for (std::size_t i = 0; i < canaries.size(); ++i) {
        a.canaryPixels.insert(a.canaryPixels.end(), canaries[i].pixels.begin(), canaries[i].pixels.end());
        if (included[i] == 0) continue;
        a.trainPixels.insert(a.trainPixels.end(), canaries[i].pixels.begin(), canaries[i].pixels.end());
        a.trainLabels.push_back(canaries[i].label);
        ++a.trainCount;
    }
    return a;
}

/// Each canary's margin under `model`: its logit signed by its label (> 0: classified as labelled).
Result<std::vector<double>> canaryMargins(const train::Model& model, const train::ImageView& canaryView,
                                          const std::vector<TrainingCanary>& canaries) {
    auto logits = model.logits(canaryView);
    if (!logits) return logits.error();
    std::vector<double> margins(canaries.size());
    for (std::size_t i = 0; i < canaries.size(); ++i) {
        margins[i] = (canaries[i].label == 1 ? 1.0 : -1.0) * (*logits)[i];
        if (!std::isfinite(margins[i]))
            return Error{"the model's logit on canary " + std::to_string(i) + " is not finite (the training diverged)"};
    }
    return margins;
}

OneRunAuditResult describe(const OneRunAuditData& data, const OneRunAuditOptions& o, const AuditTrainer& trainer,
                           long long trainingSize) {
    OneRunAuditResult r;
    r.canaries = o.canaries;
    r.mechanism = o.mechanism;
    r.canary = o.canary;
    r.claimedEpsilon = o.mechanism == AuditedMechanism::Sgd ? std::numeric_limits<double>::infinity() : o.epsilon;
    r.delta = o.delta;
    r.confidence = o.confidence;
    r.seed = o.seed;
    r.randomness = o.randomness;
    r.examples = data.images.count;
    r.trainingSize = trainingSize;
    r.steps = o.steps;
    r.q = trainer.q();
    r.noise = trainer.noise();
    r.learningRate = trainer.learningRate();
    return r;
}

}  // namespace

Result<std::vector<TrainingCanary>> makeOneRunCanaries(const OneRunAuditData& data, const OneRunAuditOptions& options) {
    switch (options.canary) {
        case TrainingCanaryKind::LargeNorm:
            return largeNormCanaries(data.images, options.canaries, options.normMultiple, options.seed);
        case TrainingCanaryKind::FlippedLabel:
            return flippedLabelCanaries(data.heldOut, data.heldOutLabels, options.canaries);
        case TrainingCanaryKind::GradientAligned:
            return gradientAlignedCanaries(data.publicImages, options.canaries, options.seed);
    }
    return Error{"canary: unknown kind", "canary"};
}

Result<OneRunAuditResult> runOneRunAudit(const OneRunAuditData& data, const OneRunAuditOptions& options,
                                         const ProgressCallback& progress, const CancellationToken& cancel) {
    if (auto e = checkOptions(options)) return *e;
    if (auto e = checkData(data, options)) return *e;
    auto canaries = makeOneRunCanaries(data, options);
    if (!canaries) return canaries.error();
    for (const auto& c : *canaries)
        if (static_cast<std::int64_t>(c.pixels.size()) != data.images.imageSize())
            return Error{"canaries: " + std::to_string(c.pixels.size()) + " pixels, the images have " +
                             std::to_string(data.images.imageSize()),
                         "canaries"};
    throwIfCancelled(cancel);

    const auto source = options.randomness == privacy::RandomnessMode::Seeded
                            ? privacy::RandomnessSource::seeded(options.seed, "one-run-audit")
                            : privacy::RandomnessSource::secret();
    privacy::MechanismRng coins(source, "inclusion");
    const auto included = privacy::drawInclusion(options.canaries, coins);
    const AuditImages a = assemble(data, *canaries, included);
    const auto& img = data.images;
    const train::ImageView trainView{a.trainPixels, a.trainCount, img.channels, img.height, img.width};
    const train::ImageView canaryView{a.canaryPixels, options.canaries, img.channels, img.height, img.width};

    auto trainer = AuditTrainer::make(trainingOptions(options), a.trainCount);
    if (!trainer) return trainer.error();
    auto spec = logisticHeadSpec(img);
    if (!spec) return spec.error();
    train::Model model = train::Model::create(*spec, seeds::derive(options.seed, kInitialisation, 0), options.device);
    report(progress, {"one-run audit", 0, 1, "training on " + std::to_string(a.trainCount) + " images"});
    // The score: the margin the training added to each canary. The initialisation is fixed before
    // the data, so subtracting its margin is post-processing; it removes each canary's own offset
    // (its random direction against the initial weights), and unlike the loss the margin does not
    // saturate once a canary is fitted.
    auto before = canaryMargins(model, canaryView, *canaries);
    if (!before) return before.error();
    if (auto e = trainer->train(model, trainView, a.trainLabels, source.child("training"), progress, cancel)) return *e;
    auto scores = canaryMargins(model, canaryView, *canaries);
    if (!scores) return scores.error();
    std::vector<double> gain = std::move(scores).value();
    for (std::size_t i = 0; i < gain.size(); ++i) gain[i] -= (*before)[i];

    const long long k = std::llround(options.guessFraction * static_cast<double>(options.canaries));
    const auto guesses = privacy::guessMembership(gain, k, k);
    OneRunAuditResult r = describe(data, options, *trainer, a.trainCount);
    r.included = a.trainCount - data.images.count;
    r.guessesIn = guesses.in;
    r.guessesOut = guesses.out;
    r.guesses = guesses.made();
    r.correct = privacy::countCorrectGuesses(guesses, included);
    auto bound =
        privacy::oneRunEpsilonLowerBound({r.canaries, r.guesses, r.correct}, options.delta, options.confidence);
    if (!bound) return bound.error();
    r.epsilonLB = *bound;
    if (options.keepScores) {
        r.scores = std::move(gain);
        r.inclusion = included;
        r.guessed = guesses.guess;
    }
    report(progress, {"one-run audit", 1, 1, "ε_LB " + privacy::formatNumber(r.epsilonLB)});
    return r;
}

}  // namespace dpmix::training_audit
