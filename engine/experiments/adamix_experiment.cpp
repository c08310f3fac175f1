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

constexpr std::uint64_t kDrawStream = 0xada1;
const double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string number(double v) { return privacy::formatNumber(v); }

std::string perClassText(long long n) { return n == kAllPrivate ? "all" : std::to_string(n); }

// Fisher–Yates with a fixed bounded draw (Lemire's multiply-shift on mt19937_64's output, whose
// sequence the standard fixes), so a draw is the same with every standard library.
void shuffle(std::vector<Eigen::Index>& v, std::mt19937_64& rng) {
    for (std::size_t i = v.size(); i > 1; --i) {
        const auto j = static_cast<std::size_t>((static_cast<unsigned __int128>(rng()) * i) >> 64);
        std::swap(v[i - 1], v[j]);
    }
}

std::vector<std::vector<Eigen::Index>> rowsByClass(const Eigen::VectorXi& labels, int classes) {
    std::vector<std::vector<Eigen::Index>> out(static_cast<std::size_t>(classes));
    for (Eigen::Index i = 0; i < labels.size(); ++i)
        if (labels(i) >= 0 && labels(i) < classes) out[static_cast<std::size_t>(labels(i))].push_back(i);
    return out;
}

std::string className(const std::vector<std::string>& names, int c) {
    return c < static_cast<int>(names.size()) ? "'" + names[static_cast<std::size_t>(c)] + "'" : std::to_string(c);
}

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

MeanStd finiteMeanStd(const std::vector<double>& values) {
    std::vector<double> finite;
    for (double v : values)
        if (std::isfinite(v)) finite.push_back(v);
    if (finite.empty()) return {kNaN, kNaN, 0};
    return meanStd(finite);
}

}  // namespace

const std::vector<AdamixMethod>& allAdamixMethods() {
    static const std::vector<AdamixMethod> all = {AdamixMethod::Paragon,       AdamixMethod::PublicOnly,
                                                  AdamixMethod::DpGd,          AdamixMethod::DpGdWarmStart,
                                                  AdamixMethod::AdamixR,       AdamixMethod::NoProjection,
                                                  AdamixMethod::FixedClip,     AdamixMethod::NoPublicGradient};
    return all;
}

const char* adamixMethodName(AdamixMethod m) {
    switch (m) {
    case AdamixMethod::Paragon: return "paragon";
    case AdamixMethod::PublicOnly: return "public-only";
    default: return adamix::toString(variantOf(m));
    }
}

const char* adamixMethodLabel(AdamixMethod m) {
    switch (m) {
    case AdamixMethod::Paragon: return "M0";
    case AdamixMethod::PublicOnly: return "M1";
    case AdamixMethod::DpGd: return "M2";
    case AdamixMethod::DpGdWarmStart: return "M3";
    case AdamixMethod::AdamixR: return "M4";
    case AdamixMethod::NoProjection: return "M4a";
    case AdamixMethod::FixedClip: return "M4b";
    case AdamixMethod::NoPublicGradient: return "M4c";
    }
    return "?";
}

Result<AdamixMethod> parseAdamixMethod(const std::string& text) {
    std::string lower;
    for (char c : text) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    std::string accepted;
    for (auto m : allAdamixMethods()) {
        std::string label = adamixMethodLabel(m);
        for (auto& c : label) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (lower == adamixMethodName(m) || lower == label) return m;
        accepted += std::string(accepted.empty() ? "" : ", ") + adamixMethodLabel(m) + " " + adamixMethodName(m);
    }
    return Error{"methods: unknown method '" + text + "': expected one of " + accepted, "methods"};
}

bool isPrivateMethod(AdamixMethod m) { return m != AdamixMethod::Paragon && m != AdamixMethod::PublicOnly; }

adamix::AdamixVariant variantOf(AdamixMethod m) {
    switch (m) {
    case AdamixMethod::DpGd: return adamix::AdamixVariant::DpGdFromZero;
    case AdamixMethod::DpGdWarmStart: return adamix::AdamixVariant::DpGdWarmStart;
    case AdamixMethod::NoProjection: return adamix::AdamixVariant::NoProjection;
    case AdamixMethod::FixedClip: return adamix::AdamixVariant::FixedClip;
    case AdamixMethod::NoPublicGradient: return adamix::AdamixVariant::NoPublicGradient;
    default: return adamix::AdamixVariant::AdamixR;
    }
}

const std::vector<double>& epsilonQuantileLevels() {
    static const std::vector<double> levels = {0.0, 0.05, 0.25, 0.5, 0.75, 0.95, 1.0};
    return levels;
}

Status checkAdamixGridOptions(const AdamixGridOptions& o) {
    if (o.shots.empty()) return Error{"shots: give at least one number of public shots per class", "shots"};
    for (auto k : o.shots)
        if (k < 1) return Error{"shots = " + std::to_string(k) + " is out of range: expected an integer >= 1", "shots"};
    if (o.privatePerClass.empty())
        return Error{"private-per-class: give at least one count (or all)", "private-per-class"};
    for (auto n : o.privatePerClass)
        if (n < 0 || (n != kAllPrivate && n < 1))
            return Error{"private-per-class = " + std::to_string(n) + " is out of range: expected an integer >= 1 or all",
                         "private-per-class"};
    if (o.seeds < 1) return Error{"seeds = " + std::to_string(o.seeds) + " is out of range: expected an integer >= 1", "seeds"};
    if (o.methods.empty()) return Error{"methods: give at least one method", "methods"};
    bool anyPrivate = false;
    for (auto m : o.methods) anyPrivate = anyPrivate || isPrivateMethod(m);
    if (anyPrivate && o.epsilons.empty()) return Error{"epsilons: give at least one epsilon", "epsilons"};
    for (double e : o.epsilons)
        if (!(e > 0.0) || !std::isfinite(e))
            return Error{"epsilons: epsilon = " + number(e) + " is out of range: expected a finite number > 0", "epsilons"};
    if (o.steps < 1) return Error{"steps = " + std::to_string(o.steps) + " is out of range: expected >= 1", "steps"};
    if (!(o.stepSize > 0.0) || !std::isfinite(o.stepSize))
        return Error{"eta = " + number(o.stepSize) + " is out of range: expected a finite number > 0", "eta"};
    if (!(o.delta > 0.0 && o.delta < 1.0))
        return Error{"delta = " + number(o.delta) + " is out of range: expected a number in (0, 1)", "delta"};
    if (!(o.fixedClip > 0.0) || !std::isfinite(o.fixedClip))
        return Error{"clip = " + number(o.fixedClip) + " is out of range: expected a finite number > 0", "clip"};
    if (o.neighbours < 1)
        return Error{"neighbours = " + std::to_string(o.neighbours) + " is out of range: expected >= 1", "neighbours"};
    return std::nullopt;
}

Result<AdamixDrawPlan> planAdamixDraws(const Eigen::VectorXi& poolLabels, const Eigen::VectorXi* shotLabels,
                                       const std::vector<std::string>& classNames, const AdamixGridOptions& o) {
    if (auto e = checkAdamixGridOptions(o)) return *e;
    AdamixDrawPlan plan;
    plan.classes = static_cast<int>(classNames.size());
    plan.shotsFromPool = shotLabels == nullptr;
    plan.maxShots = *std::max_element(o.shots.begin(), o.shots.end());
    const bool all = std::find(o.privatePerClass.begin(), o.privatePerClass.end(), kAllPrivate) != o.privatePerClass.end();
    long long maxPrivate = 0;
    for (auto n : o.privatePerClass) maxPrivate = std::max(maxPrivate, n);
    const auto pool = rowsByClass(poolLabels, plan.classes);
    const auto shotPool = shotLabels ? rowsByClass(*shotLabels, plan.classes) : pool;
    for (int c = 0; c < plan.classes; ++c) {
        const auto have = static_cast<long long>(pool[static_cast<std::size_t>(c)].size());
        if (shotLabels) {
            const auto shotHave = static_cast<long long>(shotPool[static_cast<std::size_t>(c)].size());
            if (shotHave < plan.maxShots)
                return Error{"shots = " + std::to_string(plan.maxShots) + " is more than the shots source has of class " +
                                 className(classNames, c) + " (" + std::to_string(shotHave) + " examples)",
                             "shots"};
        } else if (have < plan.maxShots + 1) {
            return Error{"shots = " + std::to_string(plan.maxShots) + " is more than class " + className(classNames, c) +
                             " can give: it has " + std::to_string(have) +
                             " examples in the private pool, and at least one must stay private",
                         "shots"};
        }
        const long long left = have - (shotLabels ? 0 : plan.maxShots);
        if (maxPrivate > left)
            return Error{"private-per-class = " + std::to_string(maxPrivate) + " is more than class " +
                             className(classNames, c) + " has " + (shotLabels ? "" : "left after the shots ") + "(" +
                             std::to_string(left) + " examples)",
                         "private-per-class"};
    }
    for (long long s = 0; s < o.seeds; ++s) {
        std::mt19937_64 rng(seeds::derive(o.drawSeed, kDrawStream, static_cast<std::uint64_t>(s)));
        AdamixSeedDraw draw;
        for (int c = 0; c < plan.classes; ++c) {
            auto rows = pool[static_cast<std::size_t>(c)];
            shuffle(rows, rng);
            auto skip = 0LL;
            if (shotLabels) {
                auto shotRows = shotPool[static_cast<std::size_t>(c)];
                shuffle(shotRows, rng);
                shotRows.resize(static_cast<std::size_t>(plan.maxShots));
                draw.shots.push_back(std::move(shotRows));
            } else {
                draw.shots.emplace_back(rows.begin(), rows.begin() + plan.maxShots);
                skip = plan.maxShots;
            }
            const auto end = all ? std::ssize(rows) : std::min<std::ptrdiff_t>(std::ssize(rows), skip + maxPrivate);
            draw.privateRows.emplace_back(rows.begin() + skip, rows.begin() + end);
        }
        plan.seeds.push_back(std::move(draw));
    }
    return plan;
}

std::vector<Eigen::Index> poolRowsNeeded(const AdamixDrawPlan& plan) {
    std::vector<Eigen::Index> rows;
    for (const auto& d : plan.seeds) {
        for (const auto& c : d.privateRows) rows.insert(rows.end(), c.begin(), c.end());
        if (plan.shotsFromPool)
            for (const auto& c : d.shots) rows.insert(rows.end(), c.begin(), c.end());
    }
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    return rows;
}

std::vector<Eigen::Index> shotRowsNeeded(const AdamixDrawPlan& plan) {
    std::vector<Eigen::Index> rows;
    if (plan.shotsFromPool) return rows;
    for (const auto& d : plan.seeds)
        for (const auto& c : d.shots) rows.insert(rows.end(), c.begin(), c.end());
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    return rows;
}

double errorIncreasePercent(double error, double paragonError) {
    if (!(paragonError > 0.0)) return kNaN;
    return (error - paragonError) / paragonError * 100.0;
}

Eigen::VectorXd averageRanks(const Eigen::VectorXd& values) {
    const Eigen::Index n = values.size();
    std::vector<Eigen::Index> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), Eigen::Index{0});
    std::stable_sort(order.begin(), order.end(), [&](Eigen::Index a, Eigen::Index b) { return values(a) < values(b); });
    Eigen::VectorXd ranks(n);
    for (Eigen::Index i = 0; i < n;) {
        Eigen::Index j = i;
        while (j + 1 < n && values(order[static_cast<std::size_t>(j + 1)]) == values(order[static_cast<std::size_t>(i)])) ++j;
        const double rank = (static_cast<double>(i) + static_cast<double>(j)) / 2.0 + 1.0;  // 1-based mean of i..j
        for (Eigen::Index t = i; t <= j; ++t) ranks(order[static_cast<std::size_t>(t)]) = rank;
        i = j + 1;
    }
    return ranks;
}

double spearman(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
    if (a.size() != b.size() || a.size() < 2) return kNaN;
    const Eigen::VectorXd ra = averageRanks(a), rb = averageRanks(b);
    const Eigen::VectorXd ca = ra.array() - ra.mean(), cb = rb.array() - rb.mean();
    const double den = std::sqrt(ca.squaredNorm() * cb.squaredNorm());
    if (!(den > 0.0)) return kNaN;
    return ca.dot(cb) / den;
}

Eigen::VectorXd isolationScores(const Eigen::MatrixXd& points, const Eigen::VectorXi& labels, int neighbours) {
    const Eigen::Index n = points.rows();
    Eigen::VectorXd out = Eigen::VectorXd::Constant(n, kNaN);
    std::map<int, std::vector<Eigen::Index>> byClass;
    for (Eigen::Index i = 0; i < n; ++i) byClass[labels(i)].push_back(i);
    for (const auto& [label, rows] : byClass) {
        const auto m = static_cast<Eigen::Index>(rows.size());
        if (m < 2) continue;
        Eigen::MatrixXd x(m, points.cols());
        for (Eigen::Index r = 0; r < m; ++r) x.row(r) = points.row(rows[static_cast<std::size_t>(r)]);
        const Eigen::VectorXd sq = x.rowwise().squaredNorm();
        const auto k = static_cast<std::size_t>(std::min<Eigen::Index>(neighbours, m - 1));
        std::vector<double> d;
        // Blocks of rows: distances through one product, ‖a‖² + ‖b‖² − 2a·b (clamped at 0).
        constexpr Eigen::Index kBlock = 1024;
        for (Eigen::Index start = 0; start < m; start += kBlock) {
            const Eigen::Index rowsHere = std::min(kBlock, m - start);
            const Eigen::MatrixXd g = x.middleRows(start, rowsHere) * x.transpose();
            for (Eigen::Index r = 0; r < rowsHere; ++r) {
                d.clear();
                for (Eigen::Index j = 0; j < m; ++j) {
                    if (j == start + r) continue;
                    d.push_back(std::sqrt(std::max(0.0, sq(start + r) + sq(j) - 2.0 * g(r, j))));
                }
                std::nth_element(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(k - 1), d.end());
                std::sort(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(k));
                out(rows[static_cast<std::size_t>(start + r)]) =
                    std::accumulate(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(k), 0.0) / static_cast<double>(k);
            }
        }
    }
    return out;
}

void summariseAdamixGrid(AdamixGridResult& result, const AdamixGridOptions& o) {
    result.summary.clear();
    result.epsilonSummary.clear();
    const bool wantAdamix = std::find(o.methods.begin(), o.methods.end(), AdamixMethod::AdamixR) != o.methods.end();
    // Mean ± std over seeds.
    for (auto m : allAdamixMethods()) {
        if (std::find(o.methods.begin(), o.methods.end(), m) == o.methods.end()) continue;
        std::vector<std::optional<double>> eps;
        if (isPrivateMethod(m)) eps.assign(o.epsilons.begin(), o.epsilons.end());
        else eps = {std::nullopt};
        for (const auto& ep : eps)
            for (auto k : o.shots)
                for (auto n : o.privatePerClass) {
                    AdamixSummaryRow row;
                    row.method = m;
                    row.epsilon = ep;
                    row.shots = k;
                    row.privatePerClass = n;
                    std::vector<double> errors, increases, counts;
                    for (const auto& c : result.cells)
                        if (c.method == m && c.epsilon == ep && c.shots == k && c.privatePerClass == n) {
                            errors.push_back(c.testError);
                            increases.push_back(c.errorIncrease);
                            counts.push_back(static_cast<double>(c.privateExamples));
                        }
                    row.testError = finiteMeanStd(errors);
                    row.errorIncrease = finiteMeanStd(increases);
                    row.privateExamples = meanStd(counts).mean;
                    result.summary.push_back(row);
                }
    }
    for (double ep : wantAdamix ? o.epsilons : std::vector<double>{})
        for (auto k : o.shots)
            for (auto n : o.privatePerClass) {
                AdamixEpsilonSummary row;
                row.epsilon = ep;
                row.shots = k;
                row.privatePerClass = n;
                std::vector<std::vector<double>> q(epsilonQuantileLevels().size());
                std::vector<double> sl, si, below;
                for (const auto& pe : result.perExample) {
                    const auto& c = result.cells[static_cast<std::size_t>(pe.cell)];
                    if (c.epsilon != ep || c.shots != k || c.privatePerClass != n) continue;
                    for (std::size_t j = 0; j < q.size(); ++j) q[j].push_back(pe.quantiles[j]);
                    sl.push_back(pe.spearmanLoss);
                    si.push_back(pe.spearmanIsolation);
                    below.push_back((pe.epsilon.array() < 0.5 * ep).cast<double>().mean());
                }
                for (const auto& v : q) row.quantiles.push_back(finiteMeanStd(v));
                row.spearmanLoss = finiteMeanStd(sl);
                row.spearmanIsolation = finiteMeanStd(si);
                row.fractionBelowHalf = finiteMeanStd(below);
                result.epsilonSummary.push_back(row);
            }
}

namespace {

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
    if (auto e = audit::runIndexedJobs(phase1, o.threads, phase1Job, "adamix-experiment", forward(0), cancel)) return *e;

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
        if (std::find(o.methods.begin(), o.methods.end(), m) != o.methods.end()) ++(isPrivateMethod(m) ? privateMethods : references);
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
            return Error{name + " holds " + std::to_string(r.cells.size()) + " cells, expected " + std::to_string(K * perGroup)};
        for (std::size_t i = 0; i < r.cells.size(); ++i) {
            const AdamixCell& c = r.cells[i];
            if (c.seed != part.seed || c.privatePerClass != o.privatePerClass[part.privateIndex] || c.shots != o.shots[i / perGroup])
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
                if (!r) return Error{"grid part (seed " + std::to_string(s) + ", private-per-class index " + std::to_string(n) + ") is missing"};
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
