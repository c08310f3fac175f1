#pragma once
// The canary z* of the mixture-learning audit (docs/ALGORITHMS.md B.2, B.4; decisions in
// docs/AUDIT.md) and the attack score it is judged by.
//
//  - Natural: a real held-out example (not in split A), given as a one-example MixtureObjective
//    of the same kind and k as split A's. It goes through the normal gradient and clipping path.
//    Score: s(λ) = ⟨log λ, d⟩ with d = −(g* − mean(g*)·1)/‖·‖, g* its gradient at λ_0 = 1/k.
//    (Centring removes the normaliser log Σ exp z from the score: EG ignores shifts along 1.)
//  - MaxClip: whenever sampled it contributes the fixed vector v = ∓C·e_{i*}, ‖v‖ = C exactly
//    (clipping leaves it unchanged), i* = argmax λ* of the non-private solution on split A.
//    Score: s(λ) = log λ_{i*}.
#include "engine/core/result.h"
#include "engine/mixmin/dp_mixmin.h"
#include "engine/mixmin/objective.h"

#include <Eigen/Dense>

#include <memory>
#include <vector>

namespace dpmix::audit {

enum class CanaryKind { Natural, MaxClip };

/// Max-clip canary sign (docs/ALGORITHMS.md F.10). The EG step moves log λ against the gradient:
/// v = −C e_{i*} RAISES the top source's weight, v = +C e_{i*} LOWERS it. See docs/AUDIT.md for
/// the measurement behind the default.
enum class MaxClipSign { RaiseTopSource, LowerTopSource };

/// Which source the max-clip canary pushes (docs/AUDIT.md "Max-clip target"). TopSource is the
/// paper's choice (argmax λ*). QuietestSource is the source whose clipped per-example gradient
/// coordinate varies least over split A at λ*: there Poisson sampling hides a fixed push of norm
/// C least, so it is the stronger attack where the top source sits in a steep valley of F.
/// Both are canaries the clipping allows; the auditor may pick either before seeing a run.
enum class MaxClipTarget { TopSource, QuietestSource };

const char* toString(CanaryKind k);
const char* toString(MaxClipSign s);
const char* toString(MaxClipTarget t);

/// argmin over sources i of the variance, over split A's examples, of coordinate i of the
/// per-example gradient at `lambda`, after the same centring (when `tangentProjected`) and
/// clipping to `clipNorm` that DP-MixMin applies. Ties keep the lowest index.
Eigen::Index quietestSource(const mixmin::MixtureObjective& splitA, const Eigen::VectorXd& lambda, double clipNorm,
                            bool tangentProjected);

/// A one-example objective for a natural canary of a binary task: the canary's proxy
/// predictions (k values in [0, 1]) and its label (0 or 1).
Result<mixmin::MixtureObjective> makeNaturalCanary(const Eigen::VectorXd& proxyRow, int label);

/// A canary resolved against split A: what it contributes to a run and how a run's λ is scored.
/// Immutable after construction; safe to share between threads.
class Canary {
public:
    /// Natural canary: `example` must have exactly one example, objective.sources() sources and
    /// the objective's kind. Errors name the field "natural-canary".
    static Result<Canary> natural(const mixmin::MixtureObjective& splitA, mixmin::MixtureObjective example);
    /// Max-clip canary of norm `clipNorm` along source `topSource` (the caller picks the source:
    /// i* = argmax λ*, or quietestSource).
    static Result<Canary> maxClip(Eigen::Index sources, Eigen::Index topSource, double clipNorm, MaxClipSign sign);

    CanaryKind kind() const { return kind_; }
    Eigen::Index topSource() const { return topSource_; }                 // max-clip only (else −1)
    const Eigen::VectorXd& scoreDirection() const { return direction_; }  // natural only
    const Eigen::VectorXd& maxClipVector() const { return vector_; }      // max-clip only

    /// The extra unit for runDpMixMin in the "in" world. Valid while this Canary lives.
    mixmin::ExtraUnit extraUnit() const;

    /// The attack score of a released λ (all weights > 0: EG keeps them positive).
    double score(const Eigen::VectorXd& lambda) const;

private:
    CanaryKind kind_ = CanaryKind::MaxClip;
    Eigen::Index topSource_ = -1;
    Eigen::VectorXd vector_;                                   // max-clip v
    Eigen::VectorXd direction_;                                // natural d
    std::shared_ptr<const mixmin::MixtureObjective> example_;  // natural z*
};

}  // namespace dpmix::audit
