#pragma once
// The downstream stages for one sensitive task and one method's λ (docs/TRAINING.md): pretrain a fresh
// single-logit model on the public images with the importance-weighted target Σ_i λ_i y_i(x)
// (skipped for Random Init), DP fine-tune it on the method's private split (DP-SGD, or the
// Dirichlet mechanism when the spec says so), and evaluate the ROC AUC on the test split.
// The fine-tuning mechanism records itself in the given ledger.
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/pipeline/adamix_finetune.h"
#include "engine/pipeline/image_study.h"
#include "engine/privacy/ledger.h"
#include "engine/project/project_records.h"
#include "engine/project/project_spec.h"
#include "engine/train/training_params.h"

#include <Eigen/Dense>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dpmix::pipeline {

// Pretrained weights keyed by everything pretraining depends on (λ, seed, pretraining settings,
// model input shape). Pretraining touches public data only, so a model pretrained for one ε or
// one task is the same model for another: the runner shares one cache across a study's ε's and
// methods instead of pretraining the uniform, λ* and Random Search mixtures again per ε.
class PretrainCache {
public:
    struct Entry {
        std::vector<float> weights;
        long long hits = 0;
    };
    /// `excluded`: public rows held out of pretraining (AdaMix-R's shots), sorted; part of the key.
    static std::string key(const Eigen::VectorXd& lambda, std::uint64_t seed, const project::PretrainStage& stage,
                           const std::vector<std::size_t>& excluded = {});
    const Entry* find(const std::string& key) const;
    void store(const std::string& key, std::vector<float> weights);
    void noteHit(const std::string& key);
    long long hits() const { return hits_; }
    std::size_t size() const { return entries_.size(); }

private:
    std::map<std::string, Entry> entries_;
    long long hits_ = 0;
};

struct DownstreamRequest {
    std::size_t task = 0;                      // index into study.taskNames
    std::optional<Eigen::VectorXd> lambda;     // none: Random Init (no pretraining)
    std::vector<std::size_t> finetuneIndices;  // the method's private fine-tuning split
    std::string finetuneSplit = "B";           // its name in the ledger
    double epsilon = 1.0;
    double delta = 1e-5;
    std::uint64_t seed = 0;                        // public work: model initialisation, pretraining
    std::string device = "cpu";                    // where pretraining and fine-tuning run (Model::create's names)
    privacy::RandomnessSource finetuneRandomness;  // the private fine-tuning's sampling and noise
    privacy::Accountant accountant = privacy::Accountant::Rdp;  // DP-SGD's σ calibration and ledger entry
    // Sequential composition: what earlier stages spent on the same people (DP-MixMin's entry);
    // fine-tuning then gets the σ that makes the composed total meet (ε, δ). Empty: full (ε, δ).
    std::vector<privacy::LedgerEntry> spentBefore;
    project::PretrainStage pretrain;
    project::FinetuneStage finetune;
    // Called once the fine-tuning's ledger entry is settled and before any work on the data, with
    // the run's ledger plus that entry: the runner stores it, so a process killed mid-training
    // leaves the spend on record (docs/PRIVACY.md, "Ledger before mechanism"). Its error stops the run.
    std::function<Status(const privacy::Ledger&)> beforePrivateWork;
    PretrainCache* pretrainCache = nullptr;  // optional: reuse pretraining across ε and tasks
};

struct DownstreamOutcome {
    double testAuc = 0.0;
    double pretrainedTestAuc = 0.0;  // AUC before fine-tuning (NaN for Random Init)
    bool pretrainingReused = false;  // the pretrained model came from the cache
    // Why the pretrained model collapsed (train::pretrainingCollapse on public images, checked
    // before fine-tuning), or empty: its fine-tuned AUC then says nothing about its λ.
    std::string pretrainingCollapse;
    long long finetuneSteps = 0;
    double noise = 0.0;  // σ (DP-SGD) or r (Dirichlet)
    double clippedFraction = 0.0;
    std::vector<project::CurvePoint> finetuneLoss;  // mean batch loss per step (private: not stored)
    std::vector<float> weights;                     // final model parameters (AdaMix-R: the frozen extractor's)
    // The rows of study.publicImages pretraining used (empty for Random Init): with AdaMix-R,
    // every row but its shots.
    std::vector<std::size_t> pretrainRows;
    // AdaMix-R only: its shots (rows of study.publicImages) and the head θ_T on the extractor's
    // normalised penultimate features (2 × (p+1), row-major; score z₁ − z₀).
    std::vector<std::size_t> shotRows;
    std::uint64_t shotSeed = 0;
    std::vector<float> head;
    long long featureDim = 0;
    int adamixRank = 0;  // the largest subspace rank the run used
};

/// Why the study's unit of privacy rules out the fine-tuning mechanism (the Dirichlet mechanism
/// or AdaMix-R at user level), or nothing. The runner asks before any run starts.
Status finetuneUnitRefusal(bool userLevel, const project::FinetuneStage& finetune);

/// The users of the given sensitive images, numbered 0..m−1 in order of first appearance.
std::vector<std::int64_t> numberUsers(const ImageStudy& study, const std::vector<std::size_t>& indices);

/// The private fine-tuning a request will run, settled before any work: the mechanism's
/// parameters and the exact ledger entry it will record (so the runner can check the privacy
/// budget first). Errors for a unit the mechanism cannot honour, a batch over the split's units,
/// or a budget no σ meets.
struct FinetunePlan {
    std::vector<std::int64_t> userOfImage;            // user level: each fine-tuning image's user, 0..m-1
    std::optional<train::DpSgdParams> dpSgd;          // DP-SGD (example or user level), or ...
    std::optional<train::DirichletParams> dirichlet;  // ... the Dirichlet mechanism, or ...
    std::optional<adamix::AdamixParams> adamix;       // ... AdaMix-R on the frozen pretrained features
    PublicShots shots;                                // AdaMix-R: its public shots (held out of pretraining)
    privacy::LedgerEntry entry;                       // what the mechanism records
};
Result<FinetunePlan> planFinetune(const ImageStudy& study, const DownstreamRequest& request);

/// The downstream network of every method: the spec's stages.finetune.model (study.downstreamModel:
/// the small CNN by default, or ResNet-18 with GroupNorm at study.resnetWidth) on the public images'
/// shape, one logit.
/// (The one-run audit and the step calibration train the same network.)
Result<train::ModelSpec> downstreamModelSpec(const ImageStudy& study);

/// At user level (study.userLevel()) fine-tuning is user-level DP-SGD over the users of
/// finetuneIndices (finetune.batch counts users; at most finetune.userGroupSize images of a
/// sampled user per step, kDefaultUserGroupSize when 0).
Result<DownstreamOutcome> runDownstream(const ImageStudy& study, const DownstreamRequest& request,
                                        privacy::Ledger& ledger, const ProgressCallback& progress = {},
                                        const CancellationToken& cancel = {});

}  // namespace dpmix::pipeline
