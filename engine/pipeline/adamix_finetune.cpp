#include "engine/pipeline/adamix_finetune.h"

#include "engine/adamix/labelled_features.h"
#include "engine/adamix/softmax_head.h"
#include "engine/core/joined_list.h"
#include "engine/core/seed_derivation.h"
#include "engine/data/portable_random.h"
#include "engine/data/source_loader.h"
#include "engine/pipeline/proxy_stage.h"
#include "engine/pipeline/run_storage.h"
#include "engine/privacy/parameters.h"
#include "engine/train/evaluation.h"
#include "engine/train/frozen_features.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace dpmix::pipeline {
namespace {

const char* const kShotsField = "stages.finetune.shots_source";
const char* const kShotsCountField = "stages.finetune.public_shots";

std::string quoted(const std::vector<std::string>& names) { return names.empty() ? "none" : core::quotedList(names); }

// The classes each sensitive task is over: the spec's tasks, or (without tasks) each sensitive
// label as a task of its own name.
std::vector<std::vector<std::string>> taskClasses(const ImageStudy& study, const project::ProjectSpec& spec) {
    std::vector<std::vector<std::string>> out;
    for (std::size_t t = 0; t < study.tasks(); ++t) {
        if (!spec.sensitiveTasks.empty() && t < spec.sensitiveTasks.size())
            out.push_back(spec.sensitiveTasks[t].classes);
        else
            out.push_back({study.taskNames[t]});
    }
    return out;
}

std::uint64_t fnv1a(const std::string& text) {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (unsigned char c : text) {
        h ^= c;
        h *= 0x100000001b3ULL;
    }
    return h;
}

std::string number(double v) { return privacy::formatNumber(v); }

Eigen::MatrixXd featureMatrix(const train::FrozenFeatures& f) {
    Eigen::MatrixXd m(f.rows, f.dim);
    for (std::int64_t i = 0; i < f.rows; ++i)
        for (std::int64_t j = 0; j < f.dim; ++j) m(i, j) = f.values[static_cast<std::size_t>(i * f.dim + j)];
    return m;
}

Result<adamix::LabelledFeatures> featuresOf(const train::Model& extractor, const data::ImageDataset& images,
                                            const std::vector<std::size_t>& rows, const std::vector<int>& labels,
                                            const std::string& what) {
    const auto pixels = gatherImages(images, rows);
    const train::ImageView view{pixels, static_cast<std::int64_t>(rows.size()), images.channels, images.height,
                                images.width};
    auto features = train::frozenExtractorFeatures(extractor, view);
    if (!features) return Error{"features of the " + what + ": " + features.error().message};
    Eigen::VectorXi y(static_cast<Eigen::Index>(labels.size()));
    for (std::size_t i = 0; i < labels.size(); ++i) y(static_cast<Eigen::Index>(i)) = labels[i];
    return adamix::makeLabelledFeatures(featureMatrix(*features), y, 2, what);
}

// The shots' public source: its record and where its images sit among the study's public
// images (joined in registration order).
struct ShotsSlice {
    const project::SourceRecord* record = nullptr;
    std::size_t offset = 0, count = 0;
};

Result<ShotsSlice> locateShotsSource(const ImageStudy& study, const std::vector<project::SourceRecord>& sources,
                                     const std::string& name) {
    const project::SourceRecord* record = nullptr;
    for (const auto& s : sources)
        if (s.role == project::SourceRole::Public && s.name == name) record = &s;
    std::vector<std::string> publicNames;
    for (const auto& s : sources)
        if (s.role == project::SourceRole::Public) publicNames.push_back(s.name);
    if (!record)
        return Error{std::string(kShotsField) + ": \"" + name +
                         "\" is not a registered public source (public sources: " + quoted(publicNames) + ")",
                     kShotsField};
    if (record->facts.kind != data::SourceKind::Images)
        return Error{std::string(kShotsField) + ": public source \"" + name + "\" is " +
                         data::nameOf(record->facts.kind) + " data: AdaMix-R's shots are labelled images",
                     kShotsField};
    std::size_t offset = 0, count = 0;
    bool found = false;
    for (std::size_t s = 0; s < study.publicSourceNames.size() && !found; ++s) {
        if (study.publicSourceNames[s] == name) {
            count = study.publicSourceImages.size() > s ? study.publicSourceImages[s] : study.publicImages.size();
            found = true;
        } else {
            offset += study.publicSourceImages.size() > s ? study.publicSourceImages[s] : 0;
        }
    }
    if (!found)
        return Error{std::string(kShotsField) + ": public source \"" + name + "\" is not among the study's images",
                     kShotsField};
    return ShotsSlice{record, offset, count};
}

// Enough shots of each class of each task, among the held-out images.
Status checkShotCounts(const ShotPool& pool, const ImageStudy& study, std::size_t tasks, long long k,
                       const std::string& name, std::size_t count) {
    for (std::size_t t = 0; t < tasks; ++t)
        for (int c = 0; c <= 1; ++c) {
            long long have = 0;
            for (std::size_t r = 0; r < pool.rows.size(); ++r) have += pool.labels[r * tasks + t] == c;
            if (have < k)
                return Error{std::string(kShotsCountField) + " = " + std::to_string(k) + " exceeds the " +
                                 std::to_string(have) + " images of task '" + study.taskNames[t] + "' class " +
                                 (c ? "positive" : "negative") + " available in public source \"" + name +
                                 "\": AdaMix-R draws its shots among the " + std::to_string(pool.rows.size()) +
                                 " of its " + std::to_string(count) +
                                 " images the proxy holds out (so that no model of a run trained on them); expected "
                                 "at most " +
                                 std::to_string(have) + " per class",
                             kShotsCountField};
        }
    return std::nullopt;
}

}  // namespace

Status loadShotPool(ImageStudy& study, const std::vector<project::SourceRecord>& sources,
                    const project::ProjectSpec& spec, std::uint64_t studySeed) {
    const std::string& name = spec.finetune.shotsSource;
    auto slice = locateShotsSource(study, sources, name);
    if (!slice) return slice.error();
    const project::SourceRecord* record = slice->record;
    const std::size_t offset = slice->offset, count = slice->count;

    // The source's own labels (the study's public labels are its mixture components).
    auto raw =
        data::loadImageSource(data::SourceSpec{record->name, record->loader, record->path, sourceOptions(spec, name)});
    if (!raw)
        return Error{std::string(kShotsField) + ": public source \"" + name + "\": " + raw.error().message,
                     kShotsField};
    if (raw->size() != count)
        return Error{std::string(kShotsField) + ": public source \"" + name + "\" gave " + std::to_string(raw->size()) +
                         " images now and " + std::to_string(count) + " when the study loaded",
                     kShotsField};
    const std::size_t numLabels = raw->numLabels();
    const auto classes = taskClasses(study, spec);
    std::vector<std::vector<std::size_t>> columns(classes.size());
    for (std::size_t t = 0; t < classes.size(); ++t) {
        std::vector<std::string> missing;
        for (const auto& c : classes[t]) {
            const auto it = std::find(raw->labelNames.begin(), raw->labelNames.end(), c);
            if (it == raw->labelNames.end())
                missing.push_back(c);
            else
                columns[t].push_back(static_cast<std::size_t>(it - raw->labelNames.begin()));
        }
        if (!missing.empty())
            return Error{std::string(kShotsField) + ": public source \"" + name + "\" lacks the sensitive labels " +
                             quoted(missing) + " of task '" + study.taskNames[t] + "' (its labels: " +
                             quoted(raw->labelNames) + "): AdaMix-R's shots need the sensitive task's label space",
                         kShotsField};
    }

    ShotPool pool;
    pool.source = name;
    pool.sourceImages = count;
    for (std::size_t row : proxyHeldOutRows(study.publicImages.size(), studySeed))
        if (row >= offset && row < offset + count) pool.rows.push_back(row);
    // Label of image j for task t: 1 when one of the task's classes is present, 0 when every one
    // of them is known absent, -1 otherwise (a missing or uncertain label).
    pool.labels.assign(pool.rows.size() * classes.size(), -1);
    for (std::size_t r = 0; r < pool.rows.size(); ++r) {
        const std::size_t j = pool.rows[r] - offset;
        for (std::size_t t = 0; t < classes.size(); ++t) {
            bool positive = false, allKnown = true;
            for (std::size_t c : columns[t]) {
                const std::size_t at = j * numLabels + c;
                const bool defined = raw->labelMask.empty() || raw->labelMask[at];
                const float v = raw->labels[at];
                if (!defined || v < 0.0f)
                    allKnown = false;
                else if (v > 0.5f)
                    positive = true;
            }
            pool.labels[r * classes.size() + t] = positive ? 1 : allKnown ? 0 : -1;
        }
    }
    if (auto e = checkShotCounts(pool, study, classes.size(), spec.finetune.publicShots, name, count)) return e;
    study.shotPool = std::move(pool);
    return std::nullopt;
}

std::uint64_t shotSeed(std::uint64_t runSeed, const std::string& task) {
    return seeds::mix(runSeed, fnv1a("adamix-shots/" + task));
}

Result<PublicShots> drawPublicShots(const ImageStudy& study, std::size_t task, long long perClass,
                                    std::uint64_t runSeed) {
    if (!study.shotPool) return Error{"AdaMix-R: the study was loaded without its pool of public shots"};
    if (task >= study.tasks()) return Error{"AdaMix-R: task " + std::to_string(task) + " does not exist"};
    const ShotPool& pool = *study.shotPool;
    const std::size_t tasks = study.tasks();
    PublicShots shots;
    shots.seed = shotSeed(runSeed, study.taskNames[task]);
    std::mt19937_64 gen(shots.seed);
    for (int c = 0; c <= 1; ++c) {
        std::vector<std::size_t> candidates;
        for (std::size_t r = 0; r < pool.rows.size(); ++r)
            if (pool.labels[r * tasks + task] == c) candidates.push_back(pool.rows[r]);
        if (static_cast<long long>(candidates.size()) < perClass)
            return Error{std::string(kShotsCountField) + " = " + std::to_string(perClass) + " exceeds the " +
                             std::to_string(candidates.size()) + " held-out images of class " +
                             (c ? "positive" : "negative") + " of task '" + study.taskNames[task] + "' in \"" +
                             pool.source + "\"",
                         kShotsCountField};
        std::vector<std::size_t> picked;
        data::sampleWithoutReplacement(candidates, static_cast<std::size_t>(perClass), gen, picked);
        std::sort(picked.begin(), picked.end());
        for (auto row : picked) {
            shots.rows.push_back(row);
            shots.labels.push_back(c);
        }
    }
    return shots;
}

std::vector<std::size_t> publicRowsWithout(std::size_t publicImages, std::vector<std::size_t> excluded) {
    std::sort(excluded.begin(), excluded.end());
    std::vector<std::size_t> rows;
    rows.reserve(publicImages);
    std::size_t e = 0;
    for (std::size_t j = 0; j < publicImages; ++j) {
        while (e < excluded.size() && excluded[e] < j) ++e;
        if (e < excluded.size() && excluded[e] == j) continue;
        rows.push_back(j);
    }
    return rows;
}

Result<adamix::AdamixParams> adamixFinetuneParams(const AdamixFinetuneSettings& s) {
    const project::FinetuneStage& f = s.finetune;
    const long long m = 2 * f.publicShots;
    auto builder = adamix::AdamixParamsBuilder::defaults();
    builder.variant(adamix::AdamixVariant::AdamixR)
        .steps(f.steps)
        .stepSize(f.lr)
        .delta(s.delta)
        .clipQuantile(f.clipQuantile)
        .accountant(s.accountant)
        .randomness(s.randomness)
        .split(s.split);
    if (f.adamixQ < 1.0) builder.samplingRate(f.adamixQ);
    if (f.rank) builder.rank(static_cast<int>(std::min<long long>(*f.rank, 1'000'000)));
    if (!s.spentBefore.empty()) {
        // Sequential composition: the rest of (ε, δ) after the earlier stage, by the run's accountant.
        auto sigma =
            privacy::calibrateGaussianSigmaAfter(s.spentBefore, s.epsilon, s.delta, f.adamixQ, f.steps, s.accountant);
        if (!sigma) return Error{"AdaMix-R fine-tuning under sequential composition: " + sigma.error().message};
        builder.sigma(sigma->sigma);
    } else {
        builder.epsilon(s.epsilon);
    }
    auto params = builder.build(s.privateUnits, m);
    if (!params) {
        // The core names its own fields; say which stage value they are.
        const std::string field = params.error().field;
        const std::string stageField = field == "steps"             ? "stages.finetune.steps"
                                       : field == "eta"             ? "stages.finetune.lr"
                                       : field == "q"               ? "stages.finetune.q"
                                       : field == "rank"            ? "stages.finetune.rank"
                                       : field == "clip-quantile"   ? "stages.finetune.clip_quantile"
                                       : field == "public-examples" ? "stages.finetune.public_shots"
                                                                    : field;
        return Error{"AdaMix-R fine-tuning: " + params.error().message +
                         (stageField != field ? " (" + stageField + ")" : std::string()),
                     stageField};
    }
    return params;
}

privacy::LedgerEntry adamixStudyEntry(const adamix::AdamixParams& p, const project::FinetuneStage& f,
                                      std::uint64_t shotsSeed) {
    privacy::LedgerEntry e = adamix::plannedLedgerEntry(p);
    const int rankUsed = static_cast<int>(std::min<long long>(p.rank, p.publicExamples));
    char seed[32];
    std::snprintf(seed, sizeof seed, "%llu", static_cast<unsigned long long>(shotsSeed));
    e.assumptions +=
        "; mechanism AdaMix-R (docs/ADAMIX.md) as the study's fine-tuning: T = " + std::to_string(p.steps) +
        " steps, sigma = " + number(p.sigma) + ", q = " + number(p.q) + ", rank r = " + std::to_string(rankUsed) +
        " (at most), clip quantile tau = " + number(p.clipQuantile) + ", eta = " + number(p.stepSize) +
        ", ridge = " + number(p.ridge) + "; a softmax head on the " +
        "pretrained model's frozen penultimate features; the shots are public by the user's declaration "
        "(stages.finetune.shots_source): " +
        std::to_string(f.publicShots) + " labelled images per class (" + std::to_string(p.publicExamples) +
        " in all) of public source '" + f.shotsSource + "', drawn with seed " + seed +
        ", held out of every model the run trains";
    return e;
}

Result<AdamixFinetuneOutcome> runAdamixFinetune(const train::Model& extractor, const ImageStudy& study,
                                                std::size_t task, const PublicShots& shots,
                                                const std::vector<std::size_t>& finetuneIndices,
                                                const adamix::AdamixParams& params, const privacy::LedgerEntry& entry,
                                                privacy::Ledger& ledger, const ProgressCallback& progress,
                                                const CancellationToken& cancel) {
    auto labelsOf = [&](const std::vector<std::size_t>& indices) {
        std::vector<int> y;
        y.reserve(indices.size());
        for (auto i : indices) y.push_back(study.sensitiveLabel(i, task) > 0.5f ? 1 : 0);
        return y;
    };
    // Features of public and sensitive images by the frozen extractor: a per-example map fixed
    // before any private step (it was trained on public data only).
    report(progress, {"finetune", 0, params.steps, "AdaMix-R: frozen features"});
    auto publicSet = featuresOf(extractor, study.publicImages, shots.rows, shots.labels, "public shots");
    if (!publicSet) return publicSet.error();
    throwIfCancelled(cancel);
    auto privateSet = featuresOf(extractor, study.sensitiveImages, finetuneIndices, labelsOf(finetuneIndices),
                                 "private fine-tuning split");
    if (!privateSet) return privateSet.error();
    throwIfCancelled(cancel);
    const auto& testIdx = study.sensitiveSplit.test;
    const auto testLabels = labelsOf(testIdx);
    auto testSet = featuresOf(extractor, study.sensitiveImages, testIdx, testLabels, "test split");
    if (!testSet) return testSet.error();

    // The entry the core plans for these parameters must be the one recorded.
    const privacy::LedgerEntry planned = adamix::plannedLedgerEntry(params);
    if (planned.q != entry.q || planned.sigma != entry.sigma || planned.steps != entry.steps ||
        planned.delta != entry.delta || planned.epsilon != entry.epsilon)
        return Error{
            "AdaMix-R: the ledger entry planned for the run differs from the mechanism's parameters; nothing ran"};
    ledger.record(entry);  // before the first private step

    auto ftProgress = [&](const ProgressEvent& e) { report(progress, {"finetune", e.done, e.total, e.message}); };
    auto run = adamix::runAdamix(*publicSet, *privateSet, params, nullptr, ftProgress, cancel);
    if (!run) return Error{"AdaMix-R: " + run.error().message};
    if (run->ledgerEntry.epsilon != entry.epsilon || run->sigma != entry.sigma ||
        run->mechanismInvocations != entry.steps)
        return Error{"AdaMix-R: the run's releases differ from its ledger entry: the result is withheld"};

    AdamixFinetuneOutcome out;
    out.featureDim = publicSet->augmentedDim() - 1;
    // The score is the log-odds z₁ − z₀ of the two-class head: the AUC is rank-based, as DP-SGD's.
    const Eigen::MatrixXd logits = testSet->augmented * run->theta.transpose();
    std::vector<double> scores(static_cast<std::size_t>(logits.rows()));
    for (Eigen::Index i = 0; i < logits.rows(); ++i) scores[static_cast<std::size_t>(i)] = logits(i, 1) - logits(i, 0);
    auto auc = train::rocAuc(scores, testLabels);
    if (!auc) return Error{"evaluation: " + auc.error().message};
    out.testAuc = *auc;
    out.head.assign(run->theta.data(), run->theta.data() + run->theta.size());
    out.result = std::move(run).value();
    return out;
}

}  // namespace dpmix::pipeline
