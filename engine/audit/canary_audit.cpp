#include "engine/audit/canary_audit.h"

#include "engine/audit/attack_judgement.h"
#include "engine/audit/parallel_runs.h"
#include "engine/core/seed_derivation.h"
#include "engine/mixmin/dp_mixmin.h"
#include "engine/mixmin/nonprivate_mixmin.h"
#include "engine/privacy/parameters.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <string>

namespace dpmix::audit {
namespace {

constexpr std::uint64_t kOutWorld = 0;
constexpr std::uint64_t kInWorld = 1;

Status checkOptions(const CanaryAuditOptions& o) {
    if (o.runsPerWorld < 2)
        return Error{"runs-per-world: " + std::to_string(o.runsPerWorld) +
                     "; expected at least 2 (one SELECT and one EVAL run per world)"};
    if (!(o.selectFraction > 0.0 && o.selectFraction < 1.0))
        return Error{"select-fraction: " + privacy::formatNumber(o.selectFraction) + "; expected a value in (0, 1)"};
    if (!(o.confidence > 0.0 && o.confidence < 1.0))
        return Error{"confidence: " + privacy::formatNumber(o.confidence) + "; expected a value in (0, 1), e.g. 0.95"};
    if (o.canary == CanaryKind::Natural && !o.naturalExample)
        return Error{"natural-canary: a natural canary audit needs the held-out example (proxy row and label)"};
    if (o.threads < 0) return Error{"threads: " + std::to_string(o.threads) + "; expected 0 (all cores) or more"};
    return std::nullopt;
}

}  // namespace

Result<CanaryAuditPlan> prepareCanaryAudit(const mixmin::MixtureObjective& splitA, const mixmin::DpMixMinParams& params,
                                           const CanaryAuditOptions& options, const CancellationToken& cancel) {
    if (auto e = checkOptions(options)) return *e;
    const bool userLevel = options.users.has_value();
    if (userLevel) {
        if (params.units != options.users->users() || params.unit != privacy::PrivacyUnit::User)
            return Error{"audit parameters were built for " + std::to_string(params.units) + " " +
                         privacy::toString(params.unit) + " units but split A has " +
                         std::to_string(options.users->users()) +
                         " users: build them with DpMixMinParamsBuilder::build(users, PrivacyUnit::User)"};
        if (options.users->examples() != splitA.examples())
            return Error{"audit users cover " + std::to_string(options.users->examples()) +
                         " examples but split A has " + std::to_string(splitA.examples())};
    } else if (params.units != splitA.examples() || params.unit != privacy::PrivacyUnit::Example) {
        return Error{"audit parameters were built for " + std::to_string(params.units) + " units but split A has " +
                     std::to_string(splitA.examples()) +
                     " examples: build them with DpMixMinParamsBuilder::build(splitA.examples())"};
    }
    if (options.canaryExamples < 1)
        return Error{"canary-examples: " + std::to_string(options.canaryExamples) + "; expected at least 1"};

    // The canary. Max-clip points along the top source of the non-private solution on split A
    // (λ_0 is uniform, so "the source with the highest weight" can only mean λ*;
    // docs/ALGORITHMS.md F.10).
    std::optional<Canary> canary;
    if (options.canary == CanaryKind::Natural) {
        auto c = Canary::natural(splitA, *options.naturalExample);
        if (!c) return c.error();
        canary = std::move(c).value();
    } else {
        // At user level λ* is the minimiser of what Algorithm 2 estimates: the mean over users.
        const Eigen::VectorXd weights = userLevel ? options.users->userMeanWeights() : Eigen::VectorXd();
        auto star = mixmin::solveNonPrivateMixMin(splitA, {}, weights, {}, cancel);
        if (!star) return Error{"audit: non-private MixMin on split A failed: " + star.error().message};
        Eigen::Index top = 0;
        star->lambda.maxCoeff(&top);
        if (options.maxClipTarget == MaxClipTarget::QuietestSource)
            top = quietestSource(splitA, star->lambda, params.clipNorm,
                                 params.clipped == mixmin::ClippedGradient::TangentProjected);
        auto c = Canary::maxClip(splitA.sources(), top, params.clipNorm, options.maxClipSign);
        if (!c) return c.error();
        canary = std::move(c).value();
    }

    CanaryAuditPlan plan;
    plan.canary = std::move(canary);
    return plan;
}

namespace {

// Run `run` of one world, seeded from (seed, world, run) only; adds the canary's samples.
Result<double> auditRun(const mixmin::MixtureObjective& splitA, const mixmin::DpMixMinParams& params,
                        const CanaryAuditOptions& options, const Canary& canary, const mixmin::ExtraUnit& baseUnit,
                        bool in, long long run, std::atomic<long long>& canarySamples,
                        const CancellationToken& cancel) {
    const bool userLevel = options.users.has_value();
    mixmin::DpMixMinParams p = params;
    // An audit is a simulation by the data owner, not a release: its runs are seeded so that the
    // audit can be re-run and checked (docs/AUDIT.md).
    p.randomness = privacy::RandomnessSource::seeded(
        seeds::derive(options.seed, in ? kInWorld : kOutWorld, static_cast<std::uint64_t>(run)), "canary-audit");
    p.trajectoryEvery = p.steps;  // keep only λ_0 and λ_T: nothing else is scored
    long long sampled = 0;
    mixmin::ExtraUnit unit{[&](const Eigen::VectorXd& l, Eigen::VectorXd& g) {
                               ++sampled;
                               baseUnit.gradient(l, g);
                           },
                           options.canaryExamples};
    const mixmin::ExtraUnit* extra = in ? &unit : nullptr;
    auto r = userLevel ? mixmin::runUserLevelDpMixMin(splitA, *options.users, p, nullptr, {}, cancel, nullptr, extra)
                       : mixmin::runDpMixMin(splitA, p, nullptr, {}, cancel, extra);
    if (!r) return Error{"audit run " + std::to_string(run) + (in ? " (in)" : " (out)") + ": " + r.error().message};
    canarySamples += sampled;
    return canary.score(r->lambda);
}

}  // namespace

Result<CanaryAuditBlock> runCanaryAuditBlock(const mixmin::MixtureObjective& splitA,
                                             const mixmin::DpMixMinParams& params, const CanaryAuditOptions& options,
                                             const CanaryAuditPlan& plan, bool in, long long begin, long long end,
                                             const ProgressCallback& progress, const CancellationToken& cancel) {
    if (!plan.canary) return Error{"audit block: the audit was not prepared"};
    if (begin < 0 || end > options.runsPerWorld || begin >= end)
        return Error{"audit block: runs [" + std::to_string(begin) + ", " + std::to_string(end) +
                     ") are not within [0, " + std::to_string(options.runsPerWorld) + ")"};
    CanaryAuditBlock block;
    block.in = in;
    block.begin = begin;
    block.end = end;
    block.scores.assign(static_cast<std::size_t>(end - begin), 0.0);
    std::atomic<long long> canarySamples{0};
    const mixmin::ExtraUnit baseUnit = plan.canary->extraUnit();
    auto job = [&](long long i) -> Status {
        auto score = auditRun(splitA, params, options, *plan.canary, baseUnit, in, begin + i, canarySamples, cancel);
        if (!score) return score.error();
        block.scores[static_cast<std::size_t>(i)] = *score;
        return std::nullopt;
    };
    if (auto e = runIndexedJobs(end - begin, options.threads, job, "audit", progress, cancel)) return *e;
    block.canarySamples = canarySamples.load();
    return block;
}

Result<CanaryAuditResult> runCanaryAudit(const mixmin::MixtureObjective& splitA, const mixmin::DpMixMinParams& params,
                                         const CanaryAuditOptions& options, const ProgressCallback& progress,
                                         const CancellationToken& cancel) {
    auto plan = prepareCanaryAudit(splitA, params, options, cancel);
    if (!plan) return plan.error();
    const long long R = options.runsPerWorld;
    std::vector<double> scoresOut(static_cast<std::size_t>(R)), scoresIn(static_cast<std::size_t>(R));
    std::atomic<long long> canarySamples{0};
    const mixmin::ExtraUnit baseUnit = plan->canary->extraUnit();
    // Job j < R is out-world run j; job R + j is in-world run j. Each writes only its own slot.
    auto job = [&](long long jobIndex) -> Status {
        const bool in = jobIndex >= R;
        const long long run = in ? jobIndex - R : jobIndex;
        auto score = auditRun(splitA, params, options, *plan->canary, baseUnit, in, run, canarySamples, cancel);
        if (!score) return score.error();
        (in ? scoresIn : scoresOut)[static_cast<std::size_t>(run)] = *score;
        return std::nullopt;
    };
    if (auto e = runIndexedJobs(2 * R, options.threads, job, "audit", progress, cancel)) return *e;
    return finishCanaryAudit(params, options, *plan, std::move(scoresIn), std::move(scoresOut), canarySamples.load());
}

CanaryAuditResult finishCanaryAudit(const mixmin::DpMixMinParams& params, const CanaryAuditOptions& options,
                                    const CanaryAuditPlan& plan, std::vector<double> scoresIn,
                                    std::vector<double> scoresOut, long long canarySamples) {
    const long long R = options.runsPerWorld;
    CanaryAuditResult res;
    AttackJudgement judged = judgeAttack(scoresIn, scoresOut, options.selectFraction, params.delta, options.confidence);
    res.selectRuns = std::move(judged.selectRuns);
    res.evalRuns = std::move(judged.evalRuns);
    const ThresholdChoice& choice = judged.choice;
    const privacy::AuditCounts& counts = judged.counts;
    const privacy::AuditBound& bound = judged.bound;

    res.epsilonLB = bound.epsilonLB;
    res.fprUpper = bound.fprUpper;
    res.fnrUpper = bound.fnrUpper;
    res.falsePositives = counts.falsePositives;
    res.falseNegatives = counts.falseNegatives;
    res.evalOut = counts.negatives;
    res.evalIn = counts.positives;
    res.fpr = static_cast<double>(counts.falsePositives) / static_cast<double>(counts.negatives);
    res.fnr = static_cast<double>(counts.falseNegatives) / static_cast<double>(counts.positives);
    res.threshold = choice.threshold;
    res.direction = choice.direction;
    res.selectEpsilonLB = choice.epsilonLB;
    res.runsPerWorld = R;
    res.canary = options.canary;
    res.maxClipSign = options.maxClipSign;
    res.maxClipTarget = options.maxClipTarget;
    res.topSource = plan.canary->topSource();
    res.noise = params.noise;
    res.sigma = params.noise == mixmin::NoiseMode::Gaussian ? params.sigma : 0.0;
    res.claimedEpsilon =
        params.noise == mixmin::NoiseMode::Gaussian ? params.epsilon : std::numeric_limits<double>::infinity();
    res.delta = params.delta;
    res.confidence = options.confidence;
    res.seed = options.seed;
    res.canaryExamples = options.canaryExamples;
    res.unit = params.unit;
    res.meanCanarySamples = static_cast<double>(canarySamples) / static_cast<double>(R);
    if (options.keepScores) {
        res.scoresIn = std::move(scoresIn);
        res.scoresOut = std::move(scoresOut);
    }
    return res;
}

}  // namespace dpmix::audit
