// Benchmark: how long noise calibration takes (σ for DP-SGD / DP-MixMin, r* for the Dirichlet
// mechanism). The GUI's live privacy calculator calls these as the user types, so each must
// stay well under the ~20 ms a keystroke may cost.
//   build/bin/bench_calibration [repetitions]
#include "bench_timing.h"
#include "engine/privacy/dirichlet_accountant.h"
#include "engine/privacy/gaussian_accountant.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

using dpmix::bench::timeIt;

int main(int argc, char** argv) {
    const int reps = argc > 1 ? std::atoi(argv[1]) : 20;
    using namespace dpmix::privacy;
    struct GaussCase {
        const char* what;
        double eps, delta, q;
        long long steps;
    };
    const GaussCase gauss[] = {
        {"mixture step (q=0.2, T=100, eps=1)", 1.0, 1e-5, 0.2, 100},
        {"DP-SGD fine-tune (q=0.004, T=36000, eps=1)", 1.0, 1e-5, 0.004, 36000},
        {"small budget (q=0.01, T=1000, eps=0.2)", 0.2, 1e-5, 0.01, 1000},
    };
    std::printf("%-48s %10s %10s %8s %12s\n", "calibration", "median ms", "max ms", "evals", "result");
    for (const auto& c : gauss) {
        SigmaCalibration out{};
        const auto t = timeIt(reps, [&] { out = calibrateGaussianSigma(c.eps, c.delta, c.q, c.steps).value(); });
        std::printf("%-48s %10.2f %10.2f %8d sigma=%.5f\n", c.what, t.medianMs, t.slowestMs, out.evaluations,
                    out.sigma);
    }
    struct DirCase {
        const char* what;
        double eps;
    };
    for (const DirCase& c :
         {DirCase{"Dirichlet r* (MNIST, T=9600, eps=0.5)", 0.5}, DirCase{"Dirichlet r* (MNIST, T=9600, eps=4)", 4.0}}) {
        DirichletCalibration out{};
        const auto t =
            timeIt(reps, [&] { out = calibrateDirichletR(c.eps, 1e-5, 3.0, 250.0 / 60000.0, 9600).value(); });
        std::printf("%-48s %10.2f %10.2f %8d r*=%.5f\n", c.what, t.medianMs, t.slowestMs, out.evaluations, out.r);
    }
    return 0;
}
