#pragma once
// Whether a study's DP-SGD fine-tunings can run data-parallel on several ranks (docs/CLUSTER.md,
// "Ranks"; docs/PRIVACY.md, "Data-parallel DP-SGD"): one rule for `dpmix run --ranks N`, for
// `--executor slurm --ranks N` and for the workbench's Run on cluster…, checked before anything runs.
#include "engine/project/project_spec.h"
#include "engine/study_plan/run_options.h"

#include <optional>
#include <string>

namespace dpmix::study_plan {

/// The most ranks a fine-tuning is split over (local processes, or Slurm tasks per unit).
inline constexpr int kMostRanks = 64;

/// Why the fine-tunings of this study cannot run on `ranks` ranks, or nothing (always nothing for
/// 1 rank): a rank count outside 1..kMostRanks, a text study (its fine-tuning runs in one
/// dpmix-text process), or a fine-tuning mechanism other than DP-SGD (the Dirichlet mechanism's and
/// AdaMix-R's noise is not one Gaussian added once to a sum of clipped gradients).
std::optional<std::string> dataParallelRefusal(int ranks, bool textStudy, const project::ProjectSpec& spec,
                                               const StudyRunOptions& options);

}  // namespace dpmix::study_plan
