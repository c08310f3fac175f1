#pragma once
// AdaMix-R as a study's fine-tuning mechanism (stages.finetune.mechanism = "adamix-r";
// docs/ADAMIX.md, "As a study's fine-tuning mechanism"): the pool of public shots and their
// draw, AdaMix-R's parameters and ledger entry for a downstream request, and the fine-tuning
// itself — the pretrained model as a FROZEN feature extractor (penultimate activations), a
// two-class softmax head (negative, positive) trained by engine/adamix's runAdamix on split B's
// features, guided by the shots' features. Torch-free: the features come from
// engine/train/frozen_features.h.
#include "engine/adamix/adamix_run.h"
#include "engine/adamix/params.h"
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/pipeline/image_study.h"
#include "engine/privacy/ledger.h"
#include "engine/project/project_records.h"
#include "engine/project/project_spec.h"
#include "engine/train/model.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dpmix::pipeline {

/// Fills study.shotPool: the held-out images (proxyHeldOutRows for `studySeed`) of the source
/// stages.finetune.shots_source with their labels for each sensitive task. Errors (named by the
/// spec field) for an unknown or non-image source, a source whose labels lack a class a
/// sensitive task names, and public_shots over the images a task's class has in the pool.
Status loadShotPool(ImageStudy& study, const std::vector<project::SourceRecord>& sources,
                    const project::ProjectSpec& spec, std::uint64_t studySeed);

/// The seed of the shots' draw for one run seed and task: SplitMix64 of the run seed and a
/// 64-bit FNV-1a hash of "adamix-shots/<task>", so each (seed, task) has its own shots and a
/// rerun draws the same ones.
std::uint64_t shotSeed(std::uint64_t runSeed, const std::string& task);

/// AdaMix-R's labelled public set for one task: `perClass` rows of the pool per class (0: not in
/// the task, 1: in it), uniformly without replacement (engine/data/portable_random.h), sorted.
struct PublicShots {
    std::vector<std::size_t> rows;  // rows of study.publicImages: negatives, then positives
    std::vector<int> labels;        // 0 or 1 per row
    std::uint64_t seed = 0;
};
Result<PublicShots> drawPublicShots(const ImageStudy& study, std::size_t task, long long perClass,
                                    std::uint64_t runSeed);

/// Every row of study.publicImages that is not in `excluded` (any order), ascending: what
/// pretraining uses when AdaMix-R's shots are held out of it.
std::vector<std::size_t> publicRowsWithout(std::size_t publicImages, std::vector<std::size_t> excluded);

/// What the request's AdaMix-R needs besides the study.
struct AdamixFinetuneSettings {
    project::FinetuneStage finetune;  // mechanism "adamix-r" and its values
    long long privateUnits = 0;       // n: the examples of the fine-tuning split
    std::string split = "B";          // the ledger's name of that split
    double epsilon = 1.0, delta = 1e-5;
    privacy::Accountant accountant = privacy::Accountant::Rdp;
    privacy::RandomnessSource randomness;
    std::vector<privacy::LedgerEntry> spentBefore;  // sequential composition: earlier entries
    std::uint64_t runSeed = 0;
    std::string task;
};

/// AdaMix-R's parameters: T = steps, η = lr, τ, q, r (unset: min(m, 64)) of the stage; m = two
/// classes × public_shots; σ calibrated for (ε, δ, q, T) by the run's accountant, or after the
/// earlier entries under sequential composition. Errors name the stage field.
Result<adamix::AdamixParams> adamixFinetuneParams(const AdamixFinetuneSettings& s);

/// The ledger entry a study's AdaMix-R records: engine/adamix's plannedLedgerEntry for `params`
/// (stage "adamix", the Gaussian of (q, σ, T), unit example) with the mechanism and its
/// parameters named in its assumptions — T, σ, q, r, τ, η, the shots and their source — and the
/// shots declared public by the user (stages.finetune.shots_source).
privacy::LedgerEntry adamixStudyEntry(const adamix::AdamixParams& params, const project::FinetuneStage& finetune,
                                      std::uint64_t shotsSeed);

/// What the fine-tuning produced.
struct AdamixFinetuneOutcome {
    double testAuc = 0.0;         // ROC AUC of the head's score z₁ − z₀ on the test split
    adamix::AdamixResult result;  // θ_T, clips, ranks, the entry runAdamix planned
    long long featureDim = 0;     // p
    std::vector<float> head;      // θ_T row-major, 2 × (p+1), as stored with the run
};

/// Extracts the frozen features of the shots, the fine-tuning images and the test images with
/// `extractor` (not changed), records `entry` in `ledger` BEFORE the first private step, runs
/// AdaMix-R and evaluates the head on the test split. Fails (result withheld) when the entry
/// runAdamix plans differs from `entry` in (q, σ, T, δ, ε).
Result<AdamixFinetuneOutcome> runAdamixFinetune(const train::Model& extractor, const ImageStudy& study,
                                                std::size_t task, const PublicShots& shots,
                                                const std::vector<std::size_t>& finetuneIndices,
                                                const adamix::AdamixParams& params, const privacy::LedgerEntry& entry,
                                                privacy::Ledger& ledger, const ProgressCallback& progress = {},
                                                const CancellationToken& cancel = {});

}  // namespace dpmix::pipeline
