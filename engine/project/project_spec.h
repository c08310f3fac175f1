#pragma once
// The study a project file holds, as the user writes it in a spec JSON (docs/PROJECT_FILE.md):
// data sources, tasks, privacy targets, stage hyper-parameters and seeds.
#include "engine/data/source_spec.h"
#include "engine/methods/finetune_mechanism.h"
#include "engine/privacy/ledger.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace dpmix::project {

/// A data source as written in the spec and as resolved on this machine.
struct SpecSource {
    data::SourceSpec written;   // path/options exactly as in the spec (relative paths stay relative)
    data::SourceSpec resolved;  // path and path-valued options made absolute (empty if not resolved)
    bool userLevel = false;     // sensitive source only: privacy unit is the user, not the example
    // Public image sources only: how images of another shape are fitted to the sensitive images'
    // shape (docs/METHODS.md, "Several public sources"). Empty: the shapes must match.
    std::string resize;  // "" or "bilinear" (antialiased triangle filter)
    std::string colour;  // "" , "replicate" (grey -> RGB) or "luminance" (RGB -> grey)
};

/// A binary label task: an example is positive when its class is one of `classes`. A public task
/// of a study with several public sources names the source whose classes it is over.
struct LabelTask {
    std::string name;
    std::vector<std::string> classes;
    std::string source;  // public tasks: the public source's name ("" = the only public source)
};

struct PrivacyTargets {
    std::vector<double> epsilons;  // one run per ε (the spec may give a number or a list)
    double delta = 0.0;
    double rho = 0.0;  // fraction of the sensitive training data used to learn λ
    privacy::Composition composition = privacy::Composition::Parallel;
    bool reproducible = false;     // seeded DP randomness: results can be re-derived, but are no release
    std::optional<double> budget;  // cap on the ε all DP releases spend on the sensitive data together
    // The budget store this study charges (budget_store.h), as written: relative to the project
    // file's folder. Empty: DPMIX_BUDGET_STORE, else the user's store (dataset_budget.h).
    std::string budgetStore;
    // Certifies every Gaussian mechanism's ε and calibrates its σ (docs/PRIVACY.md, "Choosing the
    // accountant"). A spec without the field: PRV for a new project, RDP for a stored spec
    // (projects created before the PRV accountant) — see SpecLocation::defaultAccountant.
    privacy::Accountant accountant = privacy::Accountant::Prv;
    bool accountantNamed = false;  // the spec text named it (else it is the default above)
};

struct MixtureStage {
    double clip = 13.0;
    long long batch = 1000;  // expected batch; q = min(1, batch / n_mix)
    double lr = 1.0;         // EG step size η
    long long steps = 100;
    long long userGroupSize = 0;  // G_ULS for user-level data; 0 = not given
    // stages.mixture.release: the released λ is the last iterate λ_T ("last", the paper's) or the
    // average of λ_1..λ_T ("average": the same privacy — post-processing of the noisy iterates — and
    // steadier when split A is small and the noise large; docs/RESULTS.md, "The regime map").
    bool releaseAverage = false;
};

/// ResNet-18's first stage width by default: the standard network (about 11 M parameters).
inline constexpr long long kDefaultResnetWidth = 64;

struct FinetuneStage {
    methods::FinetuneMechanism mechanism = methods::FinetuneMechanism::DpSgd;
    double clip = 2.0;       // not used by adamix-r (its clip adapts)
    long long batch = 256;   // not used by adamix-r (it samples at rate adamixQ)
    double lr = 1e-4;        // adamix-r: its step size η (default kAdamixDefaultEta)
    long long steps = 1000;  // adamix-r: its steps T (default kAdamixDefaultSteps)
    long long userGroupSize = 0;
    // AdaMix-R only (docs/ADAMIX.md, "As a study's fine-tuning mechanism"): a softmax head on the
    // pretrained model's frozen penultimate features, guided by `publicShots` labelled images per
    // class of the sensitive task drawn from the public source `shotsSource`.
    long long publicShots = 0;      // shots per class (stages.finetune.public_shots)
    std::string shotsSource;        // a public source of the spec (stages.finetune.shots_source)
    std::optional<long long> rank;  // r (stages.finetune.rank); unset: min(m, 64)
    double clipQuantile = 0.5;      // τ (stages.finetune.clip_quantile)
    double adamixQ = 1.0;           // Poisson rate q (stages.finetune.q); 1 = full batch
    // The image network pretrained on the public mixture and fine-tuned (stages.finetune.model):
    // one of kDownstreamModels (docs/PROJECT_FILE.md, "Stages"; docs/TRAINING.md, "Models").
    std::string model = "small-cnn";
    // ResNet-18's stage widths w, 2w, 4w, 8w (stages.finetune.resnet_width; model "resnet18" only).
    long long resnetWidth = kDefaultResnetWidth;

    bool adamix() const { return mechanism == methods::FinetuneMechanism::AdamixR; }
};

/// The downstream image networks a spec can name: the small GroupNorm CNN (the default) and
/// ResNet-18 with GroupNorm.
inline const std::vector<std::string> kDownstreamModels = {"small-cnn", "resnet18"};
inline bool isDownstreamModel(const std::string& model) {
    return std::find(kDownstreamModels.begin(), kDownstreamModels.end(), model) != kDownstreamModels.end();
}

/// ResNet-18's first stage widths a spec or `--resnet-width` may give: GroupNorm's 8 groups divide
/// every stage, and 512 (8× the standard network) bounds its size.
inline constexpr const char* kResnetWidthRule = "a multiple of 8 in [8, 512]";
inline bool isResnetWidth(long long width) { return width >= 8 && width <= 512 && width % 8 == 0; }

/// AdaMix-R's defaults for the shared keys `steps` (T) and `lr` (η) when a spec with mechanism
/// "adamix-r" does not give them (engine/adamix AdamixParamsBuilder::defaults()).
inline constexpr long long kAdamixDefaultSteps = 200;
inline constexpr double kAdamixDefaultEta = 1.0;

struct PretrainStage {
    long long batch = 256;
    double lr = 0.1;
    long long steps = 1000;
};

/// Private Set Generation (docs/PSG.md): the spec's optional `psg` section. Defaults are the
/// method's published ones, except `iterations` (1000 in the paper: hours on a CPU).
struct PsgSection {
    long long imagesPerClass = 10;  // 1, 10, 20 or 50
    long long iterations = 10;
    long long batchLoop = 10;
    double clip = 0.1;
    long long batch = 256;  // expected Poisson batch of real images
    double lrImage = 0.1;
    double momentumImage = 0.5;
    double lrNetwork = 0.01;
    long long networkWidth = 128;
    long long networkDepth = 3;
    double pixelMean = 0.5;  // fixed map to the normalised space: (x - mean) / std
    double pixelStd = 0.5;
    long long evaluations = 3;  // fresh networks trained on S per architecture
    long long evaluationEpochs = 300;
    long long dpSgdSteps = 300;  // the direct DP-SGD reference (0: none)
    double dpSgdLr = 0.05;
    double dpSgdClip = 1.0;
};

struct ProjectSpec {
    std::string name;
    std::string description;
    std::vector<SpecSource> publicSources;
    SpecSource sensitive;
    std::vector<LabelTask> publicTasks;     // label tasks over the public images (may be empty)
    std::vector<LabelTask> sensitiveTasks;  // tasks on the sensitive data (may be empty)
    PrivacyTargets privacy;
    MixtureStage mixture;
    FinetuneStage finetune;
    PretrainStage pretrain;
    std::optional<PsgSection> psg;  // given only by specs that run PSG
    std::vector<long long> seeds;

    /// k: the number of mixture components. Each public source gives its label tasks; a source
    /// without tasks gives its own labels (`labelsPerSource[s]` when known and > 0: an image
    /// source's classes) or else one component (a text source, a source without labels).
    std::size_t mixtureComponents(const std::vector<std::size_t>& labelsPerSource = {}) const {
        std::size_t k = 0;
        for (std::size_t s = 0; s < publicSources.size(); ++s)
            k += componentsOf(s, s < labelsPerSource.size() ? labelsPerSource[s] : 0);
        return k;
    }
    /// The components public source `s` gives: its tasks, else its `labels` (> 0), else one.
    std::size_t componentsOf(std::size_t s, std::size_t labels) const {
        return componentCount(publicTasksOf(publicSources[s].written.name).size(), labels);
    }
    /// The rule: a public source gives its tasks, else its labels (> 0), else one component.
    static std::size_t componentCount(std::size_t tasks, std::size_t labels) {
        return tasks > 0 ? tasks : labels > 0 ? labels : 1;
    }
    /// The public tasks over the source called `name`: those naming it, and those naming none
    /// (a one-source spec's tasks need not name their source).
    std::vector<LabelTask> publicTasksOf(const std::string& name) const {
        std::vector<LabelTask> out;
        for (const auto& t : publicTasks)
            if (t.source.empty() || t.source == name) out.push_back(t);
        return out;
    }
};

}  // namespace dpmix::project
