#pragma once
// The white-box audit hook of DP-SGD (docs/AUDIT.md, "The white-box one-run audit"): m Dirac
// canary gradients — canary i is C·e_j, all zeros but C at one coordinate j of the model's
// parameters — each included by its own coin and then treated exactly as an extra example of the
// training set: Poisson-sampled at the same q, its (already clipped) gradient added to the clipped
// sum before the noise, and counted in q = B/(N + included) and in σ's calibration. After each
// step's noise the noisy sum at every canary's coordinate is handed to the auditor.
//
// Only the one-run audit stage (engine/audit_runs) calls this. A study's fine-tuning calls
// finetuneDpSgd (dp_sgd.h), which has no hook: no study setting can turn canaries on.
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/privacy/ledger.h"
#include "engine/train/finetune.h"
#include "engine/train/images.h"
#include "engine/train/model.h"
#include "engine/train/training_params.h"

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace dpmix::train {

struct GradientCanaries {
    /// Canary i's gradient is clipNorm · e_j, j = coordinates[i]: an index into the model's
    /// parameters flattened in Model::parameters() order. Distinct (the canaries are orthogonal),
    /// in unfrozen blocks, and fixed before the training from nothing the training reads.
    std::vector<std::int64_t> coordinates;
    /// The coins, one per canary: 1 = an extra example of the training set, 0 = left out.
    std::vector<std::uint8_t> included;
    /// Called after every step's noise, before the step is taken: the noisy clipped sum (before the
    /// division by q·N) at each canary's coordinate, all m in canary order — what a white-box
    /// auditor who sees every released noisy sum reads.
    std::function<void(long long step, std::span<const double> noisySum)> observe;
};

/// finetuneDpSgd (example level) with gradient canaries. With no canary included it trains
/// bit-identically to finetuneDpSgd (same sampling, noise and ledger entry). Errors (nothing
/// trained, ledger unchanged) as finetuneDpSgd, and for coordinates and coins that do not match,
/// a coordinate outside the model or in a frozen block, or a repeated coordinate.
Result<FinetuneResult> finetuneDpSgdWithGradientCanaries(Model& model, const ImageView& images,
                                                         std::span<const int> labels, const DpSgdParams& params,
                                                         const GradientCanaries& canaries, privacy::Ledger& ledger,
                                                         const ProgressCallback& progress = {},
                                                         const CancellationToken& cancel = {});

/// m distinct coordinates of `parameterCount`, uniformly without replacement (mt19937_64 from
/// `seed`, portable): Dirac canaries spread over every parameter tensor in proportion to its size.
/// Empty when m > parameterCount.
std::vector<std::int64_t> spreadCanaryCoordinates(std::int64_t parameterCount, long long m, std::uint64_t seed);

}  // namespace dpmix::train
