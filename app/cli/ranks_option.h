#pragma once
// `dpmix run … --ranks N`: the study's DP-SGD fine-tunings on N local processes (this one as rank 0,
// N − 1 `dpmix rank` children over loopback; docs/CLUSTER.md, "Ranks"), and the hidden `dpmix rank`
// command those children run.
#include "engine/pipeline/dp_sgd_on_ranks.h"
#include "engine/project/project_file.h"
#include "engine/study_plan/run_options.h"

#include <CLI/CLI.hpp>

#include <memory>
#include <optional>
#include <string>

namespace dpmix::cli {

struct CommandContext;

void addRanksOption(CLI::App& run, int& ranks);

/// --ranks N out of range (checked before the project is opened or created), or nothing.
std::optional<std::string> ranksOutOfRange(int ranks);

/// Why this run cannot take --ranks N (a message naming what is not supported), or nothing.
/// Checked before any stage runs.
std::optional<std::string> ranksRefusal(int ranks, bool textStudy, const project::ProjectSpec& spec,
                                        const study_plan::StudyRunOptions& options);

/// For ranks > 1: the runner every DP-SGD fine-tuning of this process uses until the returned
/// object goes; null for 1 rank (fine-tuning in this process, as without the option).
std::unique_ptr<pipeline::ScopedDpSgdOnRanks> installLocalRanks(int ranks);

void registerRankCommand(CLI::App& app, CommandContext& ctx);

}  // namespace dpmix::cli
