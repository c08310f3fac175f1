#include "engine/experiments/k_scaling.h"

#include "engine/audit/parallel_runs.h"
#include "engine/experiments/subset_sources.h"
#include "engine/mixmin/dp_mixmin.h"
#include "engine/mixmin/nonprivate_mixmin.h"
#include "engine/mixmin/objective.h"

#include <cmath>
#include <set>
#include <string>

namespace dpmix::experiments {

Result<SlopeFit> fitLogLogSlope(const std::vector<double>& x, const std::vector<double>& y, double minX) {
    if (x.size() != y.size())
        return Error{"slope fit: " + std::to_string(x.size()) + " x values but " + std::to_string(y.size()) +
                     " y values"};
    std::vector<double> lx, ly;
    for (std::size_t i = 0; i < x.size(); ++i)
        if (x[i] >= minX && x[i] > 0.0 && y[i] > 0.0 && std::isfinite(y[i])) {
            lx.push_back(std::log(x[i]));
            ly.push_back(std::log(y[i]));
        }
    if (std::set<double>(lx.begin(), lx.end()).size() < 2)
        return Error{"slope fit: fewer than 2 distinct k >= " + std::to_string(minX) + " with a positive excess"};
    const double m = static_cast<double>(lx.size());
    double mx = 0, my = 0;
    for (std::size_t i = 0; i < lx.size(); ++i) mx += lx[i], my += ly[i];
    mx /= m;
    my /= m;
    double sxx = 0, sxy = 0, syy = 0;
    for (std::size_t i = 0; i < lx.size(); ++i) {
        sxx += (lx[i] - mx) * (lx[i] - mx);
        sxy += (lx[i] - mx) * (ly[i] - my);
        syy += (ly[i] - my) * (ly[i] - my);
    }
    SlopeFit f;
    f.slope = sxy / sxx;
    f.intercept = my - f.slope * mx;
    f.rSquared = syy > 0.0 ? (sxy * sxy) / (sxx * syy) : 1.0;
    f.points = static_cast<long long>(lx.size());
    return f;
}

Result<KScalingResult> runKScaling(const Eigen::MatrixXd& classProbabilities, const std::vector<int>& labels,
                                   const mixmin::DpMixMinParamsBuilder& base, const KScalingOptions& options,
                                   const ProgressCallback& progress, const CancellationToken& cancel) {
    if (options.ks.empty()) return Error{"ks: the list is empty; expected source counts such as 2, 4, ..., 512"};
    if (options.seeds.empty()) return Error{"seeds: the list is empty; expected at least one seed"};
    if (static_cast<std::size_t>(classProbabilities.rows()) != labels.size())
        return Error{"labels: " + std::to_string(labels.size()) + " labels for " +
                     std::to_string(classProbabilities.rows()) + " examples; expected one per example"};
    long long largest = 0;
    for (long long k : options.ks) {
        if (k < 2) return Error{"ks: " + std::to_string(k) + "; expected k >= 2 sources"};
        largest = std::max(largest, k);
    }
    auto all = chooseClassSubsets(static_cast<int>(classProbabilities.cols()), largest, options.subsetSeed);
    if (!all) return all.error();

    KScalingResult res;
    const std::size_t S = options.seeds.size();
    long long doneRuns = 0;
    const long long totalRuns = static_cast<long long>(options.ks.size() * S);
    for (long long k : options.ks) {
        throwIfCancelled(cancel);
        KScalingRow row;
        row.k = k;
        row.subsets.assign(all->begin(), all->begin() + k);
        auto P = subsetSourceProbabilities(classProbabilities, row.subsets);
        if (!P) return P.error();
        auto objective = mixmin::makeBinaryObjective(*P, labels);
        if (!objective) return Error{"k = " + std::to_string(k) + ": " + objective.error().message};
        mixmin::NonPrivateOptions np;
        np.gapTolerance = options.gapTolerance;
        auto star = mixmin::solveNonPrivateMixMin(*objective, np, {}, {}, cancel);
        if (!star) return Error{"k = " + std::to_string(k) + ", non-private MixMin: " + star.error().message};
        row.nonPrivateLoss = star->loss;
        row.nonPrivateGap = star->gap;
        auto b = base;
        auto params = b.build(objective->examples());
        if (!params) return params.error();
        auto p0 = std::move(params).value();
        p0.trajectoryEvery = p0.steps;

        row.excess.assign(S, 0.0);
        auto job = [&](long long s) -> Status {
            auto p = p0;
            // An experiment run by the data owner, not a release: seeded (docs/PRIVACY.md).
            p.randomness = privacy::RandomnessSource::seeded(options.seeds[static_cast<std::size_t>(s)],
                                                             "k-scaling/k=" + std::to_string(k));
            auto run = mixmin::runDpMixMin(*objective, p, nullptr, {}, cancel);
            if (!run) return Error{"k = " + std::to_string(k) + ": " + run.error().message};
            row.excess[static_cast<std::size_t>(s)] = objective->loss(run->lambda) - star->loss;
            return std::nullopt;
        };
        const long long before = doneRuns;
        auto forward = [&](const ProgressEvent& e) {
            report(progress, {"k-scaling", before + e.done, totalRuns, "k = " + std::to_string(k)});
        };
        if (auto e =
                audit::runIndexedJobs(static_cast<long long>(S), options.threads, job, "k-scaling", forward, cancel))
            return *e;
        doneRuns += static_cast<long long>(S);
        row.meanExcess = meanStd(row.excess);
        res.rows.push_back(std::move(row));
    }

    std::vector<double> xs, ys;
    for (const auto& r : res.rows) {
        xs.push_back(static_cast<double>(r.k));
        ys.push_back(r.meanExcess.mean);
    }
    auto fit = fitLogLogSlope(xs, ys, options.minKForFit);
    if (fit) {
        res.fit = *fit;
        res.fitted = true;
    } else {
        res.fitError = fit.error().message;
    }
    return res;
}

}  // namespace dpmix::experiments
