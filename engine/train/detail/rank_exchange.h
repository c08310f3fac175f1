#pragma once
// Internal (torch) header: one rank's view of data-parallel DP-SGD (engine/distributed,
// docs/PRIVACY.md, "Data-parallel DP-SGD"). The training loop stays the one of dp_sgd.cpp; across
// ranks it differs in three places only:
//  - sampling: every rank draws the *global* Poisson batch over all units and keeps the units it
//    owns (unit u belongs to rank u mod W), so the union of the shards' batches is one Poisson
//    sample at q — in seeded mode the very batch a 1-rank run draws;
//  - noise: rank 0 alone holds the noise stream; it adds N(0, σ²C²) once to its own clipped sum,
//    and the all-reduce of the ranks' sums carries it (no rank adds noise of its own);
//  - the step: every rank divides the same all-reduced noisy sum by q·N and steps, so model and
//    optimizer stay identical (checked by a digest every so many steps where asked).
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/privacy/ledger.h"
#include "engine/privacy/mechanism_random.h"
#include "engine/train/dp_sgd.h"

#include <ATen/ATen.h>

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace dpmix::train::detail {

class RankExchange {
public:
    virtual ~RankExchange() = default;
    virtual int rank() const = 0;
    virtual int world() const = 0;
    /// Sums `values` (on the CPU) over all ranks in place; afterwards every rank holds the same
    /// bytes. Throws std::runtime_error when a rank is gone or the collective times out.
    virtual void sumAcrossRanks(at::Tensor& values) = 0;
    /// Called after step t (1-based) with the trainable parameters and the optimizer's momentum
    /// buffers: a check that every rank holds the same state (or nothing). Throws on a mismatch.
    virtual void afterStep(long long t, const std::vector<at::Tensor*>& params,
                           const std::vector<at::Tensor>& buffers) = 0;

    bool owns(std::int64_t unit) const { return unit % world() == rank(); }
    bool drawsNoise() const { return rank() == 0; }
};

/// One step's exchange: rank 0 (`noise` set) adds noiseStd·z to its clipped sum — the draw a
/// 1-rank run makes, by privatiseGradients with denominator 1 — the others contribute their
/// clipped sums (zeros where they sampled nothing); all are summed across ranks in one
/// all-reduce, and .grad() becomes that sum divided by `denominator` on every rank. `stats` (the
/// step's loss sum, units, clipped units) is summed alongside.
void sumNoisyGradientsAcrossRanks(const std::vector<at::Tensor*>& params, double noiseStd, double sensitivity,
                                  double denominator, privacy::MechanismRng* noise, RankExchange& ranks,
                                  std::array<double, 3>& stats);

/// The units of one rank's shard (engine/distributed/rank_shard.h cuts them). The rank holds only
/// the images of the units it owns (unit u on rank u mod W); of the others it knows how many units
/// there are and, at user level, how many images each user has — the draw of at most G images is
/// made for every sampled user, in batch order, so that the streams match a 1-rank run.
struct ShardUnits {
    std::int64_t units = 0;                       // every rank's examples (example level) or users
    std::span<const std::int64_t> unitOfImage;    // each held image's example index, or its user
    std::span<const std::int64_t> imagesPerUser;  // user level: every user's image count; empty: example level
    bool userLevel() const { return !imagesPerUser.empty(); }
};

/// Checks that `shard` is this rank's — params.ranks is the group's world size, every held image's
/// unit is owned by this rank and each held example once, q = B/units <= 1, at user level every
/// user's image count given and the held users' counts complete — and returns, at example level,
/// each example's held row (−1: another rank's); at user level an empty vector.
Result<std::vector<std::int64_t>> shardRows(const ImageView& images, const ShardUnits& shard, const DpSgdParams& params,
                                            const RankExchange& ranks);

/// Every user's images for the user-level clipper: this rank's users' held rows (in the order the
/// shard holds them, the order of the whole split), and for the other users placeholders of the
/// right count (drawn from, to keep the stream, never read).
std::vector<std::vector<std::int64_t>> shardImagesOfUsers(const ShardUnits& shard);

/// One rank's DP-SGD on its shard (`images`, `labels`: the held images). Every rank passes the
/// same parameters and unit counts. Rank 0 records the ledger entry before the first step; the
/// other ranks leave `ledger` unchanged. Errors (nothing trained, ledger unchanged) as the
/// 1-process entry points, and for a shard that is not this rank's; throws what RankExchange
/// throws.
Result<FinetuneResult> finetuneDpSgdOnRank(Model& model, const ImageView& images, std::span<const int> labels,
                                           const ShardUnits& shard, const DpSgdParams& params, privacy::Ledger& ledger,
                                           RankExchange& ranks, const ProgressCallback& progress = {},
                                           const CancellationToken& cancel = {});

}  // namespace dpmix::train::detail
