// Mixture learning speed (goal: docs/BENCHMARKS.md): with cached proxy predictions, DP-MixMin for
// n = 10,000, k = 16, T = 1000 must run in under 0.5 s on the reference box.
// Usage: bench_mixmin [repeats=5]
#include "engine/mixmin/dp_mixmin.h"
#include "engine/mixmin/nonprivate_mixmin.h"
#include "engine/mixmin/random_search.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>
#include <vector>

using namespace dpmix::mixmin;
using Clock = std::chrono::steady_clock;

namespace {

struct Data {
    Eigen::MatrixXd p;
    std::vector<int> y;
};

Data syntheticProxies(int n, int k) {
    std::mt19937_64 rng(42);
    std::normal_distribution<double> z(0.0, 1.0);
    std::bernoulli_distribution label(0.3);
    Data d{Eigen::MatrixXd(n, k), std::vector<int>(static_cast<std::size_t>(n))};
    for (int j = 0; j < n; ++j) {
        const int y = label(rng) ? 1 : 0;
        d.y[static_cast<std::size_t>(j)] = y;
        for (int i = 0; i < k; ++i) {
            const double signal = (i + 1) * 0.15 * (2 * y - 1);
            d.p(j, i) = 1.0 / (1.0 + std::exp(-(signal - 0.85 + z(rng))));
        }
    }
    return d;
}

// CPU time of this thread: on a shared, loaded 2-core box wall time mostly measures the others.
double threadCpuMs() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return 1e3 * static_cast<double>(ts.tv_sec) + 1e-6 * static_cast<double>(ts.tv_nsec);
}

template <typename F>
void timeIt(const char* name, int repeats, F&& f) {
    std::vector<double> wall, cpu;
    for (int r = 0; r < repeats; ++r) {
        const auto t0 = Clock::now();
        const double c0 = threadCpuMs();
        f();
        cpu.push_back(threadCpuMs() - c0);
        wall.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    std::sort(wall.begin(), wall.end());
    std::sort(cpu.begin(), cpu.end());
    std::printf("%-58s wall median %7.1f ms (min %7.1f)   cpu median %7.1f ms (min %7.1f)\n", name,
                wall[wall.size() / 2], wall.front(), cpu[cpu.size() / 2], cpu.front());
}

}  // namespace

int main(int argc, char** argv) {
    const int repeats = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
    const int n = 10000, k = 16;
    const Data d = syntheticProxies(n, k);
    const auto objective = makeBinaryObjective(d.p, d.y).value();

    auto builder = DpMixMinParamsBuilder::imagingDefaults();  // C = 13, B = 1000, η = 1, δ = 1e-5
    builder.epsilon(1.0).steps(1000);
    DpMixMinParams params;
    timeIt("sigma calibration (q = 0.1, T = 1000, eps = 1)", repeats, [&] { params = builder.build(n).value(); });
    std::printf("  sigma = %.5f\n", params.sigma);

    Eigen::VectorXd lambda;
    timeIt("DP-MixMin Alg. 1: n = 10000, k = 16, T = 1000, B = 1000", repeats, [&] {
        // Secret randomness (the default): fresh sampling and noise each repeat.
        lambda = runDpMixMin(objective, params).value().lambda;
    });

    auto full = params;
    full.q = 1.0;  // every example every step: the worst case for the gradient loop
    full.noise = NoiseMode::None;
    timeIt("same, q = 1 (10000 examples per step, no noise)", repeats,
           [&] { (void)runDpMixMin(objective, full).value(); });

    std::vector<long long> ids(static_cast<std::size_t>(n));
    for (int j = 0; j < n; ++j) ids[static_cast<std::size_t>(j)] = j % 500;  // 500 users x 20 examples
    const auto users = makeUserGroupsFromIds(ids).value();
    auto userParams = DpMixMinParamsBuilder::imagingDefaults()
                          .epsilon(1.0)
                          .steps(1000)
                          .expectedBatch(100)
                          .maxExamplesPerUser(15)
                          .build(500, dpmix::privacy::PrivacyUnit::User)
                          .value();
    timeIt("DP-MixMin Alg. 2: 500 users x 20, 100 users/step, G = 15", repeats,
           [&] { (void)runUserLevelDpMixMin(objective, users, userParams).value(); });

    NonPrivateResult star;
    timeIt("non-private MixMin to FW gap <= 1e-6", repeats, [&] { star = solveNonPrivateMixMin(objective).value(); });
    std::printf("  iterations = %lld, gap = %.2e, converged = %d\n", star.iterations, star.gap, star.converged ? 1 : 0);

    timeIt("Random Search, m = 100", repeats,
           [&] { (void)randomSearch(objective, {.candidates = 100, .seed = 1}).value(); });
    return 0;
}
