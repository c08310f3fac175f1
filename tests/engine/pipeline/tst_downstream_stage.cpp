// The downstream stage's pretraining cache: a cached pretrained model must give exactly the run
// a fresh pretraining gives (same fine-tuned weights, same AUC), and only bit-identical λ, seed
// and pretraining settings may share a cache entry. A collapsed pretrained model is named.
#include "engine/pipeline/downstream_stage.h"
#include "engine/privacy/gaussian_accountant.h"

#include "tests/support/unit_test.h"

#include <random>

using namespace dpmix;
using namespace dpmix::pipeline;

namespace {

constexpr int kSide = 8;

// n 8×8 images of 4 classes (class c brightens quadrant c); labels: one column per entry of
// `tasks`, each a set of classes.
data::ImageDataset images(int n, std::uint64_t seed, const std::vector<std::vector<int>>& tasks) {
    data::ImageDataset d;
    d.channels = 1;
    d.height = d.width = kSide;
    std::mt19937_64 rng(seed);
    for (std::size_t t = 0; t < tasks.size(); ++t) d.labelNames.push_back("t" + std::to_string(t));
    for (int i = 0; i < n; ++i) {
        const int c = static_cast<int>(rng() % 4);
        for (int y = 0; y < kSide; ++y)
            for (int x = 0; x < kSide; ++x) {
                const int quadrant = (y >= kSide / 2) * 2 + (x >= kSide / 2);
                d.pixels.push_back(
                    static_cast<float>((quadrant == c ? 0.7 : 0.1) + 0.2 * static_cast<double>(rng() % 100) / 100.0));
            }
        for (const auto& classes : tasks)
            d.labels.push_back(std::find(classes.begin(), classes.end(), c) != classes.end() ? 1.0f : 0.0f);
    }
    return d;
}

ImageStudy tinyStudy() {
    ImageStudy s;
    s.publicImages = images(96, 1, {{0}, {1}, {2, 3}});
    s.sensitiveImages = images(160, 2, {{0, 1}});
    s.componentNames = {"a", "b", "cd"};
    s.taskNames = {"ab"};
    for (std::size_t i = 0; i < 160; ++i) (i < 120 ? s.sensitiveSplit.train : s.sensitiveSplit.test).push_back(i);
    return s;
}

DownstreamRequest request(const ImageStudy& s, Eigen::VectorXd lambda) {
    DownstreamRequest r;
    r.task = 0;
    r.lambda = std::move(lambda);
    r.finetuneIndices = s.sensitiveSplit.train;
    r.epsilon = 2.0;
    r.delta = 1e-5;
    r.seed = 7;
    // Seeded: the test compares runs bit for bit (secret randomness would differ every run).
    r.finetuneRandomness = privacy::RandomnessSource::seeded(7, "finetune/test");
    r.pretrain.batch = 16;
    r.pretrain.steps = 6;
    r.pretrain.lr = 0.1;
    r.finetune.batch = 32;
    r.finetune.steps = 4;
    r.finetune.lr = 0.05;
    r.finetune.clip = 1.0;
    return r;
}

}  // namespace

class TestDownstreamStage : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void cachedPretrainingGivesTheSameRun() {
        const auto study = tinyStudy();
        Eigen::VectorXd lambda(3);
        lambda << 0.5, 0.3, 0.2;

        privacy::Ledger plainLedger(privacy::Composition::Parallel);
        auto plain = runDownstream(study, request(study, lambda), plainLedger);
        QVERIFY2(plain, plain ? "" : plain.error().message.c_str());
        QVERIFY(!plain->pretrainingReused);

        PretrainCache cache;
        auto req = request(study, lambda);
        req.pretrainCache = &cache;
        privacy::Ledger l1(privacy::Composition::Parallel), l2(privacy::Composition::Parallel);
        auto first = runDownstream(study, req, l1);
        QVERIFY(first);
        QVERIFY(!first->pretrainingReused);
        QCOMPARE(cache.size(), std::size_t{1});
        auto second = runDownstream(study, req, l2);
        QVERIFY(second);
        QVERIFY(second->pretrainingReused);
        QCOMPARE(cache.hits(), 1LL);

        // Bit-identical: the cache must not change what fine-tuning sees.
        QCOMPARE(first->weights, plain->weights);
        QCOMPARE(second->weights, plain->weights);
        QCOMPARE(second->testAuc, plain->testAuc);
        QCOMPARE(second->pretrainedTestAuc, plain->pretrainedTestAuc);
        // Each run still records its own fine-tuning mechanism.
        QCOMPARE(l2.entries().size(), plainLedger.entries().size());
    }

    void aCollapsedPretrainingIsNamedBeforeFineTuning() {
        // A working pretraining is not flagged; a collapsed one (here the cached model's parameters
        // all 0, so every logit is 0 on the 96 public images) is, and its pretrained AUC is ½: every score ties.
        const auto study = tinyStudy();
        Eigen::VectorXd lambda(3);
        lambda << 0.5, 0.3, 0.2;
        PretrainCache cache;
        auto req = request(study, lambda);
        req.pretrainCache = &cache;
        privacy::Ledger l1(privacy::Composition::Parallel), l2(privacy::Composition::Parallel);
        auto working = runDownstream(study, req, l1);
        QVERIFY2(working, working ? "" : working.error().message.c_str());
        QCOMPARE(working->pretrainingCollapse, std::string());
        const std::string key = PretrainCache::key(lambda, req.seed, req.pretrain);
        cache.store(key, std::vector<float>(cache.find(key)->weights.size(), 0.0f));
        auto collapsed = runDownstream(study, req, l2);
        QVERIFY2(collapsed, collapsed ? "" : collapsed.error().message.c_str());
        QVERIFY(collapsed->pretrainingReused);
        QCOMPARE(collapsed->pretrainingCollapse,
                 std::string("constant outputs: 96 logits all 0 (standard deviation 0)"));
        QCOMPARE(collapsed->pretrainedTestAuc, 0.5);
        // Random Init pretrains nothing, so there is nothing to check.
        req.lambda.reset();
        privacy::Ledger l3(privacy::Composition::Parallel);
        auto randomInit = runDownstream(study, req, l3);
        QVERIFY(randomInit);
        QCOMPARE(randomInit->pretrainingCollapse, std::string());
    }

    void anotherLambdaOrSeedIsAMiss() {
        const auto study = tinyStudy();
        Eigen::VectorXd a(3), b(3);
        a << 0.5, 0.3, 0.2;
        b = a;
        b[2] = std::nextafter(b[2], 1.0);  // one ulp apart
        project::PretrainStage stage;
        QVERIFY(PretrainCache::key(a, 0, stage) != PretrainCache::key(b, 0, stage));
        QVERIFY(PretrainCache::key(a, 0, stage) != PretrainCache::key(a, 1, stage));
        auto other = stage;
        other.steps += 1;
        QVERIFY(PretrainCache::key(a, 0, stage) != PretrainCache::key(a, 0, other));
        other = stage;
        other.lr = std::nextafter(stage.lr, 1.0);
        QVERIFY(PretrainCache::key(a, 0, stage) != PretrainCache::key(a, 0, other));
        QCOMPARE(PretrainCache::key(a, 3, stage), PretrainCache::key(Eigen::VectorXd(a), 3, stage));

        PretrainCache cache;
        auto req = request(study, a);
        req.pretrainCache = &cache;
        privacy::Ledger l1(privacy::Composition::Parallel), l2(privacy::Composition::Parallel);
        QVERIFY(runDownstream(study, req, l1));
        req.lambda = b;
        auto r = runDownstream(study, req, l2);
        QVERIFY(r);
        QVERIFY(!r->pretrainingReused);
        QCOMPARE(cache.size(), std::size_t{2});
        QCOMPARE(cache.hits(), 0LL);
    }

    void sequentialCompositionSpendsTheRestOfTheBudget() {
        // DP-MixMin spent (ε/2, δ/2) on the same people: fine-tuning gets the σ that brings the
        // sequentially composed ledger to the target ε (≤ ε, to 1e-9), with more noise than alone.
        const auto study = tinyStudy();
        Eigen::VectorXd lambda(3);
        lambda << 0.5, 0.3, 0.2;
        auto req = request(study, lambda);
        const double sigmaA = privacy::calibrateGaussianSigma(1.0, 0.5e-5, 0.2, 50)->sigma;
        const auto mixture =
            privacy::gaussianEntry("mixture", "A", privacy::PrivacyUnit::Example, 0.2, sigmaA, 50, 0.5e-5, 13.0);
        req.spentBefore = {mixture};
        privacy::Ledger ledger(privacy::Composition::Sequential);
        ledger.record(mixture);
        auto r = runDownstream(study, req, ledger);
        QVERIFY2(r, r ? "" : r.error().message.c_str());
        const auto total = ledger.total();
        QVERIFY2(total.epsilon <= 2.0 + 1e-9 && total.epsilon > 2.0 - 1e-6,
                 dpmix::test_support::str(dpmix::test_support::Exact{total.epsilon}).c_str());
        privacy::Ledger alone(privacy::Composition::Parallel);
        auto plain = runDownstream(study, request(study, lambda), alone);
        QVERIFY(plain);
        QVERIFY(r->noise > plain->noise);
        // The Dirichlet mechanism is not calibrated against an earlier stage: refused.
        req.finetune.mechanism = methods::FinetuneMechanism::Dirichlet;
        privacy::Ledger refused(privacy::Composition::Sequential);
        auto d = runDownstream(study, req, refused);
        QVERIFY(!d &&
                d.error().message.find("sequential composition with the Dirichlet mechanism") != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestDownstreamStage)
#include "tst_downstream_stage.moc"
