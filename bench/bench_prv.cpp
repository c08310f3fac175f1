// Benchmark: the PRV accountant (engine/privacy/prv_accountant.h) beside the RDP accountant —
// one ε for a (q, σ, T) and one σ calibration to a target ε — with the noise PRV saves.
// Each case is timed `repetitions` times in one run; the median and the fastest are reported
// (the machine is shared: compare within a run).
//   build/bin/bench_prv [repetitions]
#include "engine/privacy/gaussian_accountant.h"
#include "engine/privacy/prv_accountant.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

namespace {

struct Timing {
    double medianMs;
    double fastestMs;
};

Timing timeIt(int reps, const std::function<void()>& fn) {
    std::vector<double> ms;
    for (int i = 0; i < reps; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        fn();
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    return {ms[ms.size() / 2], ms.front()};
}

}  // namespace

int main(int argc, char** argv) {
    const int reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 10;
    using namespace dpmix::privacy;

    struct EpsilonCase { double q, sigma; long long steps; double delta; };
    const EpsilonCase epsilonCases[] = {
        {0.001, 0.5, 1, 1e-5}, {0.2, 8.28, 100, 1e-5}, {0.01, 1.0, 1000, 1e-5}, {0.01, 1.0, 10000, 1e-5},
        {0.004, 1.0, 36000, 1e-5},
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

    struct SigmaCase { double epsilon, q; long long steps; double delta; };
    const SigmaCase sigmaCases[] = {
        {1.0, 0.2, 100, 1e-5}, {1.0, 0.01, 1000, 1e-5}, {1.0, 0.01, 10000, 1e-5}, {3.0, 0.01, 10000, 1e-5},
        {8.0, 0.01, 10000, 1e-5},
    };
    std::printf("\nsigma calibration to a target epsilon (delta = 1e-5)\n");
    std::printf("%-34s %9s %9s %8s %6s %10s %10s %10s\n", "case", "rdp sigma", "prv sigma", "saving", "evals",
                "rdp ms", "median ms", "fastest ms");
    for (const auto& c : sigmaCases) {
        PrvSigmaCalibration p{};
        const auto t = timeIt(reps, [&] { p = calibrateGaussianSigmaPrv(c.epsilon, c.delta, c.q, c.steps).value(); });
        const auto tr = timeIt(reps, [&] { (void)calibrateGaussianSigma(c.epsilon, c.delta, c.q, c.steps).value(); });
        char what[64];
        std::snprintf(what, sizeof what, "eps=%g q=%g T=%lld", c.epsilon, c.q, c.steps);
        std::printf("%-34s %9.4f %9.4f %7.1f%% %6d %10.1f %10.1f %10.1f\n", what, p.rdpSigma, p.sigma,
                    100.0 * (1.0 - p.sigma / p.rdpSigma), p.evaluations, tr.medianMs, t.medianMs, t.fastestMs);
    }
    return 0;
}
