#pragma once
// Pretraining on the learned mixture (docs/ALGORITHMS.md A.6.1): from random
// initialisation, a single-logit model is trained on all public images with the
// importance-weighted soft target t_λ(x) = Σ_i λ_i y_i(x) under BCE. The same code for every λ
// (uniform, DP-MixMin's, random search's). Public data only: no privacy cost.
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/train/images.h"
#include "engine/train/model.h"
#include "engine/train/training_params.h"

#include <span>

namespace dpmix::train {

/// `labels`: N × k row-major in [0, 1] (−1 uncertain counted as 0); `lambda`: k weights on the
/// simplex (≥ 0, summing to 1 within 1e-6). `architecture.outputs` must be 1.
Result<Model> pretrainOnMixture(const ImageView& images, std::span<const float> labels, int sources,
                                std::span<const double> lambda, const ModelSpec& architecture,
                                const SupervisedParams& params, const ProgressCallback& progress = {},
                                const CancellationToken& cancel = {});

/// The soft targets t_λ(x_j) = Σ_i λ_i y_i(x_j) (uncertain −1 → 0), for inspection and tests.
std::vector<float> mixtureTargets(std::span<const float> labels, int sources, std::span<const double> lambda);

}  // namespace dpmix::train
