#pragma once
// The per-source weights of a project's DP-MixMin λ against λ* as a table
// (engine/experiments/source_weights.h): `dpmix results --source-weights` and the regime map print it.
#include "engine/experiments/source_weights.h"

#include <string>
#include <vector>

namespace dpmix::cli {

void printSourceWeightRows(const std::string& title, const std::vector<experiments::SourceWeightRow>& rows);

}  // namespace dpmix::cli
