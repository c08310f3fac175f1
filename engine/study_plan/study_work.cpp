#include "engine/study_plan/study_work.h"

#include <algorithm>

namespace dpmix::study_plan {

double proxyWork(long long publicImages, const ProxyOptions& proxy, double stepOverhead) {
    const long long seen =
        std::max(0LL, proxy.maxExamples > 0 ? std::min(publicImages, proxy.maxExamples) : publicImages);
    const long long batch = std::max(1LL, proxy.batch);
    const double steps =
        static_cast<double>(std::max(0, proxy.epochs)) * static_cast<double>((seen + batch - 1) / batch);
    return static_cast<double>(std::max(0, proxy.epochs)) * static_cast<double>(seen) + steps * stepOverhead;
}

double mixtureWork(long long splitAExamples, long long dpRuns) {
    // λ* and Random Search each see split A about as often as a DP-MixMin run does.
    return kMixtureExampleCost * static_cast<double>(std::max(0LL, splitAExamples)) *
           static_cast<double>(2 + std::max(0LL, dpRuns));
}

double pretrainWork(const project::PretrainStage& stage, double stepOverhead) {
    return static_cast<double>(std::max(0LL, stage.steps)) *
           (static_cast<double>(std::max(0LL, stage.batch)) + stepOverhead);
}

double finetuneWork(const project::FinetuneStage& stage, bool userLevel, double stepOverhead) {
    const double steps = static_cast<double>(std::max(0LL, stage.steps));
    if (stage.mechanism == methods::FinetuneMechanism::AdamixR) return steps;  // a linear head: next to nothing
    const double factor = userLevel ? kUserLevelStepFactor : kDpStepFactor;
    // The DP step's extra work (per-example norms, the noise) grows with the batch; its fixed cost
    // is a plain step's.
    return steps * (factor * static_cast<double>(std::max(0LL, stage.batch)) + stepOverhead);
}

double evaluationWork(long long testImages, bool pretrained) {
    return kEvaluationFactor * static_cast<double>(std::max(0LL, testImages)) * (pretrained ? 2.0 : 1.0);
}

}  // namespace dpmix::study_plan
