#pragma once
// One DP-MixMin release of a study as JSON: the fields `dpmix run --json` (image studies) and
// `dpmix-text run --json` (text studies, which add users and perplexities) print alike.
#include "engine/pipeline/study_runner.h"

#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include <vector>

namespace dpmix::cli {

inline std::vector<double> vectorOf(const Eigen::VectorXd& v) { return {v.data(), v.data() + v.size()}; }

/// The private λ of one (ε, seed) beside the baselines' λ and their distances, with the split.
inline nlohmann::ordered_json privateLambdaJson(const pipeline::MixtureReport& m, const pipeline::PrivateLambda& p) {
    const auto& o = m.outcome;
    return {{"task", o.task},
            {"seed", p.seed},
            {"epsilon", p.epsilon},
            {"rho", m.rho},
            {"split_a", m.splitA},
            {"split_b", m.splitB},
            {"components", o.componentNames},
            {"lambda_dp", vectorOf(p.lambda)},
            {"lambda_star", vectorOf(o.lambdaStar)},
            {"lambda_uniform", vectorOf(o.lambdaUniform)},
            {"lambda_random_search", vectorOf(o.lambdaRandomSearch)},
            {"cos_dp", p.cosine},
            {"l1_dp", p.l1},
            {"cos_uniform", o.uniformCosine},
            {"l1_uniform", o.uniformL1},
            {"cos_random_search", o.randomSearchCosine},
            {"sigma", p.sigma},
            {"epsilon_spent", p.epsilonSpent},
            {"delta", p.delta}};
}

}  // namespace dpmix::cli
