#include "engine/distributed/local_ranks.h"

#include "engine/distributed/child_ranks.h"
#include "engine/distributed/distributed_dp_sgd.h"
#include "engine/distributed/rank_job.h"

#include <exception>
#include <string>
#include <vector>

namespace dpmix::distributed {
namespace {

std::vector<std::string> rankArguments(const LocalRankSettings& settings, int port, int rank) {
    std::vector<std::string> args;
    if (settings.threadsPerRank > 0) args = {"--threads", std::to_string(settings.threadsPerRank)};
    for (std::string a : {std::string("rank"), std::string("--port"), std::to_string(port), std::string("--rank"),
                          std::to_string(rank), std::string("--ranks"), std::to_string(settings.ranks),
                          std::string("--timeout-ms"), std::to_string(settings.timeout.count())})
        args.push_back(std::move(a));
    return args;
}

// Rank 0's error, with what became of the children when one of them ended first (the cause a
// user acts on: "rank 1 was killed by signal 9").
Error withChildren(const Error& e, ChildRanks& children) {
    const std::string ended = children.whatEnded(std::chrono::seconds(2));
    return Error{ended.empty() ? e.message : e.message + " [" + ended + "]"};
}

// Every rank's shard (rank 0 keeps shards[0]).
std::vector<RankShard> shardsOf(const train::ImageView& images, std::span<const int> labels,
                                std::span<const std::int64_t> userOfImage, int world) {
    std::vector<RankShard> shards;
    for (int r = 0; r < world; ++r) shards.push_back(cutShard(images, labels, userOfImage, r, world));
    return shards;
}

}  // namespace

Result<train::FinetuneResult> finetuneAsRankZero(RankStore& store, RankGroup& group, train::Model& model,
                                                 const train::ImageView& images, std::span<const int> labels,
                                                 std::span<const std::int64_t> userOfImage,
                                                 const train::DpSgdParams& params, privacy::Ledger& ledger,
                                                 const RankedRunChecks& checks, const ProgressCallback& progress,
                                                 const CancellationToken& cancel) {
    const std::vector<RankShard> shards = shardsOf(images, labels, userOfImage, group.world());
    const RankJob job{model.spec(), model.device(), params, shards[0]};
    if (auto e = sendRankJobs(store, group, job, shards)) return *e;
    return finetuneDpSgdAcrossRanks(group, model, shards[0], params, ledger, checks, progress, cancel);
}

Result<train::FinetuneResult> finetuneOnLocalRanks(const LocalRankSettings& settings, train::Model& model,
                                                   const train::ImageView& images, std::span<const int> labels,
                                                   std::span<const std::int64_t> userOfImage,
                                                   const train::DpSgdParams& params, privacy::Ledger& ledger,
                                                   const ProgressCallback& progress, const CancellationToken& cancel) {
    RankAddress address;
    address.timeout = settings.timeout;
    auto hosted = RankStore::host(address, settings.ranks);
    if (!hosted) return hosted.error();
    RankStore store = *hosted;  // a handle: the copy shares the store
    ChildRanks children;        // killed and reaped on every way out, a cancellation included
    for (int r = 1; r < settings.ranks; ++r)
        if (auto e = children.start(r, settings.program, rankArguments(settings, store.port(), r))) return *e;
    auto joined = RankGroup::join(store, 0, settings.ranks);
    if (!joined) return withChildren(joined.error(), children);
    RankGroup group = *joined;
    auto result = finetuneAsRankZero(store, group, model, images, labels, userOfImage, params, ledger, settings.checks,
                                     progress, cancel);
    if (!result) return withChildren(result.error(), children);
    if (auto e = children.finish(settings.timeout)) return Error{"data-parallel DP-SGD: " + e->message};
    return result;
}

Status runRank(const RankAddress& address, int rank, int world) {
    auto connected = RankStore::connect(address);
    if (!connected) return connected.error();
    RankStore store = *connected;
    return runRankOn(store, rank, world);
}

Status runRankOn(RankStore& store, int rank, int world) {
    auto joined = RankGroup::join(store, rank, world);
    if (!joined) return joined.error();
    RankGroup group = *joined;
    auto job = receiveRankJob(store, group);
    if (!job) return job.error();
    try {
        train::Model model = train::Model::create(job->spec, 0, job->device);  // rank 0's weights follow
        privacy::Ledger notRecorded;                                           // rank 0 keeps the ledger
        auto r = finetuneDpSgdAcrossRanks(group, model, job->shard, job->params, notRecorded);
        if (!r) return r.error();
        return std::nullopt;
    } catch (const std::exception& e) {
        return Error{"rank " + std::to_string(rank) + ": " + e.what()};
    }
}

}  // namespace dpmix::distributed
