#pragma once
// The Random Search baseline (docs/ALGORITHMS.md A.7.3, F.13): score the uniform λ and m candidates
// drawn uniformly from the simplex (Dirichlet(1)) by F on split A and keep the best. This
// selection uses the sensitive split WITHOUT differential privacy; the result's ledger entry
// says so (NonPrivate, ε = ∞), as the paper's baseline does.
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/mixmin/objective.h"
#include "engine/privacy/ledger.h"

#include <Eigen/Dense>

#include <cstdint>
#include <string>

namespace dpmix::mixmin {

struct RandomSearchOptions {
    long long candidates = 100;  // m random candidates, besides the uniform λ
    std::uint64_t seed = 0;
    std::string split = "A";
};

struct RandomSearchResult {
    Eigen::VectorXd lambda;     // the candidate with the lowest F (first one on ties)
    double loss = 0.0;          // its F on split A (non-private)
    long long chosenIndex = 0;  // 0 = the uniform λ, i = the i-th random candidate
    long long evaluated = 0;    // m + 1
    privacy::LedgerEntry ledgerEntry;
};

Result<RandomSearchResult> randomSearch(const MixtureObjective& objective, const RandomSearchOptions& options,
                                        const Eigen::VectorXd& weights = {}, const ProgressCallback& progress = {},
                                        const CancellationToken& cancel = {});

}  // namespace dpmix::mixmin
