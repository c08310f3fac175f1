#include "engine/mixmin/params.h"

#include "engine/privacy/accountant.h"
#include "engine/privacy/parameters.h"

#include <algorithm>

namespace dpmix::mixmin {
namespace {

using privacy::formatNumber;

Error missing(const std::string& field) { return Error{"missing " + field + ": it is required"}; }

}  // namespace

const char* toString(NoiseMode mode) { return mode == NoiseMode::Gaussian ? "gaussian" : "none"; }
const char* toString(ClippedGradient g) { return g == ClippedGradient::Raw ? "raw" : "tangent-projected"; }
const char* toString(ReleasedIterate r) { return r == ReleasedIterate::Last ? "last" : "average"; }

DpMixMinParamsBuilder DpMixMinParamsBuilder::imagingDefaults() {
    DpMixMinParamsBuilder b;
    b.clipNorm(13.0).expectedBatch(1000.0).stepSize(1.0).delta(1e-5).steps(100);
    return b;
}

DpMixMinParamsBuilder DpMixMinParamsBuilder::languageDefaults(bool userLevel) {
    DpMixMinParamsBuilder b;
    b.steps(200).stepSize(5.0).delta(1e-5).clipNorm(userLevel ? 0.01 : 0.2);
    if (userLevel)
        b.maxExamplesPerUser(15);  // G_ULS of the paper's fine-tuning (docs/ALGORITHMS.md F.6: not given for λ)
    return b;
}

Result<DpMixMinParams> DpMixMinParamsBuilder::build(long long units, privacy::PrivacyUnit unit) const {
    const bool userLevel = unit == privacy::PrivacyUnit::User;
    const std::string unitField = userLevel ? "users (m)" : "examples (n)";
    if (units < 1) return Error{unitField + " = " + std::to_string(units) + " is out of range: expected >= 1"};

    if (!epsilon_) return missing("epsilon");
    if (auto e = privacy::checkPositive("epsilon", *epsilon_)) return *e;
    if (!delta_) return missing("delta");
    if (auto e = privacy::checkDelta("delta", *delta_)) return *e;

    double q = 0.0;
    if (q_ && batch_)
        return Error{"q and expected-batch are both given: give one of them (q = expected-batch / " + unitField + ")"};
    if (q_) {
        if (auto e = privacy::checkSamplingRate("q", *q_)) return *e;
        q = *q_;
    } else if (batch_) {
        if (auto e = privacy::checkPositive("expected-batch", *batch_)) return *e;
        if (*batch_ > static_cast<double>(units))
            return Error{"expected-batch = " + formatNumber(*batch_) + " is out of range: expected at most the " +
                         unitField + " = " + std::to_string(units)};
        q = *batch_ / static_cast<double>(units);
    } else {
        return missing("q or expected-batch");
    }

    if (!clip_) return missing("clip");
    if (auto e = privacy::checkPositive("clip", *clip_)) return *e;
    if (!eta_) return missing("eta");
    if (auto e = privacy::checkPositive("eta", *eta_)) return *e;
    if (!steps_) return missing("steps");
    if (auto e = privacy::checkSteps("steps", *steps_)) return *e;
    if (every_ < 0)
        return Error{"trajectory-every = " + std::to_string(every_) +
                     " is out of range: expected >= 1 (or 0 for automatic)"};
    if (split_.empty()) return Error{"split is empty: expected the name of the data split (e.g. A)"};

    DpMixMinParams p;
    if (userLevel) {
        if (!maxPerUser_) return missing("max-examples-per-user (G_ULS, needed at user level)");
        if (*maxPerUser_ < 1)
            return Error{"max-examples-per-user = " + std::to_string(*maxPerUser_) + " is out of range: expected >= 1"};
        p.maxExamplesPerUser = *maxPerUser_;
    } else if (maxPerUser_) {
        return Error{"max-examples-per-user is set for an example-level run: it applies to user-level runs only"};
    }

    p.epsilon = *epsilon_;
    p.delta = *delta_;
    p.q = q;
    p.units = units;
    p.unit = unit;
    p.clipNorm = *clip_;
    p.stepSize = *eta_;
    p.steps = *steps_;
    p.randomness = randomness_;
    p.noise = noise_;
    p.clipped = clipped_;
    p.release = release_;
    p.trajectoryEvery = every_ > 0 ? every_ : std::max<long long>(1, p.steps / 100);
    p.split = split_;
    p.accountant = accountant_;
    const auto cal = privacy::calibrateSigma(p.accountant, p.epsilon, p.delta, p.q, p.steps);
    if (!cal) return Error{"epsilon = " + formatNumber(p.epsilon) + " cannot be met: " + cal.error().message};
    p.sigma = cal->sigma;
    p.calibratedEpsilon = cal->epsilon;
    return p;
}

}  // namespace dpmix::mixmin
