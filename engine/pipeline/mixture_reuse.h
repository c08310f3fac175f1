#pragma once
// Reusing a released DP-MixMin λ in a downstream run (docs/PRIVACY.md, "Reusing a released
// mixture"). A mixture-only run of DP-MixMin releases λ for one (seed, task, ε); pretraining on it
// and fine-tuning after it are post-processing of that release, so a later downstream run (the
// workbench's Compare with baselines) takes the stored λ instead of running the mechanism on split
// A again — no second spend. Its ledger carries the stored entry (the released model's guarantee
// includes it) marked with the run that spent it, and the budget counts it once, there. What must
// match, and the lookup itself, are stored_mixture.h's, which the text study shares.
#include "engine/pipeline/image_study.h"
#include "engine/pipeline/mixture_stage.h"
#include "engine/pipeline/stored_mixture.h"
#include "engine/project/project_file.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dpmix::pipeline {

/// What a downstream run looks up (study_runner.cpp): its seeds, tasks and ε, the mixture request
/// DP-MixMin would run with, and the configuration and composition its runs store.
struct MixtureReuseScope {
    std::vector<std::uint64_t> seeds;
    std::vector<std::size_t> tasks;
    std::vector<double> epsilons;
    double rho = 0.0;
    const MixtureRequest* request = nullptr;
    std::string configJson;
    privacy::Composition composition = privacy::Composition::Parallel;
};

/// For every (seed, task, ε) of the scope, the newest finished mixture-only run of `project` whose
/// one ledger entry is what DP-MixMin would record now on the seed's split A (findStoredMixture).
Result<StoredMixtures> findReusableMixtures(const project::ProjectFile& project, const ImageStudy& study,
                                            const MixtureReuseScope& scope);

}  // namespace dpmix::pipeline
