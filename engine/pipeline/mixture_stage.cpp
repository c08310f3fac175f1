#include "engine/pipeline/mixture_stage.h"

#include "engine/pipeline/mixture_records.h"
#include "engine/pipeline/release_randomness.h"

#include "engine/mixmin/dp_mixmin.h"
#include "engine/mixmin/nonprivate_mixmin.h"
#include "engine/mixmin/objective.h"
#include "engine/mixmin/params.h"
#include "engine/mixmin/random_search.h"
#include "engine/mixmin/user_groups.h"
#include "engine/mixmin/weight_metrics.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

namespace dpmix::pipeline {

Result<mixmin::UserGroups> userGroupsOf(const std::vector<std::string>& userOfRow, long long rows) {
    if (static_cast<long long>(userOfRow.size()) != rows)
        return Error{"user ids: " + std::to_string(userOfRow.size()) + " for " + std::to_string(rows) +
                     " examples of split A; expected one per example"};
    std::map<std::string, long long> index;
    std::vector<long long> ids;
    ids.reserve(userOfRow.size());
    for (std::size_t i = 0; i < userOfRow.size(); ++i) {
        if (userOfRow[i].empty())
            return Error{"example " + std::to_string(i) +
                         " of split A has no user: user-level DP needs every example's user"};
        ids.push_back(index.emplace(userOfRow[i], static_cast<long long>(index.size())).first->second);
    }
    return mixmin::makeUserGroupsFromIds(ids);
}

Result<mixmin::DpMixMinParams> dpMixMinParams(const MixtureRequest& request, long long units, bool userLevel,
                                              const std::string& task, double epsilon, std::uint64_t seed) {
    // q = B / units (examples, or users at user level), capped at 1 when split A is smaller
    // than the expected batch.
    const double batch = std::min<double>(static_cast<double>(request.stage.batch), static_cast<double>(units));
    mixmin::DpMixMinParamsBuilder builder;
    builder.epsilon(epsilon * request.budgetShare)
        .delta(request.delta * request.budgetShare)
        .expectedBatch(batch)
        .clipNorm(request.stage.clip)
        .stepSize(request.stage.lr)
        .steps(request.stage.steps)
        .release(request.stage.releaseAverage ? mixmin::ReleasedIterate::Average : mixmin::ReleasedIterate::Last)
        .randomness(
            releaseRandomness(request.reproducible, seed, releaseIdentity("mixture", "dp-mixmin", task, epsilon, seed)))
        .accountant(request.accountant)
        .split("A");
    if (userLevel) builder.maxExamplesPerUser(request.maxExamplesPerUser);
    auto params = builder.build(units, userLevel ? privacy::PrivacyUnit::User : privacy::PrivacyUnit::Example);
    if (!params) return Error{"task '" + task + "', mixture parameters: " + params.error().message};
    return params;
}

Result<MixtureOutcome> runMixtureStage(const MixtureInputs& in, const MixtureRequest& request,
                                       const ProgressCallback& progress, const CancellationToken& cancel) {
    auto objective = mixmin::makeBinaryObjective(in.proxyProbabilities, in.labels);
    if (!objective) return Error{"task '" + in.task + "': " + objective.error().message};
    const auto k = objective->sources();
    const auto n = objective->examples();

    MixtureOutcome out;
    out.task = in.task;
    out.componentNames = in.componentNames;
    out.examples = n;

    std::optional<mixmin::UserGroups> users;
    if (!in.users.empty()) {
        auto groups = userGroupsOf(in.users, n);
        if (!groups) return Error{"task '" + in.task + "': " + groups.error().message};
        users = std::move(groups).value();
        out.users = users->users();
    }
    // User level: F is the mean over users of each user's mean loss (what Algorithm 2 estimates).
    const Eigen::VectorXd weights = users ? users->userMeanWeights() : Eigen::VectorXd();

    auto star = mixmin::solveNonPrivateMixMin(*objective, {}, weights, {}, cancel);
    if (!star) return Error{"task '" + in.task + "', non-private MixMin: " + star.error().message};
    out.lambdaStar = star->lambda;
    out.lambdaStarGap = star->gap;

    out.lambdaUniform = Eigen::VectorXd::Constant(k, 1.0 / static_cast<double>(k));
    const auto uq = mixmin::compareWithReference(out.lambdaUniform, out.lambdaStar);
    out.uniformCosine = uq.cosine;
    out.uniformL1 = uq.l1;

    mixmin::RandomSearchOptions rs;
    rs.candidates = request.randomSearchCandidates;
    rs.seed = request.seeds.empty() ? 0 : request.seeds.front();
    auto search = mixmin::randomSearch(*objective, rs, weights, {}, cancel);
    if (!search) return Error{"task '" + in.task + "', random search: " + search.error().message};
    out.lambdaRandomSearch = search->lambda;
    const auto sq = mixmin::compareWithReference(out.lambdaRandomSearch, out.lambdaStar);
    out.randomSearchCosine = sq.cosine;
    out.randomSearchL1 = sq.l1;

    const long long total = static_cast<long long>(request.epsilons.size() * request.seeds.size());
    long long done = 0;
    for (double eps : request.epsilons) {
        for (auto seed : request.seeds) {
            throwIfCancelled(cancel);
            auto params = dpMixMinParams(request, users ? users->users() : n, users.has_value(), in.task, eps, seed);
            if (!params) return params.error();
            if (request.beforeMechanism)
                if (auto e = request.beforeMechanism(eps, seed, mixmin::plannedLedgerEntry(*params))) return *e;
            auto dp = users ? mixmin::runUserLevelDpMixMin(*objective, *users, *params, nullptr, {}, cancel)
                            : mixmin::runDpMixMin(*objective, *params, nullptr, {}, cancel);
            if (!dp) return Error{"task '" + in.task + "', DP-MixMin: " + dp.error().message};
            PrivateLambda p = privateLambdaFrom(*dp, eps, seed, out.lambdaStar);
            out.privateLambdas.push_back(std::move(p));
            report(progress, {"mixture", ++done, total, "task " + in.task});
        }
    }
    return out;
}

}  // namespace dpmix::pipeline
