#include "engine/distributed/distributed_dp_sgd.h"

#include "engine/data/sha256.h"
#include "engine/distributed/detail/group_impl.h"
#include "engine/train/detail/model_impl.h"
#include "engine/train/detail/rank_exchange.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace dpmix::distributed {
namespace {

// SHA-256 of the bytes of the given tensors, in order (undefined ones, a momentum buffer before
// its first step, count as empty).
std::string digestOf(const std::vector<const at::Tensor*>& tensors) {
    std::string bytes;
    for (const at::Tensor* t : tensors) {
        if (!t->defined()) continue;
        const at::Tensor c = t->detach().to(at::kCPU).contiguous();
        bytes.append(static_cast<const char*>(c.data_ptr()), static_cast<std::size_t>(c.nbytes()));
    }
    return data::sha256Hex(bytes);
}

// The group as the training loop sees it (train/detail/rank_exchange.h).
class GroupExchange final : public train::detail::RankExchange {
public:
    GroupExchange(RankGroup& group, const RankedRunChecks& checks) : group_(group.impl()), checks_(checks) {}

    int rank() const override { return group_.rank; }
    int world() const override { return group_.world; }
    void sumAcrossRanks(at::Tensor& values) override { detail::allreduceSum(group_, values); }

    void afterStep(long long t, const std::vector<at::Tensor*>& params,
                   const std::vector<at::Tensor>& buffers) override {
        if (checks_.stateCheckEvery > 0 && t % checks_.stateCheckEvery == 0) {
            std::vector<const at::Tensor*> state(params.begin(), params.end());
            for (const at::Tensor& b : buffers) state.push_back(&b);
            checkSameOnEveryRank(digestOf(state), t);
        }
        if (checks_.afterEachStep) checks_.afterEachStep(t);
    }

private:
    // Rank 0's digest to all; each rank compares; the count of differing ranks to all, so that
    // every rank stops at the same step.
    void checkSameOnEveryRank(const std::string& digestHex, long long t) {
        std::vector<std::int64_t> words;
        for (std::size_t i = 0; i + 16 <= digestHex.size(); i += 16)
            words.push_back(static_cast<std::int64_t>(std::stoull(digestHex.substr(i, 16), nullptr, 16)));
        at::Tensor root = at::tensor(words, at::kLong);
        const at::Tensor mine = root.clone();
        detail::broadcastFrom(group_, root, 0);
        at::Tensor differing = at::tensor({root.equal(mine) ? 0.0 : 1.0}, at::kDouble);
        detail::allreduceSum(group_, differing);
        if (differing.item<double>() > 0)
            throw std::runtime_error("after step " + std::to_string(t) + ", " +
                                     std::to_string(static_cast<int>(differing.item<double>())) +
                                     " rank(s) hold a model or optimizer state that differs from rank 0's");
    }

    RankGroup::Impl& group_;
    const RankedRunChecks& checks_;
};

// Every rank starts from rank 0's parameters (initialisation or pretraining may differ by rank).
Status startFromRankZero(RankGroup& group, train::Model& model) {
    std::vector<float> values = model.parameters();
    if (auto e = group.broadcast(values, 0)) return e;
    if (auto e = model.setParameters(values)) return Error{"rank " + std::to_string(group.rank()) + ": " + e->message};
    return std::nullopt;
}

}  // namespace

Result<train::FinetuneResult> finetuneDpSgdAcrossRanks(RankGroup& group, train::Model& model, const RankShard& shard,
                                                       const train::DpSgdParams& params, privacy::Ledger& ledger,
                                                       const RankedRunChecks& checks, const ProgressCallback& progress,
                                                       const CancellationToken& cancel) {
    if (auto e = startFromRankZero(group, model)) return *e;
    GroupExchange exchange(group, checks);
    const train::detail::ShardUnits units{shard.units, shard.unitOfImage, shard.imagesPerUser};
    try {
        return train::detail::finetuneDpSgdOnRank(model, shard.images(), shard.labels, units, params, ledger, exchange,
                                                  progress, cancel);
    } catch (const Cancelled&) {
        throw;
    } catch (const std::runtime_error& e) {
        return Error{"data-parallel DP-SGD: " + std::string(e.what())};
    }
}

std::string parameterDigest(const train::Model& model) {
    std::vector<const at::Tensor*> state;
    for (at::Tensor* p : model.impl().network.parameters()) state.push_back(p);
    return digestOf(state);
}

}  // namespace dpmix::distributed
