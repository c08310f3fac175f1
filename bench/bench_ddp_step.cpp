// Data-parallel DP-SGD: the step time of 1 rank against W local ranks (docs/BENCHMARKS.md,
// "Data-parallel DP-SGD"; docs/CLUSTER.md, "Reading the scaling"). The demo's small CNN (28×28×1,
// one logit) on N random images, expected batch B, σ = 1 (no calibration), seeded randomness; the
// engine path of `dpmix run --ranks W` (engine/distributed/local_ranks.h): rank 0 in this process,
// ranks 1..W−1 child processes of this program, each with --threads T torch threads. A step is timed
// on rank 0 from the end of the previous step to the end of its update, so it includes the
// all-reduce and hence waits for the slowest rank; the first step (start-up) is not counted.
// Usage: bench_ddp_step [--ranks W] [--threads T] [--batch B] [--steps S] [--examples N]
//        (children: bench_ddp_step --threads T rank --port P --rank R --ranks W --timeout-ms MS)
#include "engine/core/malloc_tuning.h"
#include "engine/distributed/local_ranks.h"
#include "engine/train/model.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <system_error>
#include <vector>

using namespace dpmix;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
    int ranks = 2, threads = 1, batch = 256, steps = 25;
    long long examples = 8192;
};

long long argAfter(const std::vector<std::string>& args, const std::string& flag, long long fallback) {
    const auto it = std::find(args.begin(), args.end(), flag);
    return it != args.end() && it + 1 != args.end() ? std::stoll(*(it + 1)) : fallback;
}

// A child: rank R of W, as `dpmix rank` runs it.
int runChildRank(const std::vector<std::string>& args) {
    train::setTorchThreads(static_cast<int>(argAfter(args, "--threads", 1)));
    distributed::RankAddress address;
    address.port = static_cast<int>(argAfter(args, "--port", 0));
    address.timeout = std::chrono::milliseconds(argAfter(args, "--timeout-ms", 30000));
    const auto e = distributed::runRank(address, static_cast<int>(argAfter(args, "--rank", 1)),
                                        static_cast<int>(argAfter(args, "--ranks", 2)));
    if (e) std::fprintf(stderr, "bench_ddp_step rank: %s\n", e->message.c_str());
    return e ? 1 : 0;
}

struct StepTimes {
    double medianMs = 0.0, fastestMs = 0.0;
    std::size_t counted = 0;
};

// S + 1 steps on `ranks` ranks; the times of steps 2..S+1 on rank 0.
StepTimes timeSteps(const Options& o, int ranks) {
    std::mt19937 gen(5);
    std::normal_distribution<float> pixel(0.0f, 1.0f);
    std::vector<float> pixels(static_cast<std::size_t>(o.examples) * 784);
    for (float& p : pixels) p = pixel(gen);
    std::vector<int> labels(static_cast<std::size_t>(o.examples));
    for (std::size_t i = 0; i < labels.size(); ++i) labels[i] = static_cast<int>(i % 2);
    const train::ImageView images{pixels, o.examples, 1, 28, 28};
    auto spec = train::ModelSpecBuilder().kind(train::ModelKind::SmallCnn).input(1, 28, 28).outputs(1).build();
    train::Model model = train::Model::create(*spec, 1, "cpu");
    auto params = train::DpSgdParamsBuilder()
                      .sigma(1.0)
                      .learningRate(0.1)
                      .expectedBatchSize(o.batch)
                      .steps(o.steps + 1)
                      .ranks(ranks)
                      .reproducible(1, "bench")
                      .build();
    distributed::LocalRankSettings settings;
    std::error_code ec;
    settings.program = std::filesystem::read_symlink("/proc/self/exe", ec).string();
    settings.ranks = ranks;
    settings.threadsPerRank = o.threads;
    std::vector<double> ms;
    Clock::time_point last;
    settings.checks.afterEachStep = [&](long long t) {
        const auto now = Clock::now();
        if (t > 1) ms.push_back(std::chrono::duration<double, std::milli>(now - last).count());
        last = now;
    };
    privacy::Ledger ledger;
    auto r = distributed::finetuneOnLocalRanks(settings, model, images, labels, {}, *params, ledger, {}, {});
    if (!r) {
        std::fprintf(stderr, "bench_ddp_step: %s\n", r.error().message.c_str());
        return {};
    }
    std::sort(ms.begin(), ms.end());
    return {ms[ms.size() / 2], ms.front(), ms.size()};
}

}  // namespace

int main(int argc, char** argv) {
    tuneMallocForTraining();
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (std::find(args.begin(), args.end(), "rank") != args.end()) return runChildRank(args);
    Options o;
    o.ranks = static_cast<int>(argAfter(args, "--ranks", o.ranks));
    o.threads = static_cast<int>(argAfter(args, "--threads", o.threads));
    o.batch = static_cast<int>(argAfter(args, "--batch", o.batch));
    o.steps = static_cast<int>(argAfter(args, "--steps", o.steps));
    o.examples = argAfter(args, "--examples", o.examples);
    train::setTorchThreads(o.threads);
    std::printf("small CNN 28x28, N = %lld, expected batch %d, %d timed steps, %d torch thread(s) per rank\n",
                o.examples, o.batch, o.steps, o.threads);
    std::printf("%-6s %12s %12s %16s %10s\n", "ranks", "median ms", "fastest ms", "examples/s (med)", "speed-up");
    double oneRank = 0.0;
    for (int w : {1, o.ranks}) {
        const StepTimes t = timeSteps(o, w);
        if (t.counted == 0) return 1;
        if (w == 1) oneRank = t.medianMs;
        std::printf("%-6d %12.1f %12.1f %16.0f %9.2fx\n", w, t.medianMs, t.fastestMs, o.batch / (t.medianMs / 1000.0),
                    oneRank / t.medianMs);
        if (o.ranks == 1) break;
    }
    return 0;
}
