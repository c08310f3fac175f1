#include "engine/pipeline/study_work_plan.h"

#include "engine/pipeline/planned_releases.h"

#include <set>
#include <string>

namespace dpmix::pipeline {

std::vector<JobMeter::Part> downstreamParts(const DownstreamRequest& req, bool userLevel, bool pretrains,
                                            double stepOverhead) {
    return {{"pretrain", pretrains ? study_plan::pretrainWork(req.pretrain, stepOverhead) : 0.0},
            {"finetune", study_plan::finetuneWork(req.finetune, userLevel, stepOverhead)}};
}

double downstreamWork(const DownstreamRequest& req, const ImageStudy& study, bool userLevel, bool pretrains,
                      double stepOverhead) {
    double work =
        study_plan::evaluationWork(static_cast<long long>(study.sensitiveSplit.test.size()), req.lambda.has_value());
    for (const auto& part : downstreamParts(req, userLevel, pretrains, stepOverhead)) work += part.cost;
    return work;
}

Result<double> plannedStudyWork(const StudyWorkScope& scope, const ImageStudy& st,
                                const study_plan::ProxyOptions& proxy, double stepOverhead) {
    double total = study_plan::proxyWork(static_cast<long long>(st.publicImages.size()), proxy, stepOverhead);
    if (!scope.mixture) return total;
    std::set<std::string> pretrained;
    for (auto seed : scope.seeds) {
        auto split = splitForRun(st, scope.rho, seed);
        if (!split) return split.error();
        const auto wholeTrain = wholeTrainOf(*split);
        for (std::size_t t : scope.tasks) {
            long long learned = 0;
            for (double eps : scope.epsilons) learned += scope.reused->count({seed, st.taskNames[t], eps}) ? 0 : 1;
            total += study_plan::mixtureWork(static_cast<long long>(split->a.size()), learned);
            if (!scope.downstream) continue;
            for (std::size_t e = 0; e < scope.epsilons.size(); ++e)
                for (const auto m : scope.methods) {
                    const auto& traits = methods::traitsOf(m);
                    DownstreamRequest req =
                        downstreamRequest(m, t, st.taskNames[t], scope.epsilons[e], seed, *split, wholeTrain,
                                          *scope.spec, *scope.options, scope.reproducible);
                    std::string key = std::string(traits.name) + "|" + std::to_string(seed);
                    if (traits.choice != methods::Choice::None) key += "|" + std::to_string(t);
                    if (traits.choice == methods::Choice::Private) key += "|" + std::to_string(e);
                    const bool withLambda = !traits.lambdaKind.empty();
                    if (withLambda) req.lambda = Eigen::VectorXd::Ones(1);  // any λ: only its presence counts
                    total += downstreamWork(req, st, scope.userLevel, withLambda && pretrained.insert(key).second,
                                            stepOverhead);
                }
        }
    }
    return total;
}

}  // namespace dpmix::pipeline
