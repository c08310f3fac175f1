#pragma once
// A tiny generated image study for the pipeline's tests (no downloaded data): IDX files of 8×8
// images in 4 classes, class c brightening quadrant c, so a proxy can tell them apart.
#include "engine/pipeline/proxy_stage.h"
#include "engine/pipeline/run_storage.h"
#include "engine/project/project_opener.h"
#include "../data/data_fixtures.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace dpmix::testing {

inline constexpr int kTinySide = 8;

/// Writes <dir>/<stem>-images.idx and <stem>-labels.idx with n images (class i mod 4).
inline void writeStudyImages(const std::string& dir, const std::string& stem, int n, std::uint64_t seed) {
    namespace fx = dpmix::data::fixtures;
    std::mt19937_64 rng(seed);
    std::vector<std::uint8_t> pixels, labels;
    for (int i = 0; i < n; ++i) {
        const int c = i % 4;
        labels.push_back(static_cast<std::uint8_t>(c));
        for (int y = 0; y < kTinySide; ++y)
            for (int x = 0; x < kTinySide; ++x) {
                const int quadrant = (y >= kTinySide / 2) * 2 + (x >= kTinySide / 2);
                pixels.push_back(static_cast<std::uint8_t>((quadrant == c ? 180 : 30) + rng() % 50));
            }
    }
    fx::writeFile(dir + "/" + stem + "-images.idx",
                  fx::idxBytes({static_cast<std::uint32_t>(n), kTinySide, kTinySide}, pixels));
    fx::writeFile(dir + "/" + stem + "-labels.idx", fx::idxBytes({static_cast<std::uint32_t>(n)}, labels));
}

/// The data layer's summary of a source, as the CLI gives it to project creation.
inline project::SourceSummarizer dataLayerSummarizer() { return pipeline::summarizeWithDataLayer; }

/// One epoch, small batches: a proxy in well under a second.
inline pipeline::ProxyOptions quickProxy() {
    pipeline::ProxyOptions p;
    p.epochs = 1;
    p.batch = 32;
    return p;
}

}  // namespace dpmix::testing
