// Running the AdaMix-R grid (docs/ADAMIX.md): the groups of one (seed, shots, private per class),
// their reference fits and DP cells, whole or one part at a time for the cluster, and the parts
// assembled back. The methods, the draw plan and the summaries are in adamix_experiment.cpp.
#include "engine/experiments/adamix_experiment.h"

#include "engine/adamix/adamix_run.h"
#include "engine/adamix/labelled_features.h"
#include "engine/adamix/per_example_privacy.h"
#include "engine/adamix/public_guidance.h"
#include "engine/adamix/softmax_head.h"
#include "engine/audit/parallel_runs.h"
#include "engine/core/seed_derivation.h"
#include "engine/privacy/parameters.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <sstream>

namespace dpmix::experiments {
namespace {

std::string number(double v) { return privacy::formatNumber(v); }

std::string perClassText(long long n) { return n == kAllPrivate ? "all" : std::to_string(n); }

// Rows of `features` as a LabelledFeatures (normalised and augmented).
adamix::LabelledFeatures gather(const Eigen::MatrixXd& features, const Eigen::VectorXi& labels,
                                const std::vector<Eigen::Index>& rows, int classes) {
    Eigen::MatrixXd f(static_cast<Eigen::Index>(rows.size()), features.cols());
    Eigen::VectorXi y(static_cast<Eigen::Index>(rows.size()));
    for (std::size_t r = 0; r < rows.size(); ++r) {
        f.row(static_cast<Eigen::Index>(r)) = features.row(rows[r]);
        y(static_cast<Eigen::Index>(r)) = labels(rows[r]);
    }
    return adamix::makeLabelledFeatures(f, y, classes, "grid").value();
}

adamix::LabelledFeatures concat(const adamix::LabelledFeatures& a, const adamix::LabelledFeatures& b) {
    adamix::LabelledFeatures out;
    out.classes = a.classes;
    out.augmented.resize(a.examples() + b.examples(), a.augmentedDim());
    out.augmented << a.augmented, b.augmented;
    out.labels.resize(a.examples() + b.examples());
    out.labels << a.labels, b.labels;
    return out;
}

// The rows of one (seed, shots, private per class) group.
struct GroupRows {
    std::vector<Eigen::Index> shots, privateRows;
};

GroupRows groupRows(const AdamixSeedDraw& draw, long long k, long long n) {
    GroupRows g;
    for (const auto& cls : draw.shots)
        g.shots.insert(g.shots.end(), cls.begin(), cls.begin() + std::min<std::ptrdiff_t>(k, std::ssize(cls)));
    for (const auto& cls : draw.privateRows) {
        const auto take = n == kAllPrivate ? std::ssize(cls) : std::min<std::ptrdiff_t>(n, std::ssize(cls));
        g.privateRows.insert(g.privateRows.end(), cls.begin(), cls.begin() + take);
    }
    return g;
}

// Per-example softmax cross-entropy of θ.
Eigen::VectorXd perExampleLoss(const adamix::HeadMatrix& theta, const adamix::LabelledFeatures& data) {
    const Eigen::MatrixXd logits = data.augmented * theta.transpose();
    Eigen::VectorXd out(data.examples());
    for (Eigen::Index i = 0; i < logits.rows(); ++i) {
        const double m = logits.row(i).maxCoeff();
        const double lse = m + std::log((logits.row(i).array() - m).exp().sum());
        out(i) = lse - logits(i, data.labels(i));
    }
    return out;
}

// The grid's shape: its sizes, the private methods (run at each ε) and the reference methods (run
// once per group), in table order.
struct GridShape {
    std::vector<AdamixMethod> privateMethods, referenceMethods;
    bool wantAdamix = false;
    std::size_t S = 0, K = 0, N = 0, E = 0, P = 0;
    std::size_t groups() const { return S * K * N; }
    std::size_t groupIndex(std::size_t s, std::size_t k, std::size_t n) const { return (s * K + k) * N + n; }
};

GridShape gridShape(const AdamixGridOptions& o) {
    GridShape g;
    for (auto m : allAdamixMethods())
        if (std::find(o.methods.begin(), o.methods.end(), m) != o.methods.end())
            (isPrivateMethod(m) ? g.privateMethods : g.referenceMethods).push_back(m);
    g.wantAdamix =
        std::find(g.privateMethods.begin(), g.privateMethods.end(), AdamixMethod::AdamixR) != g.privateMethods.end();
    g.S = static_cast<std::size_t>(o.seeds);
    g.K = o.shots.size();
    g.N = o.privatePerClass.size();
    g.E = o.epsilons.size();
    g.P = g.privateMethods.size();
    return g;
}

// What every job of the grid reads: the inputs, the draws, the options, where the shots come
// from, and the test set.
struct GridContext {
    const AdamixGridInput& input;
    const AdamixDrawPlan& plan;
    const AdamixGridOptions& o;
    const Eigen::MatrixXd& shotFeatures;
    const Eigen::VectorXi& shotLabels;
    const adamix::LabelledFeatures& testSet;
};

// Phase 1's results: per group the paragon's error (the error increase needs it), public-only's
// error and the example counts; per (seed, private per class) the isolation scores (AdaMix-R only).
struct ReferenceFits {
    std::vector<double> paragonError, publicError;
    std::vector<long long> privateCount, publicCount;
    std::vector<Eigen::VectorXd> isolation;
};

Eigen::VectorXd isolationOf(const GridContext& c, std::size_t s, std::size_t n) {
    const GroupRows rows = groupRows(c.plan.seeds[s], 0, c.o.privatePerClass[n]);
    const auto priv = gather(c.input.poolFeatures, c.input.poolLabels, rows.privateRows, c.input.classes);
    const Eigen::MatrixXd unit = priv.augmented.leftCols(priv.augmentedDim() - 1);
    return isolationScores(unit, priv.labels, c.o.neighbours);
}

// Group i = (s, k, n): the paragon with AdaMix-R's ridge λ, public-only with its public-fit ridge
// λ₀ (θ₀ itself).
void fitReferences(const GridContext& c, std::size_t i, std::size_t s, std::size_t k, std::size_t n,
                   ReferenceFits& fits) {
    const GroupRows rows = groupRows(c.plan.seeds[s], c.o.shots[k], c.o.privatePerClass[n]);
    const auto pub = gather(c.shotFeatures, c.shotLabels, rows.shots, c.input.classes);
    const auto priv = gather(c.input.poolFeatures, c.input.poolLabels, rows.privateRows, c.input.classes);
    const adamix::AdamixParams defaults;
    const double paragonRidge = defaults.ridge, publicRidge = defaults.publicRidge;
    fits.paragonError[i] = 1.0 - adamix::accuracy(adamix::fitHead(concat(pub, priv), paragonRidge).theta, c.testSet);
    fits.publicError[i] = 1.0 - adamix::accuracy(adamix::fitHead(pub, publicRidge).theta, c.testSet);
    fits.privateCount[i] = priv.examples();
    fits.publicCount[i] = pub.examples();
}

// One DP run's outcome.
struct DpSlot {
    double error = 0.0;
    adamix::AdamixParams params;
    std::optional<AdamixPerExample> perExample;
};

// AdaMix-R's per-example record: each private example's ε_i, loss and isolation, the quantiles of
// ε_i and its rank correlations with the loss and the isolation.
Result<AdamixPerExample> perExampleRecord(const GridContext& c, const GroupRows& rows,
                                          const adamix::LabelledFeatures& priv, const adamix::AdamixResult& run,
                                          const adamix::AdamixParams& params, const Eigen::VectorXd& isolation) {
    auto eps = adamix::estimatePerExampleEpsilon(run.normRatioSums, params.steps, params.sigma, params.delta,
                                                 params.accountant);
    if (!eps) return Error{"per-example epsilon: " + eps.error().message};
    AdamixPerExample pe;
    for (auto r : rows.privateRows) {
        pe.sourceIndex.push_back(c.input.poolSourceIndex.empty()
                                     ? static_cast<long long>(r)
                                     : c.input.poolSourceIndex[static_cast<std::size_t>(r)]);
        pe.labels.push_back(c.input.poolLabels(r));
    }
    pe.epsilon = eps->epsilon;
    pe.datasetEpsilon = eps->datasetEpsilon;
    pe.loss = perExampleLoss(run.theta, priv);
    pe.isolation = isolation;
    std::vector<double> values(pe.epsilon.data(), pe.epsilon.data() + pe.epsilon.size());
    pe.quantileLevels = epsilonQuantileLevels();
    for (double level : pe.quantileLevels) pe.quantiles.push_back(adamix::quantile(values, level));
    pe.spearmanLoss = spearman(pe.epsilon, pe.loss);
    pe.spearmanIsolation = spearman(pe.epsilon, pe.isolation);
    return pe;
}

// One private method at one ε on group (s, k, n), with reproducible noise keyed by the cell.
Result<DpSlot> runDpCell(const GridContext& c, AdamixMethod method, std::size_t s, std::size_t k, std::size_t n,
                         std::size_t e, std::size_t N, const ReferenceFits& fits, const CancellationToken& cancel) {
    const auto& o = c.o;
    const GroupRows rows = groupRows(c.plan.seeds[s], o.shots[k], o.privatePerClass[n]);
    const auto pub = gather(c.shotFeatures, c.shotLabels, rows.shots, c.input.classes);
    const auto priv = gather(c.input.poolFeatures, c.input.poolLabels, rows.privateRows, c.input.classes);
    std::ostringstream invocation;
    invocation << "adamix-experiment/seed=" << s << "/shots=" << o.shots[k]
               << "/private=" << perClassText(o.privatePerClass[n]) << "/eps=" << number(o.epsilons[e]) << "/"
               << adamixMethodName(method);
    auto builder = adamix::AdamixParamsBuilder::defaults()
                       .steps(o.steps)
                       .stepSize(o.stepSize)
                       .delta(o.delta)
                       .accountant(o.accountant)
                       .epsilon(o.epsilons[e])
                       .variant(variantOf(method))
                       .reproducible(o.drawSeed, invocation.str());
    const auto variant = variantOf(method);
    if (variant == adamix::AdamixVariant::FixedClip || variant == adamix::AdamixVariant::DpGdFromZero ||
        variant == adamix::AdamixVariant::DpGdWarmStart)
        builder.fixedClip(o.fixedClip);
    auto params = builder.build(priv.examples(), pub.examples());
    if (!params) return Error{invocation.str() + ": " + params.error().message, params.error().field};
    auto run = adamix::runAdamix(pub, priv, *params, nullptr, {}, cancel);
    if (!run) return Error{invocation.str() + ": " + run.error().message};
    DpSlot slot;
    slot.params = *params;
    slot.error = 1.0 - adamix::accuracy(run->theta, c.testSet);
    if (method == AdamixMethod::AdamixR) {
        // The isolation of this (seed, n): the private rows of any k are the same rows in the same order.
        auto pe = perExampleRecord(c, rows, priv, *run, *params, fits.isolation[s * N + n]);
        if (!pe) return Error{invocation.str() + ": " + pe.error().message};
        slot.perExample = std::move(pe).value();
    }
    return slot;
}

// Group (s, k, n)'s cells in table order: the reference methods (M0, M1), then each private method
// at each ε; a DP cell's per-example record moves to `result`.
void appendGroupCells(const AdamixGridOptions& o, const GridShape& shape, std::size_t s, std::size_t k, std::size_t n,
                      const ReferenceFits& fits, std::vector<DpSlot>& dp, AdamixGridResult& result) {
    const std::size_t g = shape.groupIndex(s, k, n), E = shape.E, P = shape.P;
    auto base = [&](AdamixMethod m) {
        AdamixCell c;
        c.method = m;
        c.shots = o.shots[k];
        c.privatePerClass = o.privatePerClass[n];
        c.seed = static_cast<long long>(s);
        c.privateExamples = fits.privateCount[g];
        c.publicExamples = fits.publicCount[g];
        return c;
    };
    for (auto m : shape.referenceMethods) {
        AdamixCell c = base(m);
        c.testError = m == AdamixMethod::Paragon ? fits.paragonError[g] : fits.publicError[g];
        c.errorIncrease = errorIncreasePercent(c.testError, fits.paragonError[g]);
        result.cells.push_back(c);
    }
    for (std::size_t e = 0; e < E; ++e)
        for (std::size_t p = 0; p < P; ++p) {
            DpSlot& slot = dp[(g * E + e) * P + p];
            AdamixCell c = base(shape.privateMethods[p]);
            c.epsilon = o.epsilons[e];
            c.testError = slot.error;
            c.errorIncrease = errorIncreasePercent(c.testError, fits.paragonError[g]);
            c.sigma = slot.params.sigma;
            c.delta = slot.params.delta;
            c.q = slot.params.q;
            c.steps = slot.params.steps;
            c.certifiedEpsilon = slot.params.epsilon;
            c.clip = slot.params.clip == adamix::ClipRule::Fixed ? slot.params.fixedClip : 0.0;
            if (slot.perExample) {
                c.perExample = static_cast<long long>(result.perExample.size());
                slot.perExample->cell = static_cast<long long>(result.cells.size());
                result.perExample.push_back(std::move(*slot.perExample));
            }
            result.cells.push_back(c);
        }
}

// The options are valid, and the draws and the features were made for them.
Status checkGridInput(const AdamixGridInput& input, const AdamixDrawPlan& plan, const AdamixGridOptions& o) {
    if (auto e = checkAdamixGridOptions(o)) return *e;
    if (static_cast<long long>(plan.seeds.size()) != o.seeds || plan.classes != input.classes)
        return Error{"the draw plan does not match the options (seeds or classes)"};
    if (input.testFeatures.rows() < 1) return Error{"the test set is empty"};
    if (!plan.shotsFromPool && input.shotFeatures.rows() == 0)
        return Error{"the plan draws shots from a separate source, but its features were not given"};
    return std::nullopt;
}

// The grid's cells of the groups (seed, shots, private per class) that `part` selects (all of
// them when unset), in table order; no summaries. A cell's computation depends on its group, ε
// and method only, so a part's cells are the whole grid's, bit for bit.
Result<AdamixGridResult> runGroups(const AdamixGridInput& input, const AdamixDrawPlan& plan, const AdamixGridOptions& o,
                                   const std::optional<AdamixGridPart>& part, const ProgressCallback& progress,
                                   const CancellationToken& cancel) {
    if (auto e = checkGridInput(input, plan, o)) return *e;
    auto testSet = adamix::makeLabelledFeatures(input.testFeatures, input.testLabels, input.classes, "test");
    if (!testSet) return testSet.error();
    const Eigen::MatrixXd& shotFeatures = plan.shotsFromPool ? input.poolFeatures : input.shotFeatures;
    const Eigen::VectorXi& shotLabels = plan.shotsFromPool ? input.poolLabels : input.shotLabels;
    const GridContext context{input, plan, o, shotFeatures, shotLabels, *testSet};

    const GridShape shape = gridShape(o);
    const std::size_t S = shape.S, K = shape.K, N = shape.N, E = shape.E, P = shape.P;
    const std::size_t groups = shape.groups();
    if (part && (part->seed < 0 || part->seed >= o.seeds || part->privateIndex >= N))
        return Error{"grid part (seed " + std::to_string(part->seed) + ", private-per-class index " +
                     std::to_string(part->privateIndex) + ") is not in the grid"};
    auto selected = [&](std::size_t s, std::size_t n) {
        return !part || (static_cast<long long>(s) == part->seed && n == part->privateIndex);
    };
    std::vector<std::size_t> active;  // group indices, in table order
    for (std::size_t s = 0; s < S; ++s)
        for (std::size_t k = 0; k < K; ++k)
            for (std::size_t n = 0; n < N; ++n)
                if (selected(s, n)) active.push_back(shape.groupIndex(s, k, n));

    // Phase 1: the paragon's error (always: the error increase needs it), public-only, and the
    // isolation scores per (seed, private per class).
    ReferenceFits fits{std::vector<double>(groups), std::vector<double>(groups), std::vector<long long>(groups),
                       std::vector<long long>(groups), std::vector<Eigen::VectorXd>(shape.wantAdamix ? S * N : 0)};
    std::vector<std::size_t> activeIsolation;  // indices s · N + n into `isolation`
    for (std::size_t i = 0; i < fits.isolation.size(); ++i)
        if (selected(i / N, i % N)) activeIsolation.push_back(i);
    const long long phase1 = static_cast<long long>(active.size() + activeIsolation.size());
    const long long phase2 = static_cast<long long>(active.size() * E * P);
    const long long total = phase1 + phase2;
    auto forward = [&](long long offset) {
        return [&progress, offset, total](const ProgressEvent& e) {
            report(progress, {"adamix-experiment", offset + e.done, total, offset == 0 ? "reference fits" : "DP runs"});
        };
    };
    auto phase1Job = [&](long long index) -> Status {
        throwIfCancelled(cancel);
        const auto j = static_cast<std::size_t>(index);
        if (j >= active.size()) {  // an isolation score
            const std::size_t slot = activeIsolation[j - active.size()];
            fits.isolation[slot] = isolationOf(context, slot / N, slot % N);
            return std::nullopt;
        }
        const std::size_t i = active[j];
        fitReferences(context, i, i / (K * N), (i / N) % K, i % N, fits);
        return std::nullopt;
    };
    if (auto e = audit::runIndexedJobs(phase1, o.threads, phase1Job, "adamix-experiment", forward(0), cancel))
        return *e;

    // Phase 2: the DP runs.
    std::vector<DpSlot> dp(groups * E * P);
    auto phase2Job = [&](long long index) -> Status {
        throwIfCancelled(cancel);
        const auto j = static_cast<std::size_t>(index);
        const std::size_t g = active[j / (E * P)], e = (j / P) % E, p = j % P;
        const std::size_t s = g / (K * N), k = (g / N) % K, n = g % N;
        auto slot = runDpCell(context, shape.privateMethods[p], s, k, n, e, N, fits, cancel);
        if (!slot) return slot.error();
        dp[(g * E + e) * P + p] = std::move(slot).value();
        return std::nullopt;
    };
    if (auto e = audit::runIndexedJobs(phase2, o.threads, phase2Job, "adamix-experiment", forward(phase1), cancel))
        return *e;

    // Cells in table order: seed, shots, private per class, then method (M0, M1, then each private
    // method at each ε).
    AdamixGridResult result;
    for (std::size_t s = 0; s < S; ++s)
        for (std::size_t k = 0; k < K; ++k)
            for (std::size_t n = 0; n < N; ++n)
                if (selected(s, n)) appendGroupCells(o, shape, s, k, n, fits, dp, result);
    return result;
}

}  // namespace

Result<AdamixGridResult> runAdamixGrid(const AdamixGridInput& input, const AdamixDrawPlan& plan,
                                       const AdamixGridOptions& o, const ProgressCallback& progress,
                                       const CancellationToken& cancel) {
    auto cells = runGroups(input, plan, o, std::nullopt, progress, cancel);
    if (!cells) return cells.error();
    AdamixGridResult result = std::move(cells).value();
    summariseAdamixGrid(result, o);
    return result;
}

std::vector<AdamixGridPart> adamixGridParts(const AdamixGridOptions& o) {
    std::vector<AdamixGridPart> parts;
    for (long long s = 0; s < o.seeds; ++s)
        for (std::size_t n = 0; n < o.privatePerClass.size(); ++n) parts.push_back({s, n});
    return parts;
}

Result<AdamixGridResult> runAdamixGridPart(const AdamixGridInput& input, const AdamixDrawPlan& plan,
                                           const AdamixGridOptions& o, const AdamixGridPart& part,
                                           const ProgressCallback& progress, const CancellationToken& cancel) {
    return runGroups(input, plan, o, part, progress, cancel);
}

Result<AdamixGridResult> assembleAdamixGrid(const std::vector<std::pair<AdamixGridPart, AdamixGridResult>>& parts,
                                            const AdamixGridOptions& o) {
    if (auto e = checkAdamixGridOptions(o)) return *e;
    std::size_t references = 0, privateMethods = 0;
    for (auto m : allAdamixMethods())
        if (std::find(o.methods.begin(), o.methods.end(), m) != o.methods.end())
            ++(isPrivateMethod(m) ? privateMethods : references);
    const std::size_t K = o.shots.size(), N = o.privatePerClass.size();
    const std::size_t perGroup = references + o.epsilons.size() * privateMethods;  // cells of one (seed, shots, n)
    std::vector<const AdamixGridResult*> byPart(static_cast<std::size_t>(o.seeds) * N, nullptr);
    for (const auto& [part, r] : parts) {
        const std::string name = "grid part (seed " + std::to_string(part.seed) + ", private-per-class index " +
                                 std::to_string(part.privateIndex) + ")";
        if (part.seed < 0 || part.seed >= o.seeds || part.privateIndex >= N) return Error{name + " is not in the grid"};
        const std::size_t slot = static_cast<std::size_t>(part.seed) * N + part.privateIndex;
        if (byPart[slot]) return Error{name + " is given twice"};
        if (r.cells.size() != K * perGroup)
            return Error{name + " holds " + std::to_string(r.cells.size()) + " cells, expected " +
                         std::to_string(K * perGroup)};
        for (std::size_t i = 0; i < r.cells.size(); ++i) {
            const AdamixCell& c = r.cells[i];
            if (c.seed != part.seed || c.privatePerClass != o.privatePerClass[part.privateIndex] ||
                c.shots != o.shots[i / perGroup])
                return Error{name + ": cell " + std::to_string(i) + " belongs to another part of the grid"};
            if (c.perExample >= static_cast<long long>(r.perExample.size()))
                return Error{name + ": cell " + std::to_string(i) + " names a per-example record it does not hold"};
        }
        byPart[slot] = &r;
    }
    AdamixGridResult result;
    for (std::size_t s = 0; s < byPart.size() / N; ++s)
        for (std::size_t k = 0; k < K; ++k)
            for (std::size_t n = 0; n < N; ++n) {
                const AdamixGridResult* r = byPart[s * N + n];
                if (!r)
                    return Error{"grid part (seed " + std::to_string(s) + ", private-per-class index " +
                                 std::to_string(n) + ") is missing"};
                for (std::size_t i = k * perGroup; i < (k + 1) * perGroup; ++i) {
                    AdamixCell c = r->cells[i];
                    if (c.perExample >= 0) {
                        AdamixPerExample pe = r->perExample[static_cast<std::size_t>(c.perExample)];
                        c.perExample = static_cast<long long>(result.perExample.size());
                        pe.cell = static_cast<long long>(result.cells.size());
                        result.perExample.push_back(std::move(pe));
                    }
                    result.cells.push_back(c);
                }
            }
    summariseAdamixGrid(result, o);
    return result;
}

}  // namespace dpmix::experiments
