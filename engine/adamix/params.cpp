#include "engine/adamix/params.h"

#include "engine/privacy/parameters.h"

#include <algorithm>
#include <cmath>

namespace dpmix::adamix {
namespace {

using privacy::formatNumber;

Error missing(const std::string& field) { return Error{field + " is missing: it is required", field}; }

Error outOfRange(const std::string& field, const std::string& value, const std::string& expected) {
    return Error{field + " = " + value + " is out of range: expected " + expected, field};
}

// The privacy module's per-field checks, with the field recorded on the error.
Status named(Status s, const std::string& field) {
    if (s) s->field = field;
    return s;
}

}  // namespace

const char* toString(Projection v) { return v == Projection::PublicSubspace ? "public-subspace" : "none"; }
const char* toString(ClipRule v) { return v == ClipRule::PublicQuantile ? "public-quantile" : "fixed"; }
const char* toString(Initialisation v) { return v == Initialisation::PublicFewShot ? "public-few-shot" : "zero"; }
const char* toString(NoiseMode v) { return v == NoiseMode::Gaussian ? "gaussian" : "none"; }
const char* toString(AdamixVariant v) {
    switch (v) {
        case AdamixVariant::AdamixR: return "adamix-r";
        case AdamixVariant::NoProjection: return "adamix-r-no-projection";
        case AdamixVariant::FixedClip: return "adamix-r-fixed-clip";
        case AdamixVariant::NoPublicGradient: return "adamix-r-no-public-gradient";
        case AdamixVariant::DpGdFromZero: return "dp-gd";
        case AdamixVariant::DpGdWarmStart: return "dp-gd-warm-start";
    }
    return "?";
}

bool AdamixParams::usesPublicData() const {
    return projection == Projection::PublicSubspace || clip == ClipRule::PublicQuantile || publicGradientTerm ||
           init == Initialisation::PublicFewShot;
}

AdamixParamsBuilder& AdamixParamsBuilder::variant(AdamixVariant v) {
    projection_ = Projection::PublicSubspace;
    clip_ = ClipRule::PublicQuantile;
    publicTerm_ = true;
    init_ = Initialisation::PublicFewShot;
    switch (v) {
        case AdamixVariant::AdamixR: break;
        case AdamixVariant::NoProjection: projection_ = Projection::None; break;
        case AdamixVariant::FixedClip: clip_ = ClipRule::Fixed; break;
        case AdamixVariant::NoPublicGradient: publicTerm_ = false; break;
        case AdamixVariant::DpGdFromZero:
        case AdamixVariant::DpGdWarmStart:
            projection_ = Projection::None;
            clip_ = ClipRule::Fixed;
            publicTerm_ = false;
            init_ = v == AdamixVariant::DpGdFromZero ? Initialisation::Zero : Initialisation::PublicFewShot;
            break;
    }
    return *this;
}

AdamixParamsBuilder AdamixParamsBuilder::defaults() {
    AdamixParamsBuilder b;
    b.steps(200).stepSize(1.0).delta(1e-5).clipQuantile(0.5).ridge(1e-4).publicRidge(1e-3).clipFloor(1e-6);
    return b;
}

namespace {

// σ from the target ε (calibrated by the accountant, which certifies the ε it meets) or ε
// certified for a given σ: exactly one of them.
Status calibrateNoise(const std::optional<double>& epsilon, const std::optional<double>& sigma, AdamixParams& p) {
    if (epsilon && sigma) return Error{"epsilon and sigma are both given: give one of them", "epsilon"};
    if (epsilon) {
        if (auto e = named(privacy::checkPositive("epsilon", *epsilon), "epsilon")) return *e;
        const auto cal = privacy::calibrateSigma(p.accountant, *epsilon, p.delta, p.q, p.steps);
        if (!cal)
            return Error{"epsilon = " + formatNumber(*epsilon) + " cannot be met: " + cal.error().message, "epsilon"};
        p.sigma = cal->sigma;
        p.epsilon = cal->epsilon;
    } else if (sigma) {
        if (auto e = named(privacy::checkPositive("sigma", *sigma), "sigma")) return *e;
        p.sigma = *sigma;
        p.epsilon = privacy::certifiedGaussianEpsilon(p.accountant, {{p.q, p.sigma, p.steps}}, p.delta);
    } else {
        return Error{"epsilon is missing: give a target epsilon (sigma is then calibrated) or sigma", "epsilon"};
    }
    return std::nullopt;
}

}  // namespace

Result<AdamixParams> AdamixParamsBuilder::build(long long privateExamples, long long publicExamples) const {
    if (privateExamples < 1)
        return outOfRange("private-examples", std::to_string(privateExamples), "at least 1 private example");
    if (publicExamples < 0) return outOfRange("public-examples", std::to_string(publicExamples), "a count >= 0");

    AdamixParams p;
    p.privateExamples = privateExamples;
    p.publicExamples = publicExamples;
    p.projection = projection_;
    p.clip = clip_;
    p.publicGradientTerm = publicTerm_;
    p.init = init_;
    p.noise = noise_;
    p.randomness = randomness_;
    p.accountant = accountant_;

    if (!steps_) return missing("steps");
    if (auto e = named(privacy::checkSteps("steps", *steps_), "steps")) return *e;
    p.steps = *steps_;
    if (!eta_) return missing("eta");
    if (auto e = named(privacy::checkPositive("eta", *eta_), "eta")) return *e;
    p.stepSize = *eta_;
    if (!delta_) return missing("delta");
    if (auto e = named(privacy::checkDelta("delta", *delta_), "delta")) return *e;
    p.delta = *delta_;
    if (q_) {
        if (auto e = named(privacy::checkSamplingRate("q", *q_), "q")) return *e;
        p.q = *q_;
    }

    if (tau_) {
        if (!(*tau_ > 0.0 && *tau_ <= 1.0))
            return outOfRange("clip-quantile", formatNumber(*tau_), "a level in (0, 1]");
        p.clipQuantile = *tau_;
    }
    if (cMin_) {
        if (auto e = named(privacy::checkPositive("clip-floor", *cMin_), "clip-floor")) return *e;
        p.clipFloor = *cMin_;
    }
    if (ridge_) {
        if (!(*ridge_ >= 0.0) || !std::isfinite(*ridge_))
            return outOfRange("ridge", formatNumber(*ridge_), "a finite number >= 0");
        p.ridge = *ridge_;
    }
    if (publicRidge_) {
        if (auto e = named(privacy::checkPositive("public-ridge", *publicRidge_), "public-ridge")) return *e;
        p.publicRidge = *publicRidge_;
    }
    if (p.clip == ClipRule::Fixed) {
        if (!fixedClip_) return missing("clip");
        if (auto e = named(privacy::checkPositive("clip", *fixedClip_), "clip")) return *e;
        p.fixedClip = *fixedClip_;
    } else if (fixedClip_) {
        return Error{"clip is set but the clip rule is public-quantile: give one of them", "clip"};
    }
    if (p.usesPublicData() && publicExamples < 1)
        return outOfRange("public-examples", std::to_string(publicExamples),
                          "at least 1 labelled public example (this configuration uses the public set)");
    if (rank_) {
        if (*rank_ < 1) return outOfRange("rank", std::to_string(*rank_), "a subspace rank >= 1");
        p.rank = *rank_;
    } else {
        p.rank = static_cast<int>(std::clamp<long long>(publicExamples, 1, 64));
    }
    if (split_.empty()) return Error{"split is empty: expected the name of the private data split", "split"};
    p.split = split_;

    if (auto e = calibrateNoise(epsilon_, sigma_, p)) return *e;
    return p;
}

}  // namespace dpmix::adamix
