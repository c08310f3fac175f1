#pragma once
// What each phase of an image study run costs, estimated before it runs, in one unit: examples
// passed forward and backward through a network, each training step also costing a fixed
// overhead of `stepOverhead` examples (kernel launches, the optimiser, thread hand-offs: at the
// small batches of a patient study it is most of a step). The job meter's plan (core/job_meter.h: one
// bar and one ETA for the whole run) and the confirm dialog's time estimate (the total times the
// seconds per example a short calibration measures on this machine) both read it.
//
// The factors are rough on purpose — a DP-SGD step computes per-example norms on top of the
// plain step (bench_dp_step: 1.1–1.4× on the reference CNN), an evaluation is a forward pass
// (about a third of a training step), mixture learning works on the proxies' k probabilities per
// example (far cheaper than a network pass): the meter extrapolates from the time actually spent,
// so the factors only weigh the phases against each other.
#include "engine/project/project_spec.h"
#include "engine/study_plan/run_options.h"

namespace dpmix::study_plan {

inline constexpr double kDpStepFactor = 1.3;         // example-level DP-SGD step / plain step
inline constexpr double kUserLevelStepFactor = 1.6;  // user-level DP-SGD step / plain step
inline constexpr double kEvaluationFactor = 1.0 / 3.0;
inline constexpr double kMixtureExampleCost = 0.02;  // one example of split A in one mixture run
// A step's fixed cost in examples when none was measured (the job meter's plan); the time estimate
// measures it (pipeline/step_calibration.h).
inline constexpr double kDefaultStepOverhead = 64.0;

/// Training the proxy: epochs over the public images (at most maxExamples of them), in batches.
double proxyWork(long long publicImages, const ProxyOptions& proxy, double stepOverhead = kDefaultStepOverhead);
/// One (seed, task)'s mixture stage: λ*, uniform, Random Search and `dpRuns` DP-MixMin runs on split A.
double mixtureWork(long long splitAExamples, long long dpRuns);
/// Pretraining on a mixture.
double pretrainWork(const project::PretrainStage& stage, double stepOverhead = kDefaultStepOverhead);
/// Private fine-tuning: steps × the expected batch, weighted for the DP step; AdaMix-R's steps
/// train a linear head on frozen features and count as plain steps.
double finetuneWork(const project::FinetuneStage& stage, bool userLevel, double stepOverhead = kDefaultStepOverhead);
/// Evaluating a model on the test images (and before fine-tuning, when it was pretrained).
double evaluationWork(long long testImages, bool pretrained);

}  // namespace dpmix::study_plan
