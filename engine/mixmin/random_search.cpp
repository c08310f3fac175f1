#include "engine/mixmin/random_search.h"

#include "engine/core/seed_derivation.h"
#include "engine/mixmin/nonprivate_mixmin.h"
#include "engine/mixmin/simplex.h"

#include <random>

namespace dpmix::mixmin {

Result<RandomSearchResult> randomSearch(const MixtureObjective& objective, const RandomSearchOptions& o,
                                        const Eigen::VectorXd& weights, const ProgressCallback& progress,
                                        const CancellationToken& cancel) {
    if (o.candidates < 0)
        return Error{"candidates = " + std::to_string(o.candidates) + " is out of range: expected a count >= 0"};
    if (o.split.empty()) return Error{"split is empty: expected the name of the data split (e.g. A)"};
    if (auto e = checkExampleWeights(weights, objective.examples())) return *e;

    const auto words = seeds::randomSearchWords(o.seed);
    std::seed_seq seq(words.begin(), words.end());
    std::mt19937_64 rng(seq);
    RandomSearchResult r;
    r.lambda = uniformWeights(objective.sources());
    r.loss = objective.loss(r.lambda, weights);
    for (long long c = 1; c <= o.candidates; ++c) {
        throwIfCancelled(cancel);
        Eigen::VectorXd candidate = sampleUniformSimplex(objective.sources(), rng);
        const double f = objective.loss(candidate, weights);
        if (f < r.loss) {
            r.loss = f;
            r.lambda = std::move(candidate);
            r.chosenIndex = c;
        }
        report(progress, {"random-search", c, o.candidates, ""});
    }
    r.evaluated = o.candidates + 1;
    r.ledgerEntry =
        privacy::nonPrivateEntry("random-search", o.split,
                                 "Random Search baseline: the best of " + std::to_string(r.evaluated) +
                                     " candidate mixtures was selected on split " + o.split + " without DP");
    return r;
}

}  // namespace dpmix::mixmin
