#pragma once
// The mixture stage for one sensitive binary task: from the proxies' predictions on split A,
// the non-private reference λ*, the uniform λ, the Random Search λ and DP-MixMin's λ for each
// (ε, seed) asked for, with their weight quality against λ* and their ledger entries.
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/mixmin/params.h"
#include "engine/mixmin/user_groups.h"
#include "engine/privacy/ledger.h"
#include "engine/project/project_spec.h"

#include <Eigen/Dense>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace dpmix::pipeline {

struct MixtureInputs {
    std::string task;
    Eigen::MatrixXd proxyProbabilities;  // n_A × k: P(source i positive | x_j), from public proxies
    std::vector<int> labels;             // n_A sensitive labels (0/1) of the task
    std::vector<std::string> componentNames;
    // User level: the user of each row of split A (n_A ids). Empty: example level.
    std::vector<std::string> users;
};

struct PrivateLambda {
    double epsilon = 0.0;
    std::uint64_t seed = 0;
    Eigen::VectorXd lambda;  // released λ_DP
    double sigma = 0.0;
    double epsilonSpent = 0.0;  // the ledger's ε for this step (≤ target)
    double delta = 0.0;
    double cosine = 0.0, l1 = 0.0;  // against λ*
    privacy::LedgerEntry ledgerEntry;
    std::vector<long long> trajectorySteps;       // t of each stored iterate
    std::vector<std::vector<double>> trajectory;  // λ_t (post-processing of the DP output)
};

struct MixtureOutcome {
    std::string task;
    std::vector<std::string> componentNames;
    long long examples = 0;      // n_A
    long long users = 0;         // m_A users at user level (0 at example level)
    Eigen::VectorXd lambdaStar;  // non-private MixMin on split A
    double lambdaStarGap = 0.0;  // Frank–Wolfe certificate of λ*
    Eigen::VectorXd lambdaUniform;
    double uniformCosine = 0.0, uniformL1 = 0.0;
    Eigen::VectorXd lambdaRandomSearch;  // best of m random λ, chosen non-privately on split A
    double randomSearchCosine = 0.0, randomSearchL1 = 0.0;
    std::vector<PrivateLambda> privateLambdas;  // one per (ε, seed)
};

struct MixtureRequest {
    std::vector<double> epsilons;
    std::vector<std::uint64_t> seeds;
    double delta = 1e-5;
    project::MixtureStage stage;  // clip, batch, lr, steps
    long long randomSearchCandidates = 100;
    bool reproducible = false;  // seeded DP-MixMin randomness (not a release); default secret
    privacy::Accountant accountant = privacy::Accountant::Rdp;  // calibrates σ, certifies the ledger entry
    // Share of each target (ε, δ) mixture learning may spend: 1 under parallel composition, ½ under
    // sequential composition (fine-tuning then spends the rest on the same people).
    double budgetShare = 1.0;
    // User level (MixtureInputs::users given): Algorithm 2, with stage.batch counting users and
    // at most this many examples of a sampled user per step (G_ULS).
    long long maxExamplesPerUser = 15;
    // Called with each DP-MixMin run's ledger entry just before its mechanism starts on split A
    // (so the caller can store the run and its conservative ledger first); an error aborts.
    std::function<Status(double epsilon, std::uint64_t seed, const privacy::LedgerEntry& planned)> beforeMechanism;
};

/// The users of split A's rows as a partition (ids numbered in order of first appearance);
/// errors for a row without a user.
Result<mixmin::UserGroups> userGroupsOf(const std::vector<std::string>& userOfRow, long long rows);

/// DP-MixMin's parameters for one (ε, seed) on `units` examples (users at user level): what
/// runMixtureStage runs, so mixmin::plannedLedgerEntry of them is what it will record.
Result<mixmin::DpMixMinParams> dpMixMinParams(const MixtureRequest& request, long long units, bool userLevel,
                                              const std::string& task, double epsilon, std::uint64_t seed);

/// Runs the whole mixture stage for one task. At user level λ*, Random Search and DP-MixMin all
/// target the mean over users of each user's mean loss, and DP-MixMin protects users. Progress counts DP runs;
/// cancellation is checked between and inside the runs.
Result<MixtureOutcome> runMixtureStage(const MixtureInputs& inputs, const MixtureRequest& request,
                                       const ProgressCallback& progress = {}, const CancellationToken& cancel = {});

}  // namespace dpmix::pipeline
