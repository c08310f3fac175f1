#pragma once
// An image study run's work, planned before it runs (study_plan/study_work.h's costs applied to
// the run's seeds, tasks, ε and methods): the job meter's plan — one bar and one ETA for the whole
// run — and, times a step timed on this machine, the confirm dialog's time estimate.
#include "engine/core/job_meter.h"
#include "engine/core/result.h"
#include "engine/methods/method_plan.h"
#include "engine/pipeline/downstream_stage.h"
#include "engine/pipeline/image_study.h"
#include "engine/pipeline/mixture_reuse.h"
#include "engine/study_plan/run_options.h"
#include "engine/study_plan/study_work.h"

#include <cstdint>
#include <vector>

namespace dpmix::pipeline {

/// What the plan needs of a study run (study_runner.cpp's StudyRun).
struct StudyWorkScope {
    std::vector<std::uint64_t> seeds;
    std::vector<std::size_t> tasks;
    std::vector<double> epsilons;
    std::vector<methods::Method> methods;
    bool mixture = false, downstream = false, userLevel = false, reproducible = false;
    double rho = 0.0;
    const project::ProjectSpec* spec = nullptr;
    const study_plan::StudyRunOptions* options = nullptr;
    const StoredMixtures* reused = nullptr;  // mixtures not learned again
};

/// One method's downstream run as the job meter weighs it: pretraining (unless the cache holds
/// the model) and private fine-tuning, as the parts its stages report.
std::vector<JobMeter::Part> downstreamParts(const DownstreamRequest& req, bool userLevel, bool pretrains,
                                            double stepOverhead = study_plan::kDefaultStepOverhead);
/// The same with the evaluations.
double downstreamWork(const DownstreamRequest& req, const ImageStudy& study, bool userLevel, bool pretrains,
                      double stepOverhead = study_plan::kDefaultStepOverhead);

/// The whole run's estimated cost, phase by phase as runStudy goes: the proxy, each (seed, task)'s
/// mixture stage, each method's downstream run, with one pretraining per model the cache will
/// hold — uniform once per seed, λ* and Random Search once per (seed, task), DP-MixMin once per
/// (seed, task, ε).
Result<double> plannedStudyWork(const StudyWorkScope& scope, const ImageStudy& study,
                                const study_plan::ProxyOptions& proxy,
                                double stepOverhead = study_plan::kDefaultStepOverhead);

}  // namespace dpmix::pipeline
