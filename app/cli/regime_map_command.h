#pragma once
// `dpmix experiment regime-map`: the map of where private data selection pays
// (engine/experiment_runs/regime_map_runs.h; docs/RESULTS.md, "The regime map").
#include "app/cli/command.h"

namespace dpmix::cli {

void registerRegimeMap(CLI::App& experiment, CommandContext& ctx);

}  // namespace dpmix::cli
