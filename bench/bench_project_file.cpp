// Costs of the .dpmix project file: what a runner pays to record results (batched rows, and
// one transaction per call with synchronous=FULL), and what Verify pays to recheck the chain.
//   build/bin/bench_project_file [curve points, default 36000]
#include "engine/project/project_file.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <string>

#include <unistd.h>

using namespace dpmix::project;

namespace {

struct Timer {
    std::chrono::steady_clock::time_point wall = std::chrono::steady_clock::now();
    std::clock_t cpu = std::clock();
    void report(const char* what, double count, const char* unit) const {
        const double w = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall).count();
        const double c = double(std::clock() - cpu) / CLOCKS_PER_SEC;
        std::printf("%-44s wall %8.3f s  cpu %8.3f s", what, w, c);
        if (count > 0) std::printf("  (%.0f %s/s wall)", count / w, unit);
        std::printf("\n");
    }
};

ProjectSpec benchSpec() {
    ProjectSpec spec;
    spec.name = "bench";
    SpecSource pub;
    pub.written = {"pub", "idx", "pub.idx", {}};
    spec.publicSources.push_back(pub);
    spec.sensitive.written = {"priv", "idx", "priv.idx", {}};
    spec.privacy.epsilons = {1.0};
    spec.privacy.delta = 1e-5;
    spec.privacy.rho = 0.1;
    spec.seeds = {0};
    return spec;
}

}  // namespace

int main(int argc, char** argv) {
    const long long points = argc > 1 ? std::stoll(argv[1]) : 36000;
    const auto dir = std::filesystem::temp_directory_path() / ("bench_project_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const auto file = dir / "bench.dpmix";
    const SourceFacts facts{dpmix::data::SourceKind::Images, 100, {}, {}, 0, std::string(64, '0'), 1, 28, 28};

    Timer t0;
    auto created = ProjectFile::create(file, benchSpec(), {facts, facts});
    if (!created) {
        std::fprintf(stderr, "%s\n", created.error().message.c_str());
        return 1;
    }
    ProjectFile p = std::move(created).value();
    t0.report("create (schema + spec + 2 sources)", 0, "");
    const long long run = *p.addRun({"dp-mixmin", "", 1.0, 0, "{}"});

    std::vector<CurvePoint> curve;
    for (long long s = 0; s < points; ++s) curve.push_back({s, 1.0 / double(s + 1)});
    Timer t1;
    if (!p.addCurve(run, "loss", curve)) return 1;
    t1.report(("addCurve, " + std::to_string(points) + " points, one call").c_str(), double(points), "rows");

    std::vector<MetricRecord> metrics;
    for (int i = 0; i < 1000; ++i) metrics.push_back({run, "auc", "class-" + std::to_string(i), 0.5});
    Timer t2;
    if (!p.addMetrics(metrics)) return 1;
    t2.report("addMetrics, 1000 rows, one call", 1000, "rows");

    Timer t3;
    for (int i = 0; i < 200; ++i)
        if (!p.addLog(run, "info", "step " + std::to_string(i))) return 1;
    t3.report("addLog x 200 (one transaction each)", 200, "commits");

    Timer t4;
    auto v = p.verifyChain();
    t4.report("verifyChain (all rows)", double(v->rowsChecked), "rows");
    if (!v->ok) return 1;

    Timer t5;
    auto reopened = ProjectFile::open(file);
    t5.report("open", 0, "");
    std::printf("file size %.1f MB for %lld rows\n", double(std::filesystem::file_size(file)) / 1e6, v->rowsChecked);
    std::filesystem::remove_all(dir);
    return reopened ? 0 : 1;
}
