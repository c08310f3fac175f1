#include "engine/train/detail/rank_exchange.h"

#include "engine/train/detail/ghost_clipping.h"

#include <string>

namespace dpmix::train::detail {
namespace {

Error shardError(const std::string& what) { return Error{"data-parallel DP-SGD: " + what}; }

// At user level: every user's count given, and this rank holding all images of each of its users.
Status checkHeldUsers(const ShardUnits& shard, const RankExchange& ranks) {
    if (static_cast<std::int64_t>(shard.imagesPerUser.size()) != shard.units)
        return shardError(std::to_string(shard.imagesPerUser.size()) + " image counts for " +
                          std::to_string(shard.units) + " users");
    std::vector<std::int64_t> held(static_cast<std::size_t>(shard.units), 0);
    for (std::int64_t u : shard.unitOfImage) ++held[static_cast<std::size_t>(u)];
    for (std::int64_t u = 0; u < shard.units; ++u) {
        const std::int64_t expected = ranks.owns(u) ? shard.imagesPerUser[static_cast<std::size_t>(u)] : 0;
        if (shard.imagesPerUser[static_cast<std::size_t>(u)] < 1 || held[static_cast<std::size_t>(u)] != expected)
            return shardError("rank " + std::to_string(ranks.rank()) + " holds " +
                              std::to_string(held[static_cast<std::size_t>(u)]) + " images of user " +
                              std::to_string(u) + " of " +
                              std::to_string(shard.imagesPerUser[static_cast<std::size_t>(u)]) +
                              ": a user's images all belong to the rank that owns the user (u mod ranks)");
    }
    return std::nullopt;
}

}  // namespace

Result<std::vector<std::int64_t>> shardRows(const ImageView& images, const ShardUnits& shard, const DpSgdParams& params,
                                            const RankExchange& ranks) {
    // The ledger entry names the world size (plannedDpSgdEntry): it must be this group's.
    if (params.ranks != ranks.world())
        return shardError("the parameters say ranks = " + std::to_string(params.ranks) + " but the process group has " +
                          std::to_string(ranks.world()) + " ranks");
    if (shard.units < ranks.world())
        return shardError(std::to_string(shard.units) + " units for " + std::to_string(ranks.world()) +
                          " ranks: every rank needs at least one");
    if (params.expectedBatchSize > shard.units)
        return shardError("expectedBatchSize = " + std::to_string(params.expectedBatchSize) + " exceeds the " +
                          std::to_string(shard.units) + " units: the sampling rate q = B/n must be <= 1");
    if (static_cast<std::int64_t>(shard.unitOfImage.size()) != images.count)
        return shardError(std::to_string(shard.unitOfImage.size()) + " unit ids for " + std::to_string(images.count) +
                          " held images");
    std::vector<std::int64_t> rowOf(static_cast<std::size_t>(shard.units), -1);
    for (std::int64_t row = 0; row < images.count; ++row) {
        const std::int64_t u = shard.unitOfImage[static_cast<std::size_t>(row)];
        if (u < 0 || u >= shard.units || !ranks.owns(u))
            return shardError("held image " + std::to_string(row) + " is of unit " + std::to_string(u) +
                              ", which is not rank " + std::to_string(ranks.rank()) + "'s (unit u on rank u mod " +
                              std::to_string(ranks.world()) + ")");
        if (!shard.userLevel() && rowOf[static_cast<std::size_t>(u)] >= 0)
            return shardError("example " + std::to_string(u) + " is held twice");
        rowOf[static_cast<std::size_t>(u)] = row;
    }
    if (shard.userLevel()) {
        if (auto e = checkHeldUsers(shard, ranks)) return *e;
        return std::vector<std::int64_t>{};
    }
    for (std::int64_t u = ranks.rank(); u < shard.units; u += ranks.world())
        if (rowOf[static_cast<std::size_t>(u)] < 0)
            return shardError("rank " + std::to_string(ranks.rank()) + " does not hold its example " +
                              std::to_string(u));
    return rowOf;
}

std::vector<std::vector<std::int64_t>> shardImagesOfUsers(const ShardUnits& shard) {
    std::vector<std::vector<std::int64_t>> imagesOf(static_cast<std::size_t>(shard.units));
    for (std::size_t row = 0; row < shard.unitOfImage.size(); ++row)
        imagesOf[static_cast<std::size_t>(shard.unitOfImage[row])].push_back(static_cast<std::int64_t>(row));
    for (std::size_t u = 0; u < imagesOf.size(); ++u)
        if (imagesOf[u].empty()) imagesOf[u].assign(static_cast<std::size_t>(shard.imagesPerUser[u]), -1);
    return imagesOf;
}

void sumNoisyGradientsAcrossRanks(const std::vector<at::Tensor*>& params, double noiseStd, double sensitivity,
                                  double denominator, privacy::MechanismRng* noise, RankExchange& ranks,
                                  std::array<double, 3>& stats) {
    at::NoGradGuard noGrad;
    // Dividing by 1 is exact, so rank 0's contribution is bit for bit the 1-rank run's noisy sum
    // before its division by q·N.
    if (noise) {
        privatiseGradients(params, noiseStd, sensitivity, 1.0, *noise);
    } else {
        for (at::Tensor* p : params)
            if (!p->grad().defined()) p->mutable_grad() = at::zeros_like(*p);
    }
    // One all-reduce for the whole model: the gradients side by side, on the CPU (Gloo's side).
    std::vector<at::Tensor> pieces;
    pieces.reserve(params.size());
    for (at::Tensor* p : params) pieces.push_back(p->grad().reshape({-1}).to(at::kCPU));
    at::Tensor sum = at::cat(pieces);
    ranks.sumAcrossRanks(sum);
    std::int64_t offset = 0;
    for (at::Tensor* p : params) {
        const std::int64_t n = p->numel();
        at::Tensor g = p->grad();
        g.copy_(sum.slice(0, offset, offset + n).reshape(p->sizes()));
        g.div_(denominator);
        offset += n;
    }
    at::Tensor counts = at::tensor(std::vector<double>(stats.begin(), stats.end()), at::kDouble);
    ranks.sumAcrossRanks(counts);
    for (std::size_t i = 0; i < stats.size(); ++i) stats[i] = counts[static_cast<std::int64_t>(i)].item<double>();
}

}  // namespace dpmix::train::detail
