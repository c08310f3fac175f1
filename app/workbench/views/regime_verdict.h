#pragma once
// The Summary's verdict on the study's own downstream results against the baselines: at the ε the
// verdict speaks of, DP-MixMin − Random Init and DP-MixMin − Uniform paired over seeds, with 95%
// intervals (engine/experiments/regime_map.h, regimeCellsOf), said the way the regime map says it
// ("DP-MixMin beat Random Init (+0.031 [+0.012, +0.050] AUC, 3 seeds); it did not differ from
// Uniform beyond seed noise (…)", engine/experiments/regime_advice.h, baselineVerdict).
#include "app/workbench/project/project_snapshot.h"
#include "engine/project/result_summary.h"

#include <QString>

#include <vector>

namespace dpmix::workbench {

/// Every finished run's stored test AUC (storedResultsOf(project, "test-auc")).
std::vector<project::ResultObservation> storedTestAuc(const ProjectSnapshot& project);

/// The sentence at `epsilon`, each baseline paired with DP-MixMin over the seeds both hold (per seed
/// the macro mean over the tasks both hold); empty when the project holds no DP-MixMin test AUC there, or no Random
/// Init or Uniform result beside it (a text study, a study before Compare with baselines).
QString baselineVerdictAt(const ProjectSnapshot& project, double epsilon);

}  // namespace dpmix::workbench
