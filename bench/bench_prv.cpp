// Benchmark: the PRV accountant (engine/privacy/prv_accountant.h) beside the RDP accountant —
// one ε for a (q, σ, T) and one σ calibration to a target ε — with the noise PRV saves.
// Each case is timed `repetitions` times in one run; the median and the fastest are reported
// (the machine is shared: compare within a run).
//   build/bin/bench_prv [repetitions]
//   build/bin/bench_prv --grid      the 43-point grid of tst_prv_accountant: ε bounds against RDP,
//                                   and σ calibrated to each point's RDP ε by both accountants
#include "bench_timing.h"
#include "engine/core/malloc_tuning.h"
#include "engine/privacy/gaussian_accountant.h"
#include "engine/privacy/prv_accountant.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

using dpmix::bench::timeIt;

int grid() {
    using namespace dpmix::privacy;
    std::printf("%6s %5s %6s %6s %10s %10s %10s %10s %10s %8s %9s\n", "q", "sigma", "T", "delta", "rdp eps", "prv low",
                "prv up", "rdp sigma", "prv sigma", "saving", "cal ms");
    int points = 0, prvNeverAbove = 0, boundsOrdered = 0;
    for (double q : {0.001, 0.01, 0.1, 0.5})
        for (double sigma : {0.5, 1.0, 2.0, 10.0})
            for (long long steps : {1LL, 100LL, 10000LL}) {
                if (q >= 0.1 && sigma <= 1.0 && steps == 10000) continue;
                if (q == 0.5 && sigma == 2.0 && steps == 10000) continue;
                const double delta = points % 3 == 0 ? 1e-7 : points % 3 == 1 ? 1e-5 : 1e-3;
                const double rdp = gaussianEpsilon({q, sigma, steps}, delta).epsilon;
                const auto r = prvEpsilon({{q, sigma, steps}}, delta).value();
                PrvSigmaCalibration c{};
                const auto t = timeIt(1, [&] { c = calibrateGaussianSigmaPrv(rdp, delta, q, steps).value(); });
                std::printf("%6g %5g %6lld %6g %10.4f %10.4f %10.4f %10.5f %10.5f %7.2f%% %9.1f\n", q, sigma, steps,
                            delta, rdp, r.lower, r.upper, c.rdpSigma, c.sigma, 100.0 * (1.0 - c.sigma / c.rdpSigma),
                            t.medianMs);
                ++points;
                prvNeverAbove += c.sigma <= c.rdpSigma;
                boundsOrdered += r.lower <= r.upper && r.upper <= rdp + r.epsilonError;
            }
    std::printf("%d points: sigma_prv <= sigma_rdp at %d, lower <= upper <= rdp + error at %d\n", points, prvNeverAbove,
                boundsOrdered);
    return prvNeverAbove == points && boundsOrdered == points ? 0 : 1;
}

int main(int argc, char** argv) {
    dpmix::tuneMallocForTraining();  // as dpmix and the workbench do: the grids are reused heap, not fresh pages
    if (argc > 1 && std::strcmp(argv[1], "--grid") == 0) return grid();
    const int reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 10;
    using namespace dpmix::privacy;

    struct EpsilonCase {
        double q, sigma;
        long long steps;
        double delta;
    };
    const EpsilonCase epsilonCases[] = {
        {0.001, 0.5, 1, 1e-5},    {0.2, 8.28, 100, 1e-5},    {0.01, 1.0, 1000, 1e-5},
        {0.01, 1.0, 10000, 1e-5}, {0.004, 1.0, 36000, 1e-5},
    };
    std::printf("epsilon for one (q, sigma, T)\n");
    std::printf("%-34s %9s %9s %9s %9s %9s %10s %10s\n", "case", "rdp eps", "prv eps", "prv low", "prv up", "grid N",
                "median ms", "fastest ms");
    for (const auto& c : epsilonCases) {
        PrvEpsilon r{};
        const auto t = timeIt(reps, [&] { r = prvEpsilon({{c.q, c.sigma, c.steps}}, c.delta).value(); });
        const double rdp = gaussianEpsilon({c.q, c.sigma, c.steps}, c.delta).epsilon;
        char what[64];
        std::snprintf(what, sizeof what, "q=%g sigma=%g T=%lld", c.q, c.sigma, c.steps);
        std::printf("%-34s %9.4f %9.4f %9.4f %9.4f %9lld %10.1f %10.1f\n", what, rdp, std::min(r.upper, rdp), r.lower,
                    r.upper, r.gridPoints, t.medianMs, t.fastestMs);
    }

    struct SigmaCase {
        double epsilon, q;
        long long steps;
        double delta;
    };
    const SigmaCase sigmaCases[] = {
        {1.0, 0.2, 100, 1e-5},    {1.0, 0.01, 1000, 1e-5},  {1.0, 0.01, 10000, 1e-5},
        {3.0, 0.01, 10000, 1e-5}, {8.0, 0.01, 10000, 1e-5},
    };
    std::printf("\nsigma calibration to a target epsilon (delta = 1e-5)\n");
    std::printf("%-34s %9s %9s %8s %6s %10s %10s\n", "case", "rdp sigma", "prv sigma", "saving", "evals", "median ms",
                "fastest ms");
    for (const auto& c : sigmaCases) {
        PrvSigmaCalibration p{};
        const auto t = timeIt(reps, [&] { p = calibrateGaussianSigmaPrv(c.epsilon, c.delta, c.q, c.steps).value(); });
        char what[64];
        std::snprintf(what, sizeof what, "eps=%g q=%g T=%lld", c.epsilon, c.q, c.steps);
        std::printf("%-34s %9.4f %9.4f %7.1f%% %6d %10.1f %10.1f\n", what, p.rdpSigma, p.sigma,
                    100.0 * (1.0 - p.sigma / p.rdpSigma), p.evaluations, t.medianMs, t.fastestMs);
    }
    return 0;
}
