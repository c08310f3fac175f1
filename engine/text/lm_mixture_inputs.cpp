#include "engine/text/lm_mixture_inputs.h"

#include <chrono>
#include <cmath>
#include <unordered_map>

namespace dpmix::text {

namespace {

// User level: each scored document's user as a dense id (in order of first appearance), and the
// user groups of the examples.
Status groupByUser(std::span<const data::TextDocument> documents, LmMixtureInputs& out) {
    std::unordered_map<std::string, long long> idOf;
    std::vector<long long> userOfExample;
    for (const std::size_t d : out.documents) {
        const auto [it, inserted] = idOf.try_emplace(documents[d].user, static_cast<long long>(idOf.size()));
        if (inserted) out.userIds.push_back(documents[d].user);
        userOfExample.push_back(it->second);
    }
    auto groups = mixmin::makeUserGroupsFromIds(userOfExample);
    if (!groups) return groups.error();
    out.users = std::move(groups).value();
    return std::nullopt;
}

}  // namespace

Result<LmMixtureInputs> computeLmMixtureInputs(const DomainProxies& proxies,
                                               std::span<const data::TextDocument> documents,
                                               const LmInputOptions& options, const ProgressCallback& progress,
                                               const CancellationToken& cancel) {
    if (options.maxTokensPerDocument < 1) return Error{"max tokens per document: got 0, expected at least 1"};
    if (!options.tokenMatrix && !options.sequenceLikelihoods)
        return Error{"LM inputs: neither the token matrix nor the sequence log-likelihoods were requested"};
    if (options.userLevel)
        for (std::size_t j = 0; j < documents.size(); ++j)
            if (documents[j].user.empty())
                return Error{"document " + std::to_string(j) +
                             ": user-level inputs need a user id for every document, this one has none"};

    const std::size_t k = proxies.size();
    const Tokenizer& tokenizer = proxies.tokenizer();
    LmMixtureInputs out;
    std::vector<std::vector<double>> rows;  // per example: positions × k, row-major
    std::size_t totalPositions = 0;
    auto lastReport = std::chrono::steady_clock::now();
    for (std::size_t j = 0; j < documents.size(); ++j) {
        throwIfCancelled(cancel);
        const std::vector<TokenId> tokens = tokenizer.encode(documents[j].text);
        if (tokens.empty()) continue;
        const std::size_t positions = scoredPositions(tokens.size(), options.maxTokensPerDocument);
        std::vector<double> block(positions * k);
        for (std::size_t i = 0; i < k; ++i) {
            const std::vector<double> p = positionProbabilities(proxies.proxy(i), tokens, options.maxTokensPerDocument);
            for (std::size_t t = 0; t < positions; ++t) block[t * k + i] = p[t];
        }
        out.documents.push_back(j);
        rows.push_back(std::move(block));
        totalPositions += positions;
        if (std::chrono::steady_clock::now() - lastReport > std::chrono::milliseconds(250)) {
            lastReport = std::chrono::steady_clock::now();
            report(progress,
                   {"lm-inputs", static_cast<long long>(j + 1), static_cast<long long>(documents.size()), ""});
        }
    }
    if (out.documents.empty())
        return Error{"LM inputs: none of the " + std::to_string(documents.size()) + " documents has any text to score"};

    const auto n = static_cast<Eigen::Index>(out.documents.size());
    const auto kk = static_cast<Eigen::Index>(k);
    if (options.tokenMatrix) {
        out.tokenProbabilities.resize(static_cast<Eigen::Index>(totalPositions), kk);
        out.offsets.assign(1, 0);
    }
    if (options.sequenceLikelihoods) {
        out.logLikelihoods = Eigen::MatrixXd::Zero(n, kk);
        out.tokenCounts.reserve(out.documents.size());
    }
    Eigen::Index row = 0;
    for (Eigen::Index j = 0; j < n; ++j) {
        const std::vector<double>& block = rows[static_cast<std::size_t>(j)];
        const auto positions = static_cast<Eigen::Index>(block.size() / k);
        for (Eigen::Index t = 0; t < positions; ++t)
            for (Eigen::Index i = 0; i < kk; ++i) {
                const double p = block[static_cast<std::size_t>(t * kk + i)];
                if (options.tokenMatrix) out.tokenProbabilities(row + t, i) = p;
                if (options.sequenceLikelihoods) out.logLikelihoods(j, i) += std::log(p);
            }
        row += positions;
        if (options.tokenMatrix) out.offsets.push_back(row);
        if (options.sequenceLikelihoods) out.tokenCounts.push_back(positions);
    }

    if (options.userLevel)
        if (auto e = groupByUser(documents, out)) return *e;
    report(progress,
           {"lm-inputs", static_cast<long long>(documents.size()), static_cast<long long>(documents.size()), ""});
    return out;
}

}  // namespace dpmix::text
