#pragma once
// Every DP release an image study run will make, planned on the realised splits before anything
// runs: the exact ledger entries its mechanisms will record. The runner reserves them on the data
// set's budget (study_runner.cpp, preflight) and the workbench's spend preview shows them
// (planStudyReleases in study_runner.h), so what a user confirms is what the run charges.
#include "engine/core/result.h"
#include "engine/methods/method_plan.h"
#include "engine/pipeline/downstream_stage.h"
#include "engine/pipeline/image_study.h"
#include "engine/pipeline/mixture_reuse.h"
#include "engine/pipeline/mixture_stage.h"
#include "engine/privacy/privacy_budget.h"
#include "engine/project/project_spec.h"
#include "engine/study_plan/run_options.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dpmix::pipeline {

/// The fine-tuning a method's downstream run does, on the data its plan names: methods that chose
/// λ on split A fine-tune on split B, the others on the whole training set (docs/ALGORITHMS.md A.7).
DownstreamRequest downstreamRequest(methods::Method method, std::size_t task, const std::string& taskName,
                                    double epsilon, std::uint64_t seed, const RhoSplit& split,
                                    const std::vector<std::size_t>& wholeTrain, const project::ProjectSpec& spec,
                                    const study_plan::StudyRunOptions& options, bool reproducible);

/// Split A and split B of one seed together, in index order: the whole training set.
std::vector<std::size_t> wholeTrainOf(const RhoSplit& split);

/// Distinct users among the given sensitive images.
long long distinctUsers(const ImageStudy& study, const std::vector<std::size_t>& indices);

/// Every DP release of the run, with the exact ledger entries its mechanisms will record:
/// DP-MixMin's λ for each (seed, task, ε), and each method's fine-tuned model (Random Search and
/// λ* runs are not private: they are never releases and are not counted). A DP-MixMin λ in
/// `reused` is a stored run's release: not planned again (its fine-tuning still is).
Result<std::vector<privacy::BudgetRelease>> plannedReleases(
    const ImageStudy& study, const std::vector<std::uint64_t>& seeds, const std::vector<std::size_t>& tasks,
    const std::vector<double>& epsilons, const std::vector<methods::Method>& chosen, bool downstream,
    const MixtureRequest& request, double rho, const project::ProjectSpec& spec,
    const study_plan::StudyRunOptions& options, bool reproducible, const StoredMixtures& reused = {});

}  // namespace dpmix::pipeline
