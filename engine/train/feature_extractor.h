#pragma once
// A frozen feature extractor for private fine-tuning of a head (docs/ADAMIX.md, "The experiment"):
// a network trained NON-privately on a public source with its own label space (a plain C-way
// softmax classifier, cross-entropy), then frozen; its features are the activations of the
// last hidden block (the input of the head block; frozen_features.h). Public data only: no privacy cost. Applying
// it to private images is a per-example deterministic map.
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/train/images.h"
#include "engine/train/model.h"
#include "engine/train/training_params.h"

#include <span>
#include <vector>

namespace dpmix::train {

/// Trains `architecture` (outputs replaced by `classes`) as a softmax classifier on `images`
/// with integer labels in [0, classes), by the project's non-private minibatch loop (stage
/// "extractor" in progress events). Errors: bad images, a label count or value out of range.
Result<Model> trainFeatureExtractor(const ImageView& images, std::span<const int> labels, int classes,
                                    const ModelSpec& architecture, const SupervisedParams& params,
                                    const ProgressCallback& progress = {}, const CancellationToken& cancel = {});

/// Its features: train::frozenExtractorFeatures (frozen_features.h).

}  // namespace dpmix::train
