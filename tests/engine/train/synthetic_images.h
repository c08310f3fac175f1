#pragma once
// Small synthetic image sets for the training tests (plain C++, no torch).
#include <cstdint>
#include <random>
#include <vector>

namespace dpmix::train::testing {

/// n single-channel side×side images of N(0, 1) noise; image j's source-i label (k sources)
/// is 1 when a bright square of +`signal` was added in quadrant i (i < 4), independently with
/// probability ½. labels: n × k floats.
struct SyntheticImages {
    std::vector<float> pixels;
    std::vector<float> labels;
    std::int64_t count = 0;
    int side = 0, sources = 0;
};

inline SyntheticImages makeQuadrantImages(std::int64_t n, int side, int sources, float signal, std::uint64_t seed) {
    SyntheticImages s;
    s.count = n;
    s.side = side;
    s.sources = sources;
    s.pixels.resize(static_cast<std::size_t>(n * side * side));
    s.labels.resize(static_cast<std::size_t>(n * sources));
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> noise(0.0f, 1.0f);
    std::bernoulli_distribution coin(0.5);
    const int half = side / 2;
    for (std::int64_t j = 0; j < n; ++j) {
        float* img = s.pixels.data() + j * side * side;
        for (int p = 0; p < side * side; ++p) img[p] = noise(rng);
        for (int i = 0; i < sources; ++i) {
            const bool on = coin(rng);
            s.labels[static_cast<std::size_t>(j * sources + i)] = on ? 1.0f : 0.0f;
            if (!on) continue;
            const int r0 = (i / 2) * half, c0 = (i % 2) * half;
            for (int r = r0; r < r0 + half; ++r)
                for (int c = c0; c < c0 + half; ++c) img[r * side + c] += signal;
        }
    }
    return s;
}

}  // namespace dpmix::train::testing
