#pragma once
// Reusing a released DP-MixMin λ in a downstream run (docs/PRIVACY.md, "Reusing a released
// mixture"). A mixture-only run of DP-MixMin releases λ for one (seed, task, ε); pretraining on it
// and fine-tuning after it are post-processing of that release, so a later downstream run (the
// workbench's Compare with baselines) takes the stored λ instead of running the mechanism on split
// A again — no second spend. Its ledger carries the stored entry (the released model's guarantee
// includes it) marked with the run that spent it, and the budget counts it once, there.
#include "engine/pipeline/image_study.h"
#include "engine/pipeline/mixture_stage.h"
#include "engine/privacy/ledger.h"
#include "engine/project/project_file.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace dpmix::pipeline {

/// A stored DP-MixMin release one (seed, task, ε) of a downstream run reuses.
struct StoredMixture {
    long long runId = 0;
    std::vector<double> lambda;  // over the run's components, in order
    privacy::LedgerEntry entry;  // the stored run's, with spentInRun = runId
};

/// (seed, task, ε of the downstream run) → the release it reuses.
using StoredMixtures = std::map<std::tuple<std::uint64_t, std::string, double>, StoredMixture>;

/// What a stored run must match to be reused for one (seed, task, ε).
struct MixtureReuseQuery {
    std::uint64_t seed = 0;
    std::string task;
    double epsilon = 0.0;       // the downstream run's ε
    double spentEpsilon = 0.0;  // what its mixture spends: ε × the mixture's budget share
    std::string configJson;     // the mixture configuration a DP-MixMin mixture-only run stores
    privacy::Composition composition = privacy::Composition::Parallel;
    privacy::LedgerEntry planned;  // the entry DP-MixMin would record now on this split
    std::vector<std::string> componentNames;
};

/// The newest finished mixture-only DP-MixMin run of `runs` that matches `query`: same task, seed,
/// spent ε and configuration (which holds ρ, δ, the stage's values, the accountant and the
/// randomness), a last ledger of exactly one entry equal to the planned one (so the same mechanism
/// on the same split A) under the same composition, and a private λ over the same components.
/// Nothing when none does — the run then learns λ again.
std::optional<StoredMixture> findStoredMixture(const project::ProjectFile& project,
                                               const std::vector<project::RunRecord>& runs,
                                               const MixtureReuseQuery& query);

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

/// The released λ of every ε of `epsilons`, in order: learned now (`learnedNow.privateLambdas`
/// holds those, in order) or taken from its stored run (each said to `say`).
MixtureOutcome withReusedLambdas(const StoredMixtures& reused, const std::vector<double>& epsilons,
                                 const std::string& task, std::uint64_t seed, MixtureOutcome learnedNow,
                                 const std::function<void(const std::string&)>& say);

/// The stored release as the mixture stage's outcome would hold it, measured against `lambdaStar`.
PrivateLambda reusedPrivateLambda(const StoredMixture& stored, double epsilon, std::uint64_t seed,
                                  const Eigen::VectorXd& lambdaStar);

}  // namespace dpmix::pipeline
