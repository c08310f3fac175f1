#pragma once
// A tiny generated image study for the pipeline's tests (no downloaded data): IDX files of 8×8
// images in 4 classes, class c brightening quadrant c, so a proxy can tell them apart.
#include "../data/data_fixtures.h"
#include "engine/pipeline/proxy_stage.h"
#include "engine/pipeline/run_storage.h"
#include "engine/project/project_opener.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
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

/// Writes <dir>/<stem>/manifest.csv and n 8×8 PNG images (class i mod 4, as writeStudyImages)
/// for a csv-images source with a user column: columns Path, Patient, ab (class a or b), ac (a
/// or c); image i belongs to patient i / perUser, so each patient has `perUser` images.
inline void writeUserLevelImages(const std::string& dir, const std::string& stem, int n, int perUser,
                                 std::uint64_t seed) {
    namespace fx = dpmix::data::fixtures;
    std::mt19937_64 rng(seed);
    std::string csv = "Path,Patient,ab,ac\n";
    for (int i = 0; i < n; ++i) {
        const int c = i % 4;
        std::vector<std::uint8_t> pixels;
        for (int y = 0; y < kTinySide; ++y)
            for (int x = 0; x < kTinySide; ++x) {
                const int quadrant = (y >= kTinySide / 2) * 2 + (x >= kTinySide / 2);
                pixels.push_back(static_cast<std::uint8_t>((quadrant == c ? 180 : 30) + rng() % 50));
            }
        const std::string file = "img" + std::to_string(i) + ".png";
        fx::writePng(dir + "/" + stem + "/" + file, kTinySide, kTinySide, 1, pixels);
        csv += file + ",p" + std::to_string(i / perUser) + "," + (c <= 1 ? "1" : "0") + "," +
               (c == 0 || c == 2 ? "1" : "0") + "\n";
    }
    fx::writeFile(dir + "/" + stem + "/manifest.csv", csv);
}

/// The generated study's sources as spec members (writeStudyImages "pub", "sens" and, with
/// `extractor`, "ext"): the public IDX source "pub" (classes a–d), "ext" (classes w–z, which
/// trains the AdaMix-R experiment's frozen extractor) and the sensitive IDX source named
/// `sensitive` (classes a–d, example-level).
inline std::string tinyStudySources(bool extractor = false, const std::string& sensitive = "sens") {
    std::string sources = R"(  "public_sources": [{"name": "pub", "loader": "idx", "path": "pub-images.idx",
                      "options": {"labels": "pub-labels.idx", "classes": "a,b,c,d"}})";
    if (extractor)
        sources += R"(,
                     {"name": "ext", "loader": "idx", "path": "ext-images.idx",
                      "options": {"labels": "ext-labels.idx", "classes": "w,x,y,z"}})";
    return sources + R"(],
  "sensitive": {"name": ")" +
           sensitive + R"(", "loader": "idx", "path": "sens-images.idx",
                "options": {"labels": "sens-labels.idx", "classes": "a,b,c,d"}, "user_level": false},
)";
}

/// The spec members of the generated study's data: tinyStudySources and the tasks — public a, b,
/// cd; sensitive ab, ac. Each test adds its name, privacy targets, stages and seeds around it.
inline std::string tinyStudyData(const std::string& sensitive = "sens") {
    return tinyStudySources(false, sensitive) + R"(  "tasks": {
    "public": [{"name": "a", "classes": ["a"]}, {"name": "b", "classes": ["b"]}, {"name": "cd", "classes": ["c", "d"]}],
    "sensitive": [{"name": "ab", "classes": ["a", "b"]}, {"name": "ac", "classes": ["a", "c"]}]
  },
)";
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

/// Writes <dir>/<name>.json with `spec` and creates <dir>/<name>.dpmix from it with the data
/// layer (a test fixture: any error ends the test program).
inline project::ProjectFile createProjectFromSpecText(const std::string& dir, const std::string& name,
                                                      const std::string& spec) {
    std::ofstream(dir + "/" + name + ".json") << spec;
    auto created = project::createProjectFromSpecFile(dir + "/" + name + ".json", dir + "/" + name + ".dpmix",
                                                      dataLayerSummarizer());
    if (!created) {
        std::fprintf(stderr, "cannot create the test project %s: %s\n", name.c_str(), created.error().message.c_str());
        std::abort();
    }
    return std::move(created).value();
}

}  // namespace dpmix::testing
