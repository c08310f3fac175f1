#include "engine/audit/canary.h"

#include "engine/privacy/parameters.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace dpmix::audit {

const char* toString(CanaryKind k) { return k == CanaryKind::Natural ? "natural" : "max-clip"; }

const char* toString(MaxClipSign s) {
    return s == MaxClipSign::RaiseTopSource ? "raise-top-source" : "lower-top-source";
}

Result<mixmin::MixtureObjective> makeNaturalCanary(const Eigen::VectorXd& proxyRow, int label) {
    if (proxyRow.size() < 2)
        return Error{"natural-canary: the proxy row has " + std::to_string(proxyRow.size()) +
                     " values; expected one probability per source (k >= 2)"};
    if (label != 0 && label != 1)
        return Error{"natural-canary: label is " + std::to_string(label) + "; expected 0 or 1"};
    const Eigen::MatrixXd row = proxyRow.transpose();
    auto r = mixmin::makeBinaryObjective(row, {label});
    if (!r) return Error{"natural-canary: " + r.error().message};
    return r;
}

Result<Canary> Canary::natural(const mixmin::MixtureObjective& splitA, mixmin::MixtureObjective example) {
    if (example.examples() != 1)
        return Error{"natural-canary: has " + std::to_string(example.examples()) + " examples; expected exactly 1"};
    if (example.sources() != splitA.sources())
        return Error{"natural-canary: has " + std::to_string(example.sources()) + " sources but split A has " +
                     std::to_string(splitA.sources()) + "; expected the same k"};
    if (example.kind() != splitA.kind())
        return Error{std::string("natural-canary: is a ") + mixmin::toString(example.kind()) +
                     " example but split A is " + mixmin::toString(splitA.kind()) +
                     "; expected the same objective kind"};
    Canary c;
    c.kind_ = CanaryKind::Natural;
    const Eigen::Index k = splitA.sources();
    const Eigen::VectorXd uniform = Eigen::VectorXd::Constant(k, 1.0 / static_cast<double>(k));
    mixmin::RowMatrix g;
    const Eigen::Index zero = 0;
    example.exampleGradients(uniform, std::span<const Eigen::Index>(&zero, 1), g);
    Eigen::VectorXd d = -(g.row(0).transpose().array() - g.row(0).mean()).matrix();
    const double norm = d.norm();
    // A canary whose gradient is parallel to 1 cannot move λ at all: the score is then constant
    // and the audit (correctly) finds nothing.
    c.direction_ = norm > 0.0 ? Eigen::VectorXd(d / norm) : Eigen::VectorXd(Eigen::VectorXd::Zero(k));
    c.example_ = std::make_shared<const mixmin::MixtureObjective>(std::move(example));
    return c;
}

const char* toString(MaxClipTarget t) { return t == MaxClipTarget::TopSource ? "top-source" : "quietest-source"; }

Eigen::Index quietestSource(const mixmin::MixtureObjective& splitA, const Eigen::VectorXd& lambda, double clipNorm,
                            bool tangentProjected) {
    const Eigen::Index n = splitA.examples(), k = splitA.sources();
    Eigen::VectorXd sum = Eigen::VectorXd::Zero(k), sumSq = Eigen::VectorXd::Zero(k);
    std::vector<Eigen::Index> idx;
    mixmin::RowMatrix g;
    constexpr Eigen::Index kChunk = 4096;  // bounded memory for large split A
    for (Eigen::Index start = 0; start < n; start += kChunk) {
        idx.clear();
        for (Eigen::Index j = start; j < std::min(n, start + kChunk); ++j) idx.push_back(j);
        splitA.exampleGradients(lambda, idx, g);
        // The rows exactly as DP-MixMin clips them: row r becomes factor(r)·g.row(r).
        const Eigen::VectorXd factor = mixmin::clippingFactors(
            g, tangentProjected ? mixmin::ClippedGradient::TangentProjected : mixmin::ClippedGradient::Raw, clipNorm);
        sum.noalias() += g.transpose() * factor;
        sumSq.noalias() += g.array().square().matrix().transpose() * factor.cwiseAbs2();
    }
    const Eigen::VectorXd mean = sum / static_cast<double>(n);
    const Eigen::VectorXd variance = (sumSq / static_cast<double>(n) - mean.cwiseProduct(mean)).cwiseMax(0.0);
    Eigen::Index best = 0;
    for (Eigen::Index i = 1; i < k; ++i)
        if (variance(i) < variance(best)) best = i;
    return best;
}

Result<Canary> Canary::maxClip(Eigen::Index sources, Eigen::Index topSource, double clipNorm, MaxClipSign sign) {
    if (sources < 2) return Error{"max-clip canary: k = " + std::to_string(sources) + "; expected k >= 2"};
    if (topSource < 0 || topSource >= sources)
        return Error{"max-clip canary: top source " + std::to_string(topSource) + " is outside [0, " +
                     std::to_string(sources) + ")"};
    if (!(clipNorm > 0.0) || !std::isfinite(clipNorm))
        return Error{"clip: " + privacy::formatNumber(clipNorm) + " is not a positive finite clip norm"};
    Canary c;
    c.kind_ = CanaryKind::MaxClip;
    c.topSource_ = topSource;
    c.vector_ = Eigen::VectorXd::Zero(sources);
    // The EG step is log λ ← log λ − η g̃: a negative gradient coordinate raises that weight.
    c.vector_(topSource) = sign == MaxClipSign::RaiseTopSource ? -clipNorm : clipNorm;
    return c;
}

mixmin::ExtraUnit Canary::extraUnit() const {
    if (kind_ == CanaryKind::MaxClip) {
        const Eigen::VectorXd v = vector_;
        return {[v](const Eigen::VectorXd&, Eigen::VectorXd& g) { g = v; }};
    }
    std::shared_ptr<const mixmin::MixtureObjective> example = example_;
    return {[example](const Eigen::VectorXd& lambda, Eigen::VectorXd& g) {
        mixmin::RowMatrix row;  // per call: the unit may be used by several runs at once
        const Eigen::Index zero = 0;
        example->exampleGradients(lambda, std::span<const Eigen::Index>(&zero, 1), row);
        g = row.row(0).transpose();
    }};
}

double Canary::score(const Eigen::VectorXd& lambda) const {
    if (kind_ == CanaryKind::MaxClip) return std::log(lambda(topSource_));
    return lambda.array().log().matrix().dot(direction_);
}

}  // namespace dpmix::audit
