#include "engine/text/perplexity.h"

#include <cmath>

namespace dpmix::text {
namespace {

Status checkLambda(const Eigen::VectorXd& lambda, std::size_t models) {
    if (static_cast<std::size_t>(lambda.size()) != models)
        return Error{"mixture weights λ: got " + std::to_string(lambda.size()) + " weights, expected " +
                     std::to_string(models) + " (one per model)"};
    for (Eigen::Index i = 0; i < lambda.size(); ++i)
        if (!std::isfinite(lambda[i]) || lambda[i] < 0)
            return Error{"mixture weights λ: λ[" + std::to_string(i) + "] = " + std::to_string(lambda[i]) +
                         ", expected a finite value ≥ 0"};
    if (std::abs(lambda.sum() - 1.0) > 1e-9)
        return Error{"mixture weights λ: they sum to " + std::to_string(lambda.sum()) + ", expected 1"};
    return std::nullopt;
}

Result<double> fromTotals(double negativeLogLikelihood, std::size_t positions) {
    if (positions == 0) return Error{"perplexity: no documents to score"};
    return std::exp(negativeLogLikelihood / static_cast<double>(positions));
}

}  // namespace

Result<double> perplexity(const LanguageModel& model, std::span<const std::vector<TokenId>> documents,
                          std::size_t maxPositions) {
    const LanguageModel* models[] = {&model};
    return mixturePerplexity(models, Eigen::VectorXd::Ones(1), documents, maxPositions);
}

Result<double> mixturePerplexity(std::span<const LanguageModel* const> models, const Eigen::VectorXd& lambda,
                                 std::span<const std::vector<TokenId>> documents, std::size_t maxPositions) {
    if (models.empty()) return Error{"perplexity: no models"};
    if (auto error = checkLambda(lambda, models.size())) return *error;
    const int vocabularySize = models[0]->vocabulary().size;
    for (std::size_t i = 1; i < models.size(); ++i)
        if (models[i]->vocabulary().size != vocabularySize)
            return Error{"perplexity: model " + std::to_string(i) + " has vocabulary size " +
                         std::to_string(models[i]->vocabulary().size) + ", model 0 has " +
                         std::to_string(vocabularySize)};
    for (std::size_t d = 0; d < documents.size(); ++d)
        for (std::size_t t = 0; t < documents[d].size(); ++t)
            if (documents[d][t] < 0 || documents[d][t] >= vocabularySize)
                return Error{"perplexity: document " + std::to_string(d) + ", token " + std::to_string(t) + ": id " +
                             std::to_string(documents[d][t]) + " is outside the vocabulary"};

    double nll = 0.0;
    std::size_t positions = 0;
    for (const auto& doc : documents) {
        std::vector<double> mixed(scoredPositions(doc.size(), maxPositions), 0.0);
        for (std::size_t i = 0; i < models.size(); ++i) {
            if (lambda[static_cast<Eigen::Index>(i)] == 0.0) continue;
            const std::vector<double> p = positionProbabilities(*models[i], doc, maxPositions);
            for (std::size_t t = 0; t < p.size(); ++t) mixed[t] += lambda[static_cast<Eigen::Index>(i)] * p[t];
        }
        for (const double p : mixed) nll -= std::log(p);
        positions += mixed.size();
    }
    return fromTotals(nll, positions);
}

Result<double> mixturePerplexity(const LmMixtureInputs& inputs, const Eigen::VectorXd& lambda) {
    if (inputs.tokenProbabilities.rows() == 0)
        return Error{"perplexity: the LM inputs have no token matrix (computed with tokenMatrix = false?)"};
    if (auto error = checkLambda(lambda, static_cast<std::size_t>(inputs.tokenProbabilities.cols()))) return *error;
    const Eigen::VectorXd mixed = inputs.tokenProbabilities * lambda;
    return fromTotals(-mixed.array().log().sum(), static_cast<std::size_t>(mixed.size()));
}

}  // namespace dpmix::text
