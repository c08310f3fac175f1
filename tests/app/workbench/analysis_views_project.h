#pragma once
// A small project for the analysis views (AUC, perplexity, audit, k-scaling), written directly
// with engine/project (no training). Every number is chosen by hand so the tests can state the
// expected means, standard deviations, gains and slopes; the derivations are next to the values.
#include "engine/project/project_file.h"
#include "tests/engine/project/project_fixture.h"

#include <QString>

#include <cmath>

namespace dpmix::workbench::testing {

struct AnalysisViewsProject {
    QString path;
    long long kScalingRun = 0;
};

inline long long doneRun(project::ProjectFile& file, const std::string& method, const std::string& task,
                         std::optional<double> epsilon, long long seed, const std::string& config = "{}") {
    const long long id = file.addRun({method, task, epsilon, seed, config}).value();
    (void)file.setRunStatus(id, project::RunStatus::Running).value();
    (void)file.setRunStatus(id, project::RunStatus::Done).value();
    return id;
}

inline void addAuc(project::ProjectFile& file, const std::string& method, const std::string& task, double epsilon,
                   long long seed, double auc) {
    const long long id = doneRun(file, method, task, epsilon, seed);
    (void)file.addMetrics({{id, "test-auc", task, auc}, {id, "finetune-noise", "", 1.0}}).value();
}

inline void addAudit(project::ProjectFile& file, const std::string& task, std::optional<double> epsilon,
                     const std::string& name, double bound, long long fp, long long fn) {
    const long long id = doneRun(file, "audit", task, epsilon, 0);
    project::AuditRecord a;
    a.runId = id;
    a.name = name;
    a.counts = {fp, fn, 1000, 1000};
    a.delta = 1e-5;
    a.confidence = 0.95;
    a.epsilonLowerBound = bound;
    a.detailsJson = R"({"runs_per_world": 2000, "threshold": 0.5})";
    (void)file.addAudit(a).value();
}

/// Writes the project to `path` (replacing it). Tasks "ac" and "bd".
inline AnalysisViewsProject generateAnalysisViewsProject(const QString& path) {
    using namespace dpmix::project;
    AnalysisViewsProject g;
    g.path = path;
    ProjectSpec spec = project::testing::tinySpec();
    spec.sensitiveTasks = {{"ac", {"a", "c"}}, {"bd", {"b", "d"}}};
    spec.mixture.batch = 2;
    auto file = ProjectFile::create(path.toStdString(), spec, project::testing::tinyFacts(), true).value();

    // Downstream test AUC at ε = 1, seeds 0 and 1 (values per seed):
    //   task ac: DP-MixMin 0.60, 0.66; Uniform 0.55, 0.66; Random Init 0.50, 0.60
    //   task bd: DP-MixMin 0.88, 0.92; Uniform 0.84, 0.84; Random Init 0.80, 0.80
    // and at ε = 2 only DP-MixMin on task ac, seed 0: 0.70 (no Random Init there).
    const std::vector<std::tuple<std::string, std::string, double, double>> aucs = {
        {"dp-mixmin", "ac", 0.60, 0.66}, {"uniform", "ac", 0.55, 0.66}, {"random-init", "ac", 0.50, 0.60},
        {"dp-mixmin", "bd", 0.88, 0.92}, {"uniform", "bd", 0.84, 0.84}, {"random-init", "bd", 0.80, 0.80}};
    for (const auto& [method, task, seed0, seed1] : aucs) {
        addAuc(file, method, task, 1.0, 0, seed0);
        addAuc(file, method, task, 1.0, 1, seed1);
    }
    addAuc(file, "dp-mixmin", "ac", 2.0, 0, 0.70);

    // Text fine-tuning curves on task ac at ε = 1: DP-MixMin seeds 0 and 1, Uniform seed 0.
    const long long p0 = doneRun(file, "dp-mixmin", "ac", 1.0, 0);
    (void)file.addCurve(p0, "test-perplexity", {{0, 100.0}, {10, 60.0}, {20, 40.0}}).value();
    const long long p1 = doneRun(file, "dp-mixmin", "ac", 1.0, 1);
    (void)file.addCurve(p1, "test-perplexity", {{0, 110.0}, {10, 50.0}, {20, 44.0}}).value();
    const long long p2 = doneRun(file, "uniform", "ac", 1.0, 0);
    (void)file.addCurve(p2, "test-perplexity", {{0, 120.0}, {10, 80.0}}).value();

    // Audits: claimed ε = 1 (private) and no-noise controls (no ε); one private audit at ε = 2.
    addAudit(file, "ac", 1.0, "natural", 0.0, 490, 505);
    addAudit(file, "ac", 1.0, "max-clip", 0.12, 450, 460);
    addAudit(file, "ac", std::nullopt, "natural-no-noise", 0.5, 300, 320);
    addAudit(file, "ac", std::nullopt, "max-clip-no-noise", 5.6, 0, 0);
    addAudit(file, "bd", 1.0, "max-clip", 0.1, 470, 480);
    addAudit(file, "bd", 1.0, "max-clip", 0.3, 440, 450);
    addAudit(file, "bd", std::nullopt, "max-clip-no-noise", 4.0, 5, 7);
    addAudit(file, "ac", 2.0, "max-clip", 0.4, 400, 410);

    // k-scaling: per-task excess 0.01·√k (task a) and 0.03·√k (task b), except at k = 2 where
    // they are −0.01 and 0.005 (mean −0.0025: not drawable on a log axis). The mean curve is
    // 0.02·√k; the slope of log mean against log k over k ≥ 32 is exactly 0.5.
    g.kScalingRun = doneRun(file, "k-scaling", "", 1.0, 0, R"({"stage": "k-scaling", "min_k_for_fit": 32})");
    std::vector<CurvePoint> a, b, mean;
    for (long long k : {2LL, 8LL, 32LL, 128LL, 512LL}) {
        const double ea = k == 2 ? -0.01 : 0.01 * std::sqrt(static_cast<double>(k));
        const double eb = k == 2 ? 0.005 : 0.03 * std::sqrt(static_cast<double>(k));
        a.push_back({k, ea});
        b.push_back({k, eb});
        mean.push_back({k, (ea + eb) / 2.0});
    }
    (void)file.addCurve(g.kScalingRun, "excess", mean).value();
    (void)file.addCurve(g.kScalingRun, "excess/a", a).value();
    (void)file.addCurve(g.kScalingRun, "excess/b", b).value();
    (void)file.addMetrics({{g.kScalingRun, "slope", "", 0.5}, {g.kScalingRun, "slope-points", "", 3.0}}).value();
    return g;
}

}  // namespace dpmix::workbench::testing
