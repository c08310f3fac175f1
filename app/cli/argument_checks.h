#pragma once
// The command-line checks all `dpmix` commands share: a list flag (comma-separated) given empty is
// refused instead of meaning "the default" (`--epsilon ''` once ran with the spec's ε), and a
// thread count is bounded (`--threads 100000` started that many threads and gave no answer in
// 120 s).
#include <CLI/CLI.hpp>

namespace dpmix::cli {

/// Adds the shared checks to the options of `app` and its sub-commands: a list (help says
/// "comma-separated", or --runs, --seed, --epsilon, --stages, --methods, --tasks) must name at
/// least one value, and --threads may ask for at most maxThreads().
void addSharedChecks(CLI::App& app);

/// The most compute threads a flag may ask for: 4 per core (at least 4).
int maxThreads();

}  // namespace dpmix::cli
