#include "engine/experiments/rho_guidance.h"

#include "engine/audit/parallel_runs.h"
#include "engine/core/mean_std.h"
#include "engine/core/seed_derivation.h"
#include "engine/mixmin/dp_mixmin.h"
#include "engine/mixmin/nonprivate_mixmin.h"
#include "engine/privacy/parameters.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>

namespace dpmix::experiments {
namespace {

Status positive(const char* field, double v) {
    if (!(v > 0.0) || !std::isfinite(v))
        return Error{std::string(field) + ": " + privacy::formatNumber(v) + "; expected a positive finite number"};
    return std::nullopt;
}

// The inputs both readings of the bound share (rhoGuidance, privacyBalance).
Status checkBoundInputs(long long trainExamples, double epsilon, double delta, long long sources,
                        const RhoConstants& constants) {
    if (trainExamples < 1) return Error{"train-examples: " + std::to_string(trainExamples) + "; expected at least 1"};
    if (auto e = positive("epsilon", epsilon)) return e;
    if (!(delta > 0.0 && delta < 1.0))
        return Error{"delta: " + privacy::formatNumber(delta) + "; expected a probability in (0, 1)"};
    if (sources < 2) return Error{"sources: " + std::to_string(sources) + "; expected k >= 2"};
    if (auto e = positive("c1", constants.c1)) return e;
    return positive("c2", constants.c2);
}

// n distinct indices of [0, N), uniform, sorted (partial Fisher–Yates on our own draws).
std::vector<std::size_t> randomSubset(std::size_t N, std::size_t n, std::uint64_t seed) {
    std::vector<std::size_t> all(N);
    std::iota(all.begin(), all.end(), std::size_t{0});
    std::mt19937_64 rng(seed);
    for (std::size_t i = 0; i < n; ++i) std::swap(all[i], all[i + static_cast<std::size_t>(rng() % (N - i))]);
    all.resize(n);
    std::sort(all.begin(), all.end());
    return all;
}

}  // namespace

const char* toString(RhoRegime r) {
    return r == RhoRegime::StatisticsLimited ? "statistics-limited" : "privacy-limited";
}

double statisticalTerm(double n, double lipschitz) { return lipschitz / std::sqrt(n); }

double privacyTerm(double n, double epsilon, double delta, long long sources, double lipschitz) {
    return lipschitz * std::sqrt(static_cast<double>(sources) * std::log(1.0 / delta)) / (n * epsilon);
}

Result<RhoGuidance> rhoGuidance(const RhoGuidanceInputs& in) {
    if (auto e = checkBoundInputs(in.trainExamples, in.epsilon, in.delta, in.sources, in.constants)) return *e;
    if (auto e = positive("lipschitz", in.lipschitz)) return *e;
    if (auto e = positive("target-excess", in.targetExcess)) return *e;

    RhoGuidance g;
    const double a = in.targetExcess;
    g.nStatistical = std::pow(2.0 * in.constants.c1 * in.lipschitz / a, 2.0);
    g.nPrivacy = 2.0 * in.constants.c2 * in.lipschitz *
                 std::sqrt(static_cast<double>(in.sources) * std::log(1.0 / in.delta)) / (a * in.epsilon);
    g.nRequired = std::max(g.nStatistical, g.nPrivacy);
    g.regime = g.nStatistical >= g.nPrivacy ? RhoRegime::StatisticsLimited : RhoRegime::PrivacyLimited;
    g.rho = g.nRequired / static_cast<double>(in.trainExamples);
    g.feasible = g.rho <= 1.0;
    return g;
}

Result<PrivacyBalance> privacyBalance(long long trainExamples, double epsilon, double delta, long long sources,
                                      const RhoConstants& constants) {
    if (auto e = checkBoundInputs(trainExamples, epsilon, delta, sources, constants)) return *e;
    const double ratio = constants.c2 / constants.c1;
    PrivacyBalance b;
    b.examples = ratio * ratio * static_cast<double>(sources) * std::log(1.0 / delta) / (epsilon * epsilon);
    b.rho = b.examples / static_cast<double>(trainExamples);
    return b;
}

Result<RhoConstants> fitRhoConstants(const std::vector<PilotPoint>& points, double delta, long long sources,
                                     double lipschitz) {
    // Rows a_i = (stat_i, priv_i)/y_i, target 1: weighted least squares with weights 1/y².
    double s11 = 0, s12 = 0, s22 = 0, b1 = 0, b2 = 0;
    long long used = 0;
    for (const auto& p : points) {
        if (!(p.excess > 0.0) || !(p.n > 0.0) || !(p.epsilon > 0.0)) continue;
        const double u = statisticalTerm(p.n, lipschitz) / p.excess;
        const double v = privacyTerm(p.n, p.epsilon, delta, sources, lipschitz) / p.excess;
        s11 += u * u, s12 += u * v, s22 += v * v, b1 += u, b2 += v;
        ++used;
    }
    if (used < 2)
        return Error{"pilot: fewer than 2 points with a positive excess; expected more sample sizes or seeds"};
    // Non-negative LS in 2 variables: the unconstrained solution if both are >= 0, else the
    // better of the two one-term fits (the KKT point lies on an axis).
    auto residual = [&](double c1, double c2) {
        double r = 0;
        for (const auto& p : points) {
            if (!(p.excess > 0.0) || !(p.n > 0.0) || !(p.epsilon > 0.0)) continue;
            const double f =
                c1 * statisticalTerm(p.n, lipschitz) + c2 * privacyTerm(p.n, p.epsilon, delta, sources, lipschitz);
            r += (f / p.excess - 1.0) * (f / p.excess - 1.0);
        }
        return r;
    };
    const double det = s11 * s22 - s12 * s12;
    RhoConstants c;
    c.calibrated = true;
    if (std::fabs(det) > 1e-12 * s11 * s22) {
        const double c1 = (b1 * s22 - b2 * s12) / det, c2 = (b2 * s11 - b1 * s12) / det;
        if (c1 >= 0.0 && c2 >= 0.0) {
            c.c1 = c1;
            c.c2 = c2;
            return c;
        }
    }
    const double onlyC1 = s11 > 0 ? std::max(0.0, b1 / s11) : 0.0, onlyC2 = s22 > 0 ? std::max(0.0, b2 / s22) : 0.0;
    if (residual(onlyC1, 0.0) <= residual(0.0, onlyC2)) {
        c.c1 = onlyC1;
        c.c2 = 0.0;
    } else {
        c.c1 = 0.0;
        c.c2 = onlyC2;
    }
    return c;
}

Result<PilotCalibration> calibrateRhoConstants(const audit::ObjectiveBuilder& pilot,
                                               const mixmin::DpMixMinParamsBuilder& base, double lipschitz,
                                               const PilotOptions& options, const ProgressCallback& progress,
                                               const CancellationToken& cancel) {
    if (options.sampleSizes.empty()) return Error{"sample-sizes: the list is empty; expected pilot subset sizes"};
    if (options.epsilons.empty()) return Error{"epsilons: the list is empty"};
    if (options.seeds.empty()) return Error{"seeds: the list is empty"};
    for (long long n : options.sampleSizes)
        if (n < 2 || static_cast<std::size_t>(n) > pilot.examples)
            return Error{"sample-sizes: " + std::to_string(n) + "; expected 2 to the pilot's " +
                         std::to_string(pilot.examples) + " examples"};
    // Validate the DP settings once up front (smallest n: q = B/n is largest there); δ for the fit.
    const long long smallest = *std::min_element(options.sampleSizes.begin(), options.sampleSizes.end());
    auto probe = mixmin::DpMixMinParamsBuilder(base).epsilon(options.epsilons.front()).build(smallest);
    if (!probe) return Error{"pilot n = " + std::to_string(smallest) + ": " + probe.error().message};
    const double delta = probe->delta;
    auto full = audit::buildAll(pilot);
    if (!full) return Error{"pilot: " + full.error().message};
    mixmin::NonPrivateOptions np;
    np.gapTolerance = 1e-8;
    auto star = mixmin::solveNonPrivateMixMin(*full, np, {}, {}, cancel);
    if (!star) return Error{"pilot, non-private MixMin: " + star.error().message};

    const std::size_t E = options.epsilons.size(), S = options.seeds.size();
    const std::size_t cells = options.sampleSizes.size() * E;
    std::vector<double> excess(cells * S, 0.0);
    auto job = [&](long long index) -> Status {
        const auto i = static_cast<std::size_t>(index);
        const std::size_t cell = i / S, s = i % S, ni = cell / E, ei = cell % E;
        const long long n = options.sampleSizes[ni];
        const auto rows = randomSubset(pilot.examples, static_cast<std::size_t>(n),
                                       seeds::derive(options.seeds[s], 0x9170ULL, static_cast<std::uint64_t>(n)));
        auto objective = pilot.build(rows);
        if (!objective) return Error{"pilot subset: " + objective.error().message};
        auto b = base;
        // A pilot simulation, not a release: seeded (docs/PRIVACY.md).
        auto p = b.epsilon(options.epsilons[ei])
                     .reproducible(options.seeds[s], "rho-guidance/n=" + std::to_string(n) +
                                                         "/eps=" + privacy::formatNumber(options.epsilons[ei]))
                     .build(n);
        if (!p) return Error{"pilot n = " + std::to_string(n) + ": " + p.error().message};
        auto params = std::move(p).value();
        params.trajectoryEvery = params.steps;
        auto run = mixmin::runDpMixMin(*objective, params, nullptr, {}, cancel);
        if (!run) return Error{"pilot n = " + std::to_string(n) + ": " + run.error().message};
        excess[i] = full->loss(run->lambda) - star->loss;
        return std::nullopt;
    };
    if (auto e = audit::runIndexedJobs(static_cast<long long>(excess.size()), options.threads, job, "rho-calibration",
                                       progress, cancel))
        return *e;

    PilotCalibration cal;
    for (std::size_t cell = 0; cell < cells; ++cell) {
        std::vector<double> v(excess.begin() + static_cast<long>(cell * S),
                              excess.begin() + static_cast<long>((cell + 1) * S));
        cal.points.push_back(
            {static_cast<double>(options.sampleSizes[cell / E]), options.epsilons[cell % E], meanStd(v).mean});
    }
    auto c = fitRhoConstants(cal.points, delta, full->sources(), lipschitz);
    if (!c) return c.error();
    cal.constants = *c;
    return cal;
}

}  // namespace dpmix::experiments
