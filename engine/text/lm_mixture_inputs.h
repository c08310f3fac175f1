#pragma once
// Turns the domain proxies + a set of (sensitive) documents into the inputs of the LM mixture
// objective (engine/mixmin/objective.h): per document j and domain i the per-token probabilities
// p_i(w_t | w_<t) (tokens × k matrix with offsets, for makeTokenObjective) and/or the sequence
// log-likelihood LL_ij = Σ_t log p_i(w_t | w_<t) with the token count L_j (makeSequenceObjective).
//
// Memory bound: each document contributes at most maxTokensPerDocument scored positions (its
// first tokens; EOS counts as a position, language_model.h), so the token matrix has at most
// n · cap · k doubles (1000 mails, cap 256, k = 10: 20 MB). The proxies see the sensitive text
// only as a deterministic per-document map: no privacy cost here (docs/TEXT.md, "Mixture-objective
// inputs").
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/data/source_loader.h"
#include "engine/mixmin/user_groups.h"
#include "engine/text/domain_proxies.h"

#include <Eigen/Core>

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace dpmix::text {

struct LmInputOptions {
    std::size_t maxTokensPerDocument = 256;  // scored positions kept per document (≥ 1)
    bool tokenMatrix = true;                 // fill tokenProbabilities + offsets
    bool sequenceLikelihoods = true;         // fill logLikelihoods + tokenCounts
    bool userLevel = false;                  // group examples by TextDocument::user (required non-empty)
};

struct LmMixtureInputs {
    /// Example j is input document documents[j]. Documents whose text has no tokens (empty after
    /// normalisation) are skipped: they would only score an EOS.
    std::vector<std::size_t> documents;
    Eigen::MatrixXd tokenProbabilities;       // Σ_j L_j × k: p_i of each scored position
    std::vector<Eigen::Index> offsets;        // n + 1: example j owns rows [offsets[j], offsets[j+1])
    Eigen::MatrixXd logLikelihoods;           // n × k: LL_ij (natural log, ≤ 0)
    std::vector<long long> tokenCounts;       // n: L_j, scored positions after the cap
    std::optional<mixmin::UserGroups> users;  // userLevel only: users in order of first appearance
    std::vector<std::string> userIds;         // userLevel only: user u's TextDocument::user
};

Result<LmMixtureInputs> computeLmMixtureInputs(const DomainProxies& proxies,
                                               std::span<const data::TextDocument> documents,
                                               const LmInputOptions& options = {},
                                               const ProgressCallback& progress = {},
                                               const CancellationToken& cancel = {});

}  // namespace dpmix::text
