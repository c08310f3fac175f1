#pragma once
// The classification proxy of DP-MixMin (docs/ALGORITHMS.md A.2 (a)): one multi-class
// network over the concatenated label space of the k public sources. Source i (a binary label
// of the public data) owns logits (i,0) and (i,1); the proxy's P(y_i = 1 | x) is the softmax of
// that pair, σ(z_i1 − z_i0): k two-way softmaxes, trained jointly by the sum of their
// cross-entropies. Public data only, so no privacy cost; applying it to private images is a
// per-example deterministic map (P is precomputed once).
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/train/images.h"
#include "engine/train/model.h"
#include "engine/train/training_params.h"

#include <span>
#include <vector>

namespace dpmix::train {

/// `labels`: N × k row-major; 1 positive, 0 negative, −1 (uncertain) counted as 0 (docs/ALGORITHMS.md
/// A.2.7). `architecture`'s outputs are replaced by 2k. Default: small CNN for 28×28 inputs.
Result<Model> trainProxy(const ImageView& images, std::span<const float> labels, int sources,
                         const ModelSpec& architecture, const SupervisedParams& params,
                         const ProgressCallback& progress = {}, const CancellationToken& cancel = {});

/// The same with a mask: `defined` (N × k row-major, 1 = defined) says which images each source's
/// label is defined on; the loss sums only the defined pairs (docs/METHODS.md, "Several public
/// sources": one proxy over the components of several public data sets, each head trained on its
/// own source's images). Every image needs at least one defined label.
Result<Model> trainMaskedProxy(const ImageView& images, std::span<const float> labels,
                               std::span<const unsigned char> defined, int sources, const ModelSpec& architecture,
                               const SupervisedParams& params, const ProgressCallback& progress = {},
                               const CancellationToken& cancel = {});

/// P: n × k row-major, P[j·k + i] = proxy's probability that source i's label is 1 on image j.
Result<std::vector<double>> predictProxy(const Model& proxy, const ImageView& images);

}  // namespace dpmix::train
