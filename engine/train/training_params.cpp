#include "engine/train/training_params.h"

#include "engine/privacy/parameters.h"

#include <cmath>

namespace dpmix::train {

using privacy::checkDelta;
using privacy::checkPositive;
using privacy::formatNumber;

std::string toString(OptimizerKind kind) { return kind == OptimizerKind::Sgd ? "sgd" : "adam"; }

bool parseOptimizerKind(const std::string& text, OptimizerKind& out) {
    if (text == "sgd")
        out = OptimizerKind::Sgd;
    else if (text == "adam")
        out = OptimizerKind::Adam;
    else
        return false;
    return true;
}

long long stepsForEpochs(int epochs, std::int64_t examples, int expectedBatchSize) {
    return static_cast<long long>(
        std::ceil(static_cast<double>(epochs) * static_cast<double>(examples) / expectedBatchSize));
}

namespace {

Status atLeastOne(const std::string& field, long long v) {
    if (v >= 1) return std::nullopt;
    return Error{field + " = " + std::to_string(v) + " is out of range: expected an integer of at least 1"};
}

Status inUnitInterval(const std::string& field, double v) {  // [0, 1)
    if (v >= 0.0 && v < 1.0) return std::nullopt;
    return Error{field + " = " + formatNumber(v) + " is out of range: expected a value in [0, 1)"};
}

Status nonNegative(const std::string& field, double v) {
    if (v >= 0.0 && std::isfinite(v)) return std::nullopt;
    return Error{field + " = " + formatNumber(v) + " is out of range: expected a finite value >= 0"};
}

Status firstError(std::initializer_list<Status> checks) {
    for (const auto& c : checks)
        if (c) return c;
    return std::nullopt;
}

}  // namespace

Result<SupervisedParams> SupervisedParamsBuilder::build() const {
    if (auto e = firstError({atLeastOne("epochs", p_.epochs), atLeastOne("batchSize", p_.batchSize),
                             checkPositive("learningRate", p_.learningRate), inUnitInterval("momentum", p_.momentum),
                             nonNegative("weightDecay", p_.weightDecay)}))
        return *e;
    if (p_.maxExamples < 0)
        return Error{"maxExamples = " + std::to_string(p_.maxExamples) +
                     " is out of range: expected 0 (use all examples) or a positive count"};
    return p_;
}

Result<DpSgdParams> DpSgdParamsBuilder::build() const {
    if (auto e = firstError({checkPositive("epsilon", p_.epsilon), checkDelta("delta", p_.delta),
                             checkPositive("clipNorm", p_.clipNorm), checkPositive("learningRate", p_.learningRate),
                             inUnitInterval("momentum", p_.momentum),
                             atLeastOne("expectedBatchSize", p_.expectedBatchSize), atLeastOne("epochs", p_.epochs),
                             nonNegative("trainLastBlocks", p_.trainLastBlocks), atLeastOne("ranks", p_.ranks)}))
        return *e;
    if (p_.steps < 0)
        return Error{"steps = " + std::to_string(p_.steps) + " is out of range: expected 0 (from epochs) or >= 1"};
    if (p_.sigma && !(*p_.sigma >= 0.0 && std::isfinite(*p_.sigma)))
        return Error{"sigma = " + formatNumber(*p_.sigma) +
                     " is out of range: expected a finite noise multiplier >= 0"};
    if (p_.maxExamplesPerUser < 1)
        return Error{"maxExamplesPerUser = " + std::to_string(p_.maxExamplesPerUser) +
                     " is out of range: expected at least 1 image of a sampled user per step"};
    if (p_.split.empty()) return Error{"split: expected the name of the data split (e.g. \"B\"), got an empty name"};
    return p_;
}

Result<DirichletParams> DirichletParamsBuilder::build() const {
    if (auto e = firstError({checkPositive("epsilon", p_.epsilon), checkDelta("delta", p_.delta),
                             checkPositive("alpha", p_.alpha), checkPositive("learningRate", p_.learningRate),
                             atLeastOne("expectedBatchSize", p_.expectedBatchSize), atLeastOne("epochs", p_.epochs),
                             nonNegative("trainLastBlocks", p_.trainLastBlocks)}))
        return *e;
    if (p_.steps < 0)
        return Error{"steps = " + std::to_string(p_.steps) + " is out of range: expected 0 (from epochs) or >= 1"};
    if (p_.r && !(*p_.r > 0.0 && *p_.r < p_.alpha))
        return Error{"r = " + formatNumber(*p_.r) +
                     " is out of range: expected 0 < r < alpha = " + formatNumber(p_.alpha)};
    if (p_.split.empty()) return Error{"split: expected the name of the data split (e.g. \"B\"), got an empty name"};
    return p_;
}

}  // namespace dpmix::train
