#pragma once
// Timing for the benchmarks: run a step `repetitions` times in one process and report the
// median, the fastest and the slowest (the machine is shared and noisy: compare within one run).
#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

namespace dpmix::bench {

struct Timing {
    double medianMs;
    double fastestMs;
    double slowestMs;
};

inline Timing timeIt(int repetitions, const std::function<void()>& step) {
    std::vector<double> ms;
    for (int i = 0; i < std::max(1, repetitions); ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        step();
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    return {ms[ms.size() / 2], ms.front(), ms.back()};
}

}  // namespace dpmix::bench
