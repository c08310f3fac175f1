#pragma once
// How `dpmix experiment` prints its results: the k-scaling's and the AdaMix-R experiment's tables
// for a reader, or one JSON object (--json); the sweeps print theirs in experiment_command.cpp.
#include "engine/experiment_runs/adamix_experiment_stage.h"
#include "engine/experiment_runs/mixture_experiment_runs.h"

#include <string>

namespace dpmix::cli {

/// A value as the tables show it: the shortest decimal, "inf" for infinity.
std::string valueText(double v);
/// A private-per-class count: the number, or "all".
std::string perClassText(long long n);

void printKScalingReport(const experiment_runs::KScalingStageReport& r, const std::string& projectPath, long long seeds,
                         bool json);
void printAdamixReport(const experiment_runs::AdamixExperimentReport& r, const std::string& projectPath, bool json);

}  // namespace dpmix::cli
