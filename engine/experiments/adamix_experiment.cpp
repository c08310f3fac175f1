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

MeanStd finiteMeanStd(const std::vector<double>& values) {
    std::vector<double> finite;
    for (double v : values)
        if (std::isfinite(v)) finite.push_back(v);
    if (finite.empty()) return {kNaN, kNaN, 0};
    return meanStd(finite);
}

}  // namespace

const std::vector<AdamixMethod>& allAdamixMethods() {
    static const std::vector<AdamixMethod> all = {
        AdamixMethod::Paragon, AdamixMethod::PublicOnly,   AdamixMethod::DpGd,      AdamixMethod::DpGdWarmStart,
        AdamixMethod::AdamixR, AdamixMethod::NoProjection, AdamixMethod::FixedClip, AdamixMethod::NoPublicGradient};
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
            return Error{
                "private-per-class = " + std::to_string(n) + " is out of range: expected an integer >= 1 or all",
                "private-per-class"};
    if (o.seeds < 1)
        return Error{"seeds = " + std::to_string(o.seeds) + " is out of range: expected an integer >= 1", "seeds"};
    if (o.methods.empty()) return Error{"methods: give at least one method", "methods"};
    bool anyPrivate = false;
    for (auto m : o.methods) anyPrivate = anyPrivate || isPrivateMethod(m);
    if (anyPrivate && o.epsilons.empty()) return Error{"epsilons: give at least one epsilon", "epsilons"};
    for (double e : o.epsilons)
        if (!(e > 0.0) || !std::isfinite(e))
            return Error{"epsilons: epsilon = " + number(e) + " is out of range: expected a finite number > 0",
                         "epsilons"};
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
    const bool all =
        std::find(o.privatePerClass.begin(), o.privatePerClass.end(), kAllPrivate) != o.privatePerClass.end();
    long long maxPrivate = 0;
    for (auto n : o.privatePerClass) maxPrivate = std::max(maxPrivate, n);
    const auto pool = rowsByClass(poolLabels, plan.classes);
    const auto shotPool = shotLabels ? rowsByClass(*shotLabels, plan.classes) : pool;
    for (int c = 0; c < plan.classes; ++c) {
        const auto have = static_cast<long long>(pool[static_cast<std::size_t>(c)].size());
        if (shotLabels) {
            const auto shotHave = static_cast<long long>(shotPool[static_cast<std::size_t>(c)].size());
            if (shotHave < plan.maxShots)
                return Error{"shots = " + std::to_string(plan.maxShots) +
                                 " is more than the shots source has of class " + className(classNames, c) + " (" +
                                 std::to_string(shotHave) + " examples)",
                             "shots"};
        } else if (have < plan.maxShots + 1) {
            return Error{"shots = " + std::to_string(plan.maxShots) + " is more than class " +
                             className(classNames, c) + " can give: it has " + std::to_string(have) +
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
        while (j + 1 < n &&
               values(order[static_cast<std::size_t>(j + 1)]) == values(order[static_cast<std::size_t>(i)]))
            ++j;
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
                    std::accumulate(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(k), 0.0) /
                    static_cast<double>(k);
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
        if (isPrivateMethod(m))
            eps.assign(o.epsilons.begin(), o.epsilons.end());
        else
            eps = {std::nullopt};
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

}  // namespace dpmix::experiments
