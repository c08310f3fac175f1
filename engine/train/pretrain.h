#pragma once
// Pretraining on the learned mixture (docs/ALGORITHMS.md A.6.1): from random
// initialisation, a single-logit model is trained on all public images with the
// importance-weighted soft target t_λ(x) = Σ_i λ_i y_i(x) under BCE. The same code for every λ
// (uniform, DP-MixMin's, random search's). Public data only: no privacy cost. Several public
// sources: pretrainOnSourceMixture, the same objective importance-weighted per source.
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/train/images.h"
#include "engine/train/model.h"
#include "engine/train/training_params.h"

#include <cstdint>
#include <span>
#include <string>

namespace dpmix::train {

/// `labels`: N × k row-major in [0, 1] (−1 uncertain counted as 0); `lambda`: k weights on the
/// simplex (≥ 0, summing to 1 within 1e-6). `architecture.outputs` must be 1.
Result<Model> pretrainOnMixture(const ImageView& images, std::span<const float> labels, int sources,
                                std::span<const double> lambda, const ModelSpec& architecture,
                                const SupervisedParams& params, const ProgressCallback& progress = {},
                                const CancellationToken& cancel = {});

/// The soft targets t_λ(x_j) = Σ_i λ_i y_i(x_j) (uncertain −1 → 0), for inspection and tests.
std::vector<float> mixtureTargets(std::span<const float> labels, int sources, std::span<const double> lambda);

/// Several public sources (docs/METHODS.md, "Several public sources"): component c belongs to
/// source s(c), image j to source s(j). The mixture draws a component c with probability λ_c and
/// an image of its source; so an image of source s is drawn with probability Λ_s / N_s
/// (Λ_s = Σ_{c∈s} λ_c) and its label is positive with probability t_j = Σ_{c∈s(j)} λ_c y_c(x_j) / Λ_s.
/// Training on all N public images uniformly with the importance weight w_j = Λ_s · N / N_s has
/// the mixture's expected loss Σ_s Λ_s E_{x∼s}[ℓ(f(x), t(x))]. A source without λ mass gets
/// t = 0 and w = 0. With one source, w ≡ 1 and t is mixtureTargets' (callers then use that path).
struct WeightedTargets {
    std::vector<float> targets;  // N
    std::vector<float> weights;  // N
};
Result<WeightedTargets> sourceMixtureTargets(std::span<const float> labels, int components,
                                             std::span<const std::size_t> componentSource,
                                             std::span<const std::size_t> imageSource, std::span<const double> lambda);

/// Pretraining on several public sources: λ checked as pretrainOnMixture does, then the weighted
/// BCE on sourceMixtureTargets. `architecture.outputs` must be 1.
Result<Model> pretrainOnSourceMixture(const ImageView& images, std::span<const float> labels, int components,
                                      std::span<const std::size_t> componentSource,
                                      std::span<const std::size_t> imageSource, std::span<const double> lambda,
                                      const ModelSpec& architecture, const SupervisedParams& params,
                                      const ProgressCallback& progress = {}, const CancellationToken& cancel = {});

/// Whether a pretrained model collapsed (docs/RESULTS.md, "The collapsed pretraining"): its logits
/// on up to `maxImages` of `images` (evenly spaced; public images, so no privacy cost) checked by
/// collapsedOutputs (engine/train/evaluation.h). Empty when they can rank the images.
inline constexpr std::int64_t kCollapseCheckImages = 2000;
Result<std::string> pretrainingCollapse(const Model& model, const ImageView& images,
                                        std::int64_t maxImages = kCollapseCheckImages);

}  // namespace dpmix::train
