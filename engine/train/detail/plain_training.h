#pragma once
// Internal (torch) header: the non-private minibatch loop shared by proxy training and
// pretraining (public data only, so no clipping or noise).
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/train/detail/network.h"
#include "engine/train/training_params.h"

#include <functional>
#include <string>
#include <vector>

namespace dpmix::train::detail {

/// Mean loss of a batch from its logits and the dataset indices of its rows.
using BatchLoss = std::function<at::Tensor(const at::Tensor& logits, const std::vector<int64_t>& rows)>;

/// The example indices to train on: all of 0..n−1, or a seeded random subset of
/// params.maxExamples of them (sorted) when 0 < maxExamples < n.
std::vector<int64_t> trainingSubset(int64_t n, const SupervisedParams& params);

/// params.epochs passes over `rows` in seeded random order, minibatches of params.batchSize.
/// Reports progress under `stage` and polls `cancel` every step. Returns the mean loss of
/// the last epoch.
double trainSupervised(Network& net, at::Device device, const ImageView& images, const std::vector<int64_t>& rows,
                       const SupervisedParams& params, const BatchLoss& loss, const std::string& stage,
                       const ProgressCallback& progress, const CancellationToken& cancel);

}  // namespace dpmix::train::detail
