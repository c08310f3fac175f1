#include "engine/adamix/adamix_run.h"

#include "engine/adamix/adamix_step.h"
#include "engine/adamix/projected_gradients.h"
#include "engine/adamix/public_guidance.h"
#include "engine/privacy/mechanism_random.h"
#include "engine/privacy/parameters.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace dpmix::adamix {
namespace {

Status checkConsistent(const LabelledFeatures& publicSet, const LabelledFeatures& privateSet, const AdamixParams& p) {
    if (privateSet.examples() != p.privateExamples || publicSet.examples() != p.publicExamples)
        return Error{"the parameters were built for n = " + std::to_string(p.privateExamples) +
                     " private and m = " + std::to_string(p.publicExamples) +
                     " public examples, but the data have n = " + std::to_string(privateSet.examples()) +
                     " and m = " + std::to_string(publicSet.examples())};
    if (publicSet.examples() > 0 &&
        (publicSet.classes != privateSet.classes || publicSet.augmentedDim() != privateSet.augmentedDim()))
        return Error{"the public and private sets differ in label space or feature dimension (K = " +
                     std::to_string(publicSet.classes) + " vs " + std::to_string(privateSet.classes) +
                     ", p+1 = " + std::to_string(publicSet.augmentedDim()) + " vs " +
                     std::to_string(privateSet.augmentedDim()) + ")"};
    if (!(p.steps >= 1 && p.stepSize > 0.0 && p.q > 0.0 && p.q <= 1.0 && p.rank >= 1 &&
          (p.noise == NoiseMode::None || p.sigma > 0.0)))
        return Error{
            "parameters were not produced by AdamixParamsBuilder::build (steps, eta, q, rank or sigma invalid)"};
    return std::nullopt;
}

LabelledFeatures rowsOf(const LabelledFeatures& data, const std::vector<Eigen::Index>& rows) {
    return {data.augmented(rows, Eigen::all), data.labels(rows), data.classes};
}

// Φ̃_priv Φ̃_pubᵀ when the run projects through the public gradients (fewer operations per step
// than through the basis); empty otherwise.
Eigen::MatrixXd crossGramIfCheaper(const LabelledFeatures& publicSet, const LabelledFeatures& privateSet,
                                   const AdamixParams& p) {
    if (p.projection != Projection::PublicSubspace) return {};
    const Eigen::Index rank =
        subspaceRank(p.rank, publicSet.examples(), privateSet.augmentedDim() * privateSet.classes);
    if (!projectsThroughPublicGradients(privateSet.examples(), publicSet.examples(), privateSet.classes,
                                        privateSet.augmentedDim(), rank))
        return {};
    return privateSet.augmented * publicSet.augmented.transpose();
}

}  // namespace

privacy::LedgerEntry plannedLedgerEntry(const AdamixParams& p) {
    if (p.noise != NoiseMode::Gaussian)
        return privacy::nonPrivateEntry("adamix", p.split,
                                        "zero-noise control run of AdaMix-R (clipping without Gaussian noise): "
                                        "no differential privacy guarantee");
    privacy::LedgerEntry e =
        privacy::gaussianEntry("adamix", p.split, privacy::PrivacyUnit::Example, p.q, p.sigma, p.steps, p.delta,
                               p.clip == ClipRule::Fixed ? p.fixedClip : 0.0, p.accountant);
    e.assumptions +=
        "; the labelled public set is public (AdaMix-R's start, subspace, clip norm and public gradient "
        "term read it); the clip norm C_t and the subspace depend on the public set and earlier releases "
        "only, and the noise std is sigma times C_t";
    privacy::setRandomness(e, p.randomness.mode);
    return e;
}

Result<AdamixResult> runAdamix(const LabelledFeatures& publicSet, const LabelledFeatures& privateSet,
                               const AdamixParams& p, privacy::Ledger* ledger, const ProgressCallback& progress,
                               const CancellationToken& cancel) {
    if (auto e = checkConsistent(publicSet, privateSet, p)) return *e;

    AdamixResult r;
    if (p.init == Initialisation::PublicFewShot) {
        r.publicFit = fitHead(publicSet, p.publicRidge);
        r.theta0 = r.publicFit.theta;
    } else {
        r.theta0 = HeadMatrix::Zero(privateSet.classes, privateSet.augmentedDim());
    }

    const bool noisy = p.noise == NoiseMode::Gaussian;
    r.ledgerEntry = plannedLedgerEntry(p);
    if (noisy && !(r.ledgerEntry.epsilon <= p.epsilon * (1.0 + 1e-9)))
        return Error{"sigma = " + privacy::formatNumber(p.sigma) + " gives epsilon " +
                     privacy::formatNumber(r.ledgerEntry.epsilon) + " above the planned " +
                     privacy::formatNumber(p.epsilon) + ": the parameters were not calibrated by the builder"};
    r.sigma = noisy ? p.sigma : 0.0;
    r.epsilon = r.ledgerEntry.epsilon;
    r.delta = p.delta;
    if (ledger) ledger->record(r.ledgerEntry);  // before the first private step

    privacy::MechanismRng noiseRng(p.randomness, "noise");
    privacy::MechanismRng samplingRng(p.randomness, "sampling");
    const bool fullBatch = p.q >= 1.0;
    if (fullBatch) r.normRatioSums = Eigen::VectorXd::Zero(privateSet.examples());
    std::vector<Eigen::Index> sampled;
    const Eigen::MatrixXd crossGram = crossGramIfCheaper(publicSet, privateSet, p);
    const Eigen::MatrixXd* fullCrossGram = crossGram.size() > 0 ? &crossGram : nullptr;
    const long long reportEvery = std::max<long long>(1, p.steps / 100);

    r.theta = r.theta0;
    for (long long t = 0; t < p.steps; ++t) {
        throwIfCancelled(cancel);
        const PublicGuidance guidance = publicGuidance(r.theta, publicSet, p);
        PrivateRelease release;
        if (fullBatch) {
            release = releasePrivateSum(r.theta, privateSet, guidance, r.sigma * guidance.clip,
                                        noisy ? &noiseRng : nullptr, fullCrossGram);
            r.normRatioSums += release.normRatios;
        } else {
            sampled.clear();
            for (Eigen::Index i = 0; i < privateSet.examples(); ++i)
                if (samplingRng.uniform01() < p.q) sampled.push_back(i);
            const Eigen::MatrixXd sampledCrossGram =
                fullCrossGram ? crossGram(sampled, Eigen::all).eval() : Eigen::MatrixXd();
            release = releasePrivateSum(r.theta, rowsOf(privateSet, sampled), guidance, r.sigma * guidance.clip,
                                        noisy ? &noiseRng : nullptr, fullCrossGram ? &sampledCrossGram : nullptr);
        }
        ++r.mechanismInvocations;
        r.theta -= p.stepSize * mixedGradient(r.theta, r.theta0, guidance, release, p);
        r.clips.push_back(guidance.clip);
        r.subspaceRanks.push_back(static_cast<int>(guidance.identity ? r.theta.size() : guidance.basis.cols()));
        const long long done = t + 1;
        if (done % reportEvery == 0 || done == p.steps)
            report(progress,
                   {"adamix", done, p.steps, "step " + std::to_string(done) + " of " + std::to_string(p.steps)});
    }
    if (r.mechanismInvocations != p.steps)
        return Error{"AdaMix-R made " + std::to_string(r.mechanismInvocations) +
                     " Gaussian releases but accounted for " + std::to_string(p.steps) + ": the result is withheld"};
    return r;
}

}  // namespace dpmix::adamix
