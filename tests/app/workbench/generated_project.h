#pragma once
// A small finished study written directly with engine/project (no training): task "ac" over
// the two components "ab", "cd"; seeds 0 and 1; DP-MixMin at ε = 1 (both seeds) and ε = 2
// (seed 0). Every number is chosen by hand so the tests can state the expected means.
#include "engine/privacy/ledger.h"
#include "engine/project/project_file.h"
#include "tests/engine/project/project_fixture.h"

#include <QString>

namespace dpmix::workbench::testing {

struct GeneratedProject {
    QString path;
    long long dpRunEpsilon1Seed0 = 0;
    long long randomSearchRun = 0;
};

inline long long finishedRun(project::ProjectFile& file, const std::string& method, std::optional<double> epsilon,
                             long long seed) {
    const long long id = file.addRun({method, "ac", epsilon, seed, "{}"}).value();
    (void)file.setRunStatus(id, project::RunStatus::Running).value();
    (void)file.setRunStatus(id, project::RunStatus::Done).value();
    return id;
}

inline void addLambda(project::ProjectFile& file, long long run, const std::string& kind, std::vector<double> values) {
    (void)file.addLambda({run, kind, {"ab", "cd"}, std::move(values)}).value();
}

inline void addCloseness(project::ProjectFile& file, long long run, double cosine, double l1) {
    (void)file.addMetrics({{run, "cosine-to-lambda-star", "", cosine}, {run, "l1-to-lambda-star", "", l1}}).value();
}

/// Writes the project to `path` (replacing it).
inline GeneratedProject generateProject(const QString& path) {
    using namespace dpmix::project;
    GeneratedProject g;
    g.path = path;
    ProjectSpec spec = project::testing::tinySpec();
    spec.mixture.batch = 2;   // split A holds round(0.1 · 40) = 4 examples; a batch must fit in it
    spec.finetune.batch = 8;  // ... and split B about 29: fine-tuning's batch must fit in it too
    auto file = ProjectFile::create(path.toStdString(), spec, project::testing::tinyFacts(), true).value();
    // λ* per seed: (0.8, 0.2) and (0.6, 0.4).
    const std::vector<std::vector<double>> star = {{0.8, 0.2}, {0.6, 0.4}};
    // λ_DP at ε = 1 per seed: (0.7, 0.3) and (0.5, 0.5); cosine 0.9 and 0.7.
    const std::vector<std::vector<double>> dp = {{0.7, 0.3}, {0.5, 0.5}};
    const std::vector<double> dpCosine = {0.9, 0.7};
    for (long long seed : {0LL, 1LL}) {
        const long long np = finishedRun(file, "non-private-mixmin", std::nullopt, seed);
        addLambda(file, np, "non-private", star[seed]);
        const long long uniform = finishedRun(file, "uniform", std::nullopt, seed);
        addLambda(file, uniform, "uniform", {0.5, 0.5});
        addCloseness(file, uniform, 0.5, 0.6);
        const long long random = finishedRun(file, "random-search", std::nullopt, seed);
        addLambda(file, random, "random-search", {0.3, 0.7});
        addCloseness(file, random, 0.3, 0.8);
        privacy::Ledger randomLedger;
        randomLedger.record(privacy::nonPrivateEntry("random-search", "A", "best random mixture chosen without DP"));
        (void)file.recordLedger(random, randomLedger).value();
        if (seed == 0) g.randomSearchRun = random;

        const long long dpRun = finishedRun(file, "dp-mixmin", 1.0, seed);
        if (seed == 0) g.dpRunEpsilon1Seed0 = dpRun;
        addLambda(file, dpRun, "private", dp[seed]);
        addLambda(file, dpRun, "non-private", star[seed]);
        addCloseness(file, dpRun, dpCosine[seed], 0.2);
        (void)file.addCurve(dpRun, "lambda/ab", {{0, 0.5}, {1, 0.6}, {2, dp[seed][0]}}).value();
        (void)file.addCurve(dpRun, "lambda/cd", {{0, 0.5}, {1, 0.4}, {2, dp[seed][1]}}).value();
        privacy::Ledger ledger;
        ledger.record(
            privacy::gaussianEntry("mixture", "A", privacy::PrivacyUnit::Example, 0.25, 1.5, 100, 1e-5, 13.0));
        (void)file.recordLedger(dpRun, ledger).value();
    }
    const long long dp2 = finishedRun(file, "dp-mixmin", 2.0, 0);
    addLambda(file, dp2, "private", {0.8, 0.2});
    addCloseness(file, dp2, 0.95, 0.1);
    return g;
}

}  // namespace dpmix::workbench::testing
