#include "engine/study_plan/study_work.h"

#include <algorithm>

namespace dpmix::study_plan {

double proxyWork(long long publicImages, const ProxyOptions& proxy) {
    const long long seen = proxy.maxExamples > 0 ? std::min(publicImages, proxy.maxExamples) : publicImages;
    return static_cast<double>(std::max(0, proxy.epochs)) * static_cast<double>(std::max(0LL, seen));
}

double mixtureWork(long long splitAExamples, long long dpRuns) {
    // λ* and Random Search each see split A about as often as a DP-MixMin run does.
    return kMixtureExampleCost * static_cast<double>(std::max(0LL, splitAExamples)) *
           static_cast<double>(2 + std::max(0LL, dpRuns));
}

double pretrainWork(const project::PretrainStage& stage) {
    return static_cast<double>(std::max(0LL, stage.steps)) * static_cast<double>(std::max(0LL, stage.batch));
}

double finetuneWork(const project::FinetuneStage& stage, bool userLevel) {
    if (stage.mechanism == methods::FinetuneMechanism::AdamixR) return static_cast<double>(std::max(0LL, stage.steps));
    const double factor = userLevel ? kUserLevelStepFactor : kDpStepFactor;
    return factor * static_cast<double>(std::max(0LL, stage.steps)) * static_cast<double>(std::max(0LL, stage.batch));
}

double evaluationWork(long long testImages, bool pretrained) {
    return kEvaluationFactor * static_cast<double>(std::max(0LL, testImages)) * (pretrained ? 2.0 : 1.0);
}

}  // namespace dpmix::study_plan
