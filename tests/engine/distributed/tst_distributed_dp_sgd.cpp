// Data-parallel DP-SGD (engine/distributed) against the 1-process engine: the same model from
// W = 1 and W = 2 ranks on the same seed (to within float32 reduction order), the noise added
// once (its variance σ²C², not W·σ²C²), the ledger written once by rank 0 with the world size, and
// a rank that leaves or stops answering ending the others' run with an error, not a hang. The
// ranks run on threads of this process over loopback (rank_threads.h).
#include "engine/distributed/distributed_dp_sgd.h"
#include "engine/distributed/local_ranks.h"
#include "engine/train/evaluation.h"
#include "rank_threads.h"
#include "tests/engine/train/synthetic_images.h"

#include "tests/support/unit_test.h"

#include <chrono>
#include <cmath>
#include <mutex>
#include <thread>

using namespace dpmix;
using namespace dpmix::train;
using namespace dpmix::distributed;
using dpmix::test_support::str;

namespace {

// Float32 sums in another order: rank 0's (its clipped sum + noise) plus rank 1's clipped sum,
// where one process sums the whole batch at once. Each step's update then differs by a few
// float32 roundings (relative 6e-8 each) of values below 1; over the 40 steps of these tests the
// parameters (|θ| < 2) moved apart by 2.4e-7 (example level) and 4.8e-7 (user level), so 1e-5
// leaves a factor 20 and still catches any real difference (one example more or less, or a
// second noise draw, moves them by > 1e-3).
constexpr double kReductionOrderTolerance = 1e-5;

ModelSpec smallMlp() {
    return ModelSpecBuilder().kind(ModelKind::Mlp).input(1, 4, 4).outputs(1).mlpHidden({8}).build().value();
}

ImageView viewOf(const train::testing::SyntheticImages& s) { return ImageView{s.pixels, s.count, 1, s.side, s.side}; }

std::vector<int> firstLabels(const train::testing::SyntheticImages& s) {
    std::vector<int> y(static_cast<std::size_t>(s.count));
    for (std::int64_t j = 0; j < s.count; ++j) y[static_cast<std::size_t>(j)] = s.labels[j * s.sources] > 0.5f ? 1 : 0;
    return y;
}

std::vector<std::int64_t> usersOf(std::int64_t images, std::int64_t users) {
    std::vector<std::int64_t> userOf;
    for (std::int64_t j = 0; j < images; ++j) userOf.push_back((j * 7) % users);
    return userOf;
}

DpSgdParams seededParams(int ranks, long long steps = 40) {
    return DpSgdParamsBuilder()
        .epsilon(2.0)
        .clipNorm(0.5)
        .learningRate(0.5)
        .momentum(0.5)
        .expectedBatchSize(16)
        .steps(steps)
        .ranks(ranks)
        .reproducible(11, "finetune/test")
        .build()
        .value();
}

struct RankOutcome {
    std::string error;
    std::vector<float> parameters;
    privacy::Ledger ledger;
    long long steps = 0;
};

// The run of every rank of a W-rank group, each from its own freshly initialised model (a
// different seed per rank: the broadcast at the start must make them one).
std::vector<RankOutcome> runOnRanks(int world, const train::testing::SyntheticImages& data,
                                    std::span<const std::int64_t> userOf, const DpSgdParams& params) {
    std::vector<RankOutcome> out(static_cast<std::size_t>(world));
    const std::vector<int> y = firstLabels(data);
    rank_threads::onRanks(world, [&](RankGroup& group) {
        RankOutcome& o = out[static_cast<std::size_t>(group.rank())];
        Model model = Model::create(smallMlp(), 100 + static_cast<std::uint64_t>(group.rank()), "cpu");
        const RankShard shard = cutShard(viewOf(data), y, userOf, group.rank(), world);
        auto r = finetuneDpSgdAcrossRanks(group, model, shard, params, o.ledger, {5});
        if (!r)
            o.error = r.error().message;
        else
            o.steps = r->steps;
        o.parameters = model.parameters();
    });
    return out;
}

std::vector<float> runInOneProcess(const train::testing::SyntheticImages& data, std::span<const std::int64_t> userOf,
                                   const DpSgdParams& params) {
    Model model = Model::create(smallMlp(), 100, "cpu");
    privacy::Ledger ledger;
    auto r = userOf.empty() ? finetuneDpSgd(model, viewOf(data), firstLabels(data), params, ledger)
                            : finetuneUserLevelDpSgd(model, viewOf(data), firstLabels(data), userOf, params, ledger);
    if (!r) throw std::runtime_error(r.error().message);
    return model.parameters();
}

double largestDifference(const std::vector<float>& a, const std::vector<float>& b) {
    if (a.size() != b.size()) return std::numeric_limits<double>::infinity();
    double worst = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(double(a[i]) - double(b[i])));
    return worst;
}

}  // namespace

class TestDistributedDpSgd : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init() {
        if (!test_support::inThisTestPart({"noiseIsAddedOnceAcrossRanks"}))
            QSKIP("runs in the other part of this executable (DPMIX_TEST_PART)");
    }

    void oneRankGroupIsTheOneProcessRunBitForBit() {
        auto data = train::testing::makeQuadrantImages(96, 4, 1, 1.0f, 3);
        const auto alone = runInOneProcess(data, {}, seededParams(1));
        const auto ranks = runOnRanks(1, data, {}, seededParams(1));
        QVERIFY2(ranks[0].error.empty(), ranks[0].error.c_str());
        QVERIFY(ranks[0].parameters == alone);
    }

    void twoRanksGiveTheOneRankModelExampleLevel() {
        auto data = train::testing::makeQuadrantImages(96, 4, 1, 1.0f, 3);
        const auto alone = runInOneProcess(data, {}, seededParams(1));
        const auto ranks = runOnRanks(2, data, {}, seededParams(2));
        for (const auto& r : ranks) QVERIFY2(r.error.empty(), r.error.c_str());
        QVERIFY(ranks[0].parameters == ranks[1].parameters);  // one all-reduced update on both
        const double d = largestDifference(ranks[0].parameters, alone);
        QVERIFY2(d <= kReductionOrderTolerance, str("largest parameter difference ", d).c_str());
        QVERIFY(largestDifference(alone, Model::create(smallMlp(), 100, "cpu").parameters()) > 1e-2);  // it trained
    }

    void twoRanksGiveTheOneRankModelUserLevel() {
        auto data = train::testing::makeQuadrantImages(96, 4, 1, 1.0f, 4);
        const auto userOf = usersOf(96, 30);
        auto params = seededParams(1);
        params.maxExamplesPerUser = 2;  // users own 3 or 4 images: the per-user draw matters
        const auto alone = runInOneProcess(data, userOf, params);
        params.ranks = 2;
        const auto ranks = runOnRanks(2, data, userOf, params);
        for (const auto& r : ranks) QVERIFY2(r.error.empty(), r.error.c_str());
        QVERIFY(ranks[0].parameters == ranks[1].parameters);
        const double d = largestDifference(ranks[0].parameters, alone);
        QVERIFY2(d <= kReductionOrderTolerance, str("largest parameter difference ", d).c_str());
    }

    void theJobReachesTheOtherRanksUserLevel() {
        // What `dpmix run --ranks 2` does, the child on a thread: rank 0 cuts the shards and sends
        // rank 1 its job (settings through the store, its shard alone); rank 1 is runRank.
        auto data = train::testing::makeQuadrantImages(96, 4, 1, 1.0f, 4);
        const auto userOf = usersOf(96, 30);
        auto params = seededParams(1, 20);
        params.maxExamplesPerUser = 2;
        const auto alone = runInOneProcess(data, userOf, params);
        params.ranks = 2;
        auto hosted = RankStore::host(rank_threads::loopback(), 2);
        QVERIFY2(hosted.ok(), hosted.ok() ? "" : hosted.error().message.c_str());
        RankStore store = *hosted;
        RankAddress address = rank_threads::loopback();
        address.port = store.port();
        Status rankOne;
        std::thread child([&] { rankOne = runRank(address, 1, 2); });
        Model model = Model::create(smallMlp(), 100, "cpu");
        privacy::Ledger ledger;
        Result<FinetuneResult> r = Error{"the group did not form"};
        if (auto group = RankGroup::join(store, 0, 2)) {
            RankGroup joined = *group;
            r = finetuneAsRankZero(store, joined, model, viewOf(data), firstLabels(data), userOf, params, ledger);
        }
        child.join();
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
        QVERIFY2(!rankOne, rankOne ? rankOne->message.c_str() : "");
        const double d = largestDifference(model.parameters(), alone);
        QVERIFY2(d <= kReductionOrderTolerance, str("largest parameter difference ", d).c_str());
        QCOMPARE(ledger.entries().size(), std::size_t(1));
    }

    void rankZeroAloneWritesTheLedgerWithTheWorldSize() {
        auto data = train::testing::makeQuadrantImages(64, 4, 1, 1.0f, 5);
        const auto ranks = runOnRanks(2, data, {}, seededParams(2, 3));
        for (const auto& r : ranks) QVERIFY2(r.error.empty(), r.error.c_str());
        QCOMPARE(ranks[0].ledger.entries().size(), std::size_t(1));
        QVERIFY(ranks[1].ledger.entries().empty());
        const auto& e = ranks[0].ledger.entries()[0];
        QVERIFY(e.assumptions.find("data-parallel over 2 ranks") != std::string::npos);
        QCOMPARE(e.q, 16.0 / 64.0);  // the global rate, not a shard's
        QCOMPARE(e.steps, 3LL);
        QVERIFY(e.randomness == privacy::RandomnessMode::Seeded);
    }

    void aWorldSizeThatIsNotTheGroupsIsRefused() {
        auto data = train::testing::makeQuadrantImages(64, 4, 1, 1.0f, 5);
        const auto ranks = runOnRanks(2, data, {}, seededParams(1, 3));
        QVERIFY(ranks[0].error.find("ranks = 1") != std::string::npos);
        QVERIFY(ranks[0].ledger.entries().empty());
    }

    void eachRankHoldsOnlyItsShard() {
        // Example level: rank r holds the examples r, r + W, ...; user level: every image of the
        // users r, r + W, ..., in the set's order, and every user's image count.
        auto data = train::testing::makeQuadrantImages(10, 4, 1, 1.0f, 5);
        const std::vector<int> y = firstLabels(data);
        const RankShard examples = cutShard(viewOf(data), y, {}, 1, 3);
        QCOMPARE(examples.unitOfImage, (std::vector<std::int64_t>{1, 4, 7}));
        QCOMPARE(examples.units, std::int64_t(10));
        QCOMPARE(examples.pixels.size(), std::size_t(3 * 16));
        QCOMPARE(examples.pixels[16], data.pixels[4 * 16]);
        QVERIFY(examples.imagesPerUser.empty());
        const std::vector<std::int64_t> userOf{0, 1, 2, 1, 0, 1, 2, 0, 1, 1};
        const RankShard users = cutShard(viewOf(data), y, userOf, 1, 2);
        QCOMPARE(users.unitOfImage, (std::vector<std::int64_t>{1, 1, 1, 1, 1}));
        QCOMPARE(users.labels, (std::vector<int>{y[1], y[3], y[5], y[8], y[9]}));
        QCOMPARE(users.imagesPerUser, (std::vector<std::int64_t>{3, 5, 2}));
        QCOMPARE(users.units, std::int64_t(3));
    }

    void ranksWhoseStatesDivergeAreStoppedByTheDigestCheck() {
        // Rank 1 steps with another learning rate: the update differs, and the state digests
        // compared every 5 steps stop both ranks at step 5.
        auto data = train::testing::makeQuadrantImages(64, 4, 1, 1.0f, 5);
        const std::vector<int> y = firstLabels(data);
        std::string errors[2];
        rank_threads::onRanks(2, [&](RankGroup& group) {
            Model model = Model::create(smallMlp(), 1, "cpu");
            privacy::Ledger ledger;
            auto params = seededParams(2, 20);
            if (group.rank() == 1) params.learningRate = 0.4;
            const RankShard shard = cutShard(viewOf(data), y, {}, group.rank(), 2);
            auto r = finetuneDpSgdAcrossRanks(group, model, shard, params, ledger, {5});
            if (!r) errors[group.rank()] = r.error().message;
        });
        for (const auto& e : errors)
            QVERIFY2(e.find("after step 5, 1 rank(s) hold a model or optimizer state that differs from rank 0's") !=
                         std::string::npos,
                     e.c_str());
    }

    void aShardThatIsNotTheRanksIsRefused() {
        auto data = train::testing::makeQuadrantImages(64, 4, 1, 1.0f, 5);
        const std::vector<int> y = firstLabels(data);
        std::string error;
        rank_threads::onRanks(2, [&](RankGroup& group) {
            Model model = Model::create(smallMlp(), 1, "cpu");
            privacy::Ledger ledger;
            const RankShard rankZeros = cutShard(viewOf(data), y, {}, 0, 2);  // on both ranks
            auto r = finetuneDpSgdAcrossRanks(group, model, rankZeros, seededParams(2, 3), ledger);
            if (group.rank() == 1 && !r) error = r.error().message;
        });
        QVERIFY2(error.find("is of unit 0, which is not rank 1's") != std::string::npos, error.c_str());
    }

    void aRankThatLeavesEndsTheRunWithAnError() {
        auto data = train::testing::makeQuadrantImages(64, 4, 1, 1.0f, 5);
        const std::vector<int> y = firstLabels(data);
        RankOutcome zero;
        const auto started = std::chrono::steady_clock::now();
        rank_threads::onRanks(
            2,
            [&](RankGroup& group) {
                if (group.rank() == 1) {
                    // Takes part in the start (the model broadcast), then stops answering.
                    Model model = Model::create(smallMlp(), 1, "cpu");
                    std::vector<float> values;
                    (void)group.broadcast(values, 0);
                    std::this_thread::sleep_for(std::chrono::seconds(4));
                    return;
                }
                Model model = Model::create(smallMlp(), 1, "cpu");
                const RankShard shard = cutShard(viewOf(data), y, {}, 0, 2);
                auto r = finetuneDpSgdAcrossRanks(group, model, shard, seededParams(2, 50), zero.ledger);
                if (!r) zero.error = r.error().message;
            },
            std::chrono::seconds(2));
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        QVERIFY2(zero.error.find("rank 0") != std::string::npos && zero.error.find("all-reduce") != std::string::npos,
                 zero.error.c_str());
        QVERIFY2(seconds < 10.0, str(seconds, " s").c_str());
        QCOMPARE(zero.ledger.entries().size(), std::size_t(1));  // recorded before the first step: counted
    }

    void noiseIsAddedOnceAcrossRanks() {
        // q = 1 (every example every step) and secret randomness: the runs with σ = 0 and σ = 2 on
        // 2 ranks differ by lr·σC·ξ/N after one step. ξ must be standard normal: one N(0, σ²C²)
        // draw, not one per rank (std √2).
        auto data = train::testing::makeQuadrantImages(20, 4, 1, 1.0f, 6);
        const std::vector<int> y = firstLabels(data);
        std::vector<double> z;
        std::mutex lock;
        rank_threads::onRanks(2, [&](RankGroup& group) {
            for (int run = 0; run < 30; ++run) {
                std::vector<float> params[2];
                for (int noisy = 0; noisy < 2; ++noisy) {
                    auto p = DpSgdParamsBuilder().sigma(noisy ? 2.0 : 0.0).clipNorm(0.3).learningRate(1.0);
                    auto built = p.expectedBatchSize(20).steps(1).ranks(2).build().value();
                    Model model = Model::create(smallMlp(), static_cast<std::uint64_t>(run), "cpu");
                    privacy::Ledger ledger;
                    const RankShard shard = cutShard(viewOf(data), y, {}, group.rank(), 2);
                    if (!finetuneDpSgdAcrossRanks(group, model, shard, built, ledger)) return;
                    params[noisy] = model.parameters();
                }
                if (group.rank() != 0) continue;
                std::lock_guard<std::mutex> hold(lock);
                for (std::size_t i = 0; i < params[0].size(); ++i)
                    z.push_back((params[0][i] - params[1][i]) / (2.0 * 0.3 / 20.0));
            }
        });
        QCOMPARE(z.size(), static_cast<std::size_t>(30 * Model::create(smallMlp(), 0, "cpu").parameterCount()));
        auto ms = meanAndStd(z);  // 30 × 145 standard normals: the std's standard error is 0.015
        QVERIFY2(std::abs(ms->mean) < 0.15 && std::abs(ms->std - 1.0) < 0.08,
                 str("mean ", ms->mean, " std ", ms->std).c_str());
    }
};

QTEST_APPLESS_MAIN(TestDistributedDpSgd)
#include "tst_distributed_dp_sgd.moc"
