#pragma once
// The grid of the regime map (regime_map.h): which studies to run and how. A pool is a spec whose
// public sources form one pool; for each sensitive set size n the map runs the pool's study on
// the sensitive source's first n examples (option `limit`), every method on the same seeds, at
// each ε. Torch-free: the CLI and the Slurm route plan from it.
#include "engine/core/result.h"
#include "engine/project/project_spec.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dpmix::experiments {

struct RegimeGrid {
    std::vector<long long> sizes;                           // sensitive examples; 0 = all of the source
    std::vector<double> epsilons;                           // each > 0
    std::vector<std::uint64_t> seeds;                       // ≥ 1; 3 or more for an interval worth reading
    std::vector<std::string> methods;                       // empty: every method
    std::vector<std::string> tasks;                         // empty: every sensitive task
    std::optional<long long> pretrainSteps, finetuneSteps;  // unset: each pool spec's
    std::optional<double> rho;                              // unset: each pool spec's
    std::optional<std::string> model;                       // unset: each pool spec's stages.finetune.model
    std::optional<long long> resnetWidth;                   // unset: each pool spec's (model resnet18 only)
};

/// Sizes ≥ 0 without repeats, ε in range without repeats, at least one seed, no repeated seed, a
/// known model; the message names the flag (--sizes, --epsilons, --seeds, --model).
Status checkRegimeGrid(const RegimeGrid& grid);

/// The name of the study of `pool` at size n ("fashion-n2000", "fashion-all"); with a model other
/// than the pool's, the model follows ("fashion-n2000-resnet18", "fashion-n2000-resnet18-w16"), so
/// its runs get a project of their own.
std::string regimeStudyName(const std::string& pool, long long n, const std::string& otherModel = {});

/// The pool's spec restricted to the sensitive source's first n examples (n = 0: all of it), with
/// δ lowered where needed to the largest power of ten at or below 1/(10·n) so it stays well below
/// one in the number of examples, and the study's name; with `model` and `resnetWidth`, its
/// stages.finetune.model and resnet_width (a width needs ResNet-18). The sensitive source must not
/// already carry a `limit` (the map owns n); the errors say so.
Result<project::ProjectSpec> regimeStudySpec(const project::ProjectSpec& pool, long long n,
                                             const std::optional<std::string>& model = std::nullopt,
                                             std::optional<long long> resnetWidth = std::nullopt);

}  // namespace dpmix::experiments
