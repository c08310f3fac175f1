#pragma once
// Perplexity = exp(mean per-position negative log-likelihood), pooled over all scored positions of
// all documents (language_model.h: tokens then EOS). For a λ-mixture of domain models the
// per-position probability is p_λ(w | ctx) = Σ_i λ_i p_i(w | ctx). Used for sanity checks
// (each domain's model should win on its own held-out text) and as a cheap mixture metric.
#include "engine/core/result.h"
#include "engine/text/language_model.h"
#include "engine/text/lm_mixture_inputs.h"

#include <Eigen/Core>

#include <cstddef>
#include <span>
#include <vector>

namespace dpmix::text {

/// Documents are token-id sequences (no BOS/EOS); maxPositions caps each (0 = no cap).
Result<double> perplexity(const LanguageModel& model, std::span<const std::vector<TokenId>> documents,
                          std::size_t maxPositions = 0);

/// λ: one weight per model, finite, ≥ 0, summing to 1 within 1e-9; models share a vocabulary.
Result<double> mixturePerplexity(std::span<const LanguageModel* const> models, const Eigen::VectorXd& lambda,
                                 std::span<const std::vector<TokenId>> documents, std::size_t maxPositions = 0);

/// The same from already computed inputs (their token matrix): no re-scoring.
Result<double> mixturePerplexity(const LmMixtureInputs& inputs, const Eigen::VectorXd& lambda);

}  // namespace dpmix::text
