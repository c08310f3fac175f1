// DP-SGD and Dirichlet fine-tuning through the public API. Deterministic checks use q = 1
// (every example sampled) and σ = 0 on logistic / softmax regression, whose per-example
// gradients are known in closed form: (σ(z) − y)·[x, 1] and (softmax(z) − e_y) ⊗ [x, 1].
#include "engine/privacy/dirichlet_accountant.h"
#include "engine/privacy/gaussian_accountant.h"
#include "engine/train/dirichlet_training.h"
#include "engine/train/dp_sgd.h"
#include "engine/train/evaluation.h"
#include "synthetic_images.h"

#include "tests/support/unit_test.h"

#include <cmath>
#include <functional>
#include <limits>

using namespace dpmix;
using namespace dpmix::train;
using dpmix::test_support::str;

namespace {

ModelSpec linearModel(int side, int outputs) {
    return ModelSpecBuilder().kind(ModelKind::Mlp).input(1, side, side).outputs(outputs).mlpHidden({}).build().value();
}

ImageView viewOf(const testing::SyntheticImages& s) { return ImageView{s.pixels, s.count, 1, s.side, s.side}; }

std::vector<int> sourceLabels(const testing::SyntheticImages& s, int source) {
    std::vector<int> y(static_cast<std::size_t>(s.count));
    for (std::int64_t j = 0; j < s.count; ++j) y[j] = s.labels[j * s.sources + source] > 0.5f ? 1 : 0;
    return y;
}

// Example j's gradient for softmax / logistic regression, parameters [W (K×D), b (K)]:
// (softmax(z) − e_y) ⊗ [x, 1], or (σ(z) − y)·[x, 1] for one output.
std::vector<double> handGradient(const std::vector<float>& params, const std::vector<float>& x, int d, int k,
                                 std::size_t j, int y) {
    std::vector<double> z(k);
    for (int o = 0; o < k; ++o) {
        z[o] = params[static_cast<std::size_t>(k * d + o)];
        for (int i = 0; i < d; ++i) z[o] += params[static_cast<std::size_t>(o * d + i)] * x[j * d + i];
    }
    std::vector<double> delta(k);  // d loss / d z
    if (k == 1) {
        delta[0] = 1.0 / (1.0 + std::exp(-z[0])) - y;
    } else {
        double m = *std::max_element(z.begin(), z.end()), tot = 0;
        for (int o = 0; o < k; ++o) tot += std::exp(z[o] - m);
        for (int o = 0; o < k; ++o) delta[o] = std::exp(z[o] - m) / tot - (o == y ? 1.0 : 0.0);
    }
    std::vector<double> g(params.size(), 0.0);
    for (int o = 0; o < k; ++o) {
        for (int i = 0; i < d; ++i) g[static_cast<std::size_t>(o * d + i)] = delta[o] * x[j * d + i];
        g[static_cast<std::size_t>(k * d + o)] = delta[o];
    }
    return g;
}

// sum += min(1, C/‖g‖) g.
void addClipped(const std::vector<double>& g, double c, std::vector<double>& sum) {
    double sq = 0.0;
    for (double v : g) sq += v * v;
    const double f = std::min(1.0, c / std::sqrt(sq));
    for (std::size_t i = 0; i < g.size(); ++i) sum[i] += f * g[i];
}

// Σ_b min(1, C/‖g_b‖) g_b.
std::vector<double> handClippedSum(const std::vector<float>& params, const std::vector<float>& x, int d, int k,
                                   const std::vector<int>& y, double c) {
    std::vector<double> sum(params.size(), 0.0);
    for (std::size_t j = 0; j < y.size(); ++j) addClipped(handGradient(params, x, d, k, j, y[j]), c, sum);
    return sum;
}

// Σ_u min(1, C/‖ḡ_u‖) ḡ_u with ḡ_u the mean of user u's example gradients (every example used).
std::vector<double> handUserClippedSum(const std::vector<float>& params, const std::vector<float>& x, int d, int k,
                                       const std::vector<int>& y, const std::vector<std::int64_t>& userOf, double c) {
    const std::int64_t users = *std::max_element(userOf.begin(), userOf.end()) + 1;
    std::vector<double> sum(params.size(), 0.0);
    for (std::int64_t u = 0; u < users; ++u) {
        std::vector<double> mean(params.size(), 0.0);
        double count = 0;
        for (std::size_t j = 0; j < y.size(); ++j) {
            if (userOf[j] != u) continue;
            const auto g = handGradient(params, x, d, k, j, y[j]);
            for (std::size_t i = 0; i < g.size(); ++i) mean[i] += g[i];
            ++count;
        }
        for (double& v : mean) v /= count;
        addClipped(mean, c, sum);
    }
    return sum;
}

// 40 images of 13 users with 1 to 5 images each, interleaved.
std::vector<std::int64_t> thirteenUsers() {
    std::vector<std::int64_t> userOf;
    for (std::int64_t j = 0; j < 40; ++j) userOf.push_back((j * 5) % 13);
    return userOf;
}

void checkOneStep(int outputs) {
    auto data = testing::makeQuadrantImages(40, 4, 2, 1.0f, 5);
    std::vector<int> y = sourceLabels(data, 0);
    if (outputs > 2)
        for (std::size_t j = 0; j < y.size(); ++j) y[j] = static_cast<int>(j % outputs);
    Model model = Model::create(linearModel(4, outputs), 3, "cpu");
    const std::vector<float> before = model.parameters();
    const double c = 1.5, lr = 0.7;
    auto params =
        DpSgdParamsBuilder().sigma(0.0).clipNorm(c).learningRate(lr).expectedBatchSize(40).steps(1).build().value();
    privacy::Ledger ledger;
    auto result = finetuneDpSgd(model, viewOf(data), y, params, ledger);
    QVERIFY2(result.ok(), result.ok() ? "" : result.error().message.c_str());
    QVERIFY2(result->clippedFraction > 0.0 && result->clippedFraction < 1.0,  // C cuts some, not all
             str(result->clippedFraction).c_str());
    std::vector<double> g = handClippedSum(before, data.pixels, 16, outputs, y, c);
    const std::vector<float> after = model.parameters();
    for (std::size_t i = 0; i < after.size(); ++i)  // θ' = θ − lr · Σ clip(g_b) / (q·N), q·N = 40
        QVERIFY2(std::abs(after[i] - (before[i] - lr * g[i] / 40.0)) < 1e-5,
                 str("parameter ", i, ": ", after[i], " vs ", before[i] - lr * g[i] / 40.0).c_str());
}

// One step with σ = 0 and σ = 2 of the same seed, 60 seeds: (θ_0 − θ_2)·expected/(lr·σC) must be
// standard normal. `train` runs one step with the given parameters (it sets the batch).
void checkNoiseIsStandardised(double expectedBatch,
                              const std::function<bool(Model&, const DpSgdParams&, privacy::Ledger&)>& train) {
    std::vector<double> z;
    for (std::uint64_t seed = 1; seed <= 60; ++seed) {
        std::vector<float> runs[2];
        for (int noisy = 0; noisy < 2; ++noisy) {
            Model model = Model::create(linearModel(4, 1), 1, "cpu");
            auto p = DpSgdParamsBuilder()
                         .sigma(noisy ? 2.0 : 0.0)
                         .clipNorm(0.3)
                         .learningRate(1.0)
                         .steps(1)
                         .reproducible(seed)
                         .build()
                         .value();
            privacy::Ledger ledger;
            QVERIFY(train(model, p, ledger));
            runs[noisy] = model.parameters();
        }
        for (std::size_t i = 0; i < runs[0].size(); ++i)
            z.push_back((runs[0][i] - runs[1][i]) / (1.0 * 2.0 * 0.3 / expectedBatch));
    }
    auto ms = meanAndStd(z);  // 60 × 17 standard normals
    QVERIFY2(std::abs(ms->mean) < 0.15 && std::abs(ms->std - 1.0) < 0.1,
             str("mean ", ms->mean, " std ", ms->std).c_str());
}

}  // namespace

class TestDpSgd : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Monte-Carlo tests run under the `statistical` label, the rest under `unit` (one executable).
    void init() {
        if (!dpmix::test_support::inThisTestPart(
                {"noiseHasStdSigmaCOverExpectedBatch", "userLevelNoiseHasStdSigmaCOverExpectedUsers",
                 "dpSgdLearnsASeparableTask", "dirichletRecordsClaimedEntryAndLearns"}))
            QSKIP("runs in the other part of this executable (DPMIX_TEST_PART)");
    }

    void binaryStepMatchesHandComputation() { checkOneStep(1); }

    void nonFiniteExamplesContributeNothing() {
        // Inputs must be finite (checked up front), but a finite input can still give a gradient
        // whose norm is not finite: pixels of 1e30 make ‖∇ℓ‖² overflow float. Such examples (7 and
        // 20) contribute nothing: the step must be the hand-computed clipped sum over the other 38,
        // still divided by q·N = 40.
        auto data = testing::makeQuadrantImages(40, 4, 1, 1.0f, 5);
        const std::vector<int> y = sourceLabels(data, 0);
        auto bad = data;
        bad.pixels[7 * 16 + 3] = 1e30f;
        bad.pixels[20 * 16] = 3e38f;
        Model model = Model::create(linearModel(4, 1), 3, "cpu");
        const std::vector<float> before = model.parameters();
        auto params = DpSgdParamsBuilder()
                          .sigma(0.0)
                          .clipNorm(1.5)
                          .learningRate(0.7)
                          .expectedBatchSize(40)
                          .steps(1)
                          .build()
                          .value();
        privacy::Ledger ledger;
        QVERIFY(finetuneDpSgd(model, viewOf(bad), y, params, ledger).ok());
        std::vector<float> keptPixels;
        std::vector<int> keptLabels;
        for (int j = 0; j < 40; ++j)
            if (j != 7 && j != 20) {
                keptPixels.insert(keptPixels.end(), data.pixels.begin() + j * 16, data.pixels.begin() + (j + 1) * 16);
                keptLabels.push_back(y[j]);
            }
        const std::vector<double> g = handClippedSum(before, keptPixels, 16, 1, keptLabels, 1.5);
        const std::vector<float> after = model.parameters();
        for (std::size_t i = 0; i < after.size(); ++i) {
            QVERIFY(std::isfinite(after[i]));
            QVERIFY2(std::abs(after[i] - (before[i] - 0.7 * g[i] / 40.0)) < 1e-5,
                     str("parameter ", i, ": ", after[i], " vs ", before[i] - 0.7 * g[i] / 40.0).c_str());
        }
    }
    void multiclassStepMatchesHandComputation() { checkOneStep(3); }

    void noiseHasStdSigmaCOverExpectedBatch() {
        // Same data, seed and q = 1: runs with σ = 0 and σ = 2 differ by lr·σC·ξ/(qN), ξ ~ N(0, I).
        auto data = testing::makeQuadrantImages(20, 4, 1, 1.0f, 6);
        const std::vector<int> y = sourceLabels(data, 0);
        checkNoiseIsStandardised(20.0, [&](Model& model, const DpSgdParams& p, privacy::Ledger& ledger) {
            DpSgdParams full = p;
            full.expectedBatchSize = 20;
            return finetuneDpSgd(model, viewOf(data), y, full, ledger).ok();
        });
    }
    void userLevelStepMatchesHandComputation() {
        // q = 1 (all 13 users), G = 5 (every image of every user), σ = 0: one step is
        // θ − lr · Σ_u clip(mean of user u's gradients) / m.
        auto data = testing::makeQuadrantImages(40, 4, 1, 1.0f, 5);
        const std::vector<int> y = sourceLabels(data, 0);
        const auto userOf = thirteenUsers();
        Model model = Model::create(linearModel(4, 1), 3, "cpu");
        const std::vector<float> before = model.parameters();
        auto params = DpSgdParamsBuilder()
                          .sigma(0.0)
                          .clipNorm(0.3)
                          .learningRate(0.7)
                          .expectedBatchSize(13)
                          .steps(1)
                          .maxExamplesPerUser(5)
                          .build()
                          .value();
        privacy::Ledger ledger;
        auto result = finetuneUserLevelDpSgd(model, viewOf(data), y, userOf, params, ledger);
        QVERIFY2(result.ok(), result.ok() ? "" : result.error().message.c_str());
        const std::vector<double> g = handUserClippedSum(before, data.pixels, 16, 1, y, userOf, 0.3);
        const std::vector<double> perExample = handClippedSum(before, data.pixels, 16, 1, y, 0.3);
        const std::vector<float> after = model.parameters();
        double differs = 0;
        for (std::size_t i = 0; i < after.size(); ++i) {
            QVERIFY2(std::abs(after[i] - (before[i] - 0.7 * g[i] / 13.0)) < 1e-5,
                     str("parameter ", i, ": ", after[i], " vs ", before[i] - 0.7 * g[i] / 13.0).c_str());
            differs = std::max(differs, std::abs(g[i] - perExample[i]));
        }
        QVERIFY(differs > 1e-3);  // the user rule is not the example rule on these data
    }

    void userLevelLedgerCountsUsers() {
        // 1000 images of 250 users (4 each): q = B/m = 25/250, σ calibrated for (ε, δ, q, T) of users.
        auto data = testing::makeQuadrantImages(1000, 4, 1, 1.0f, 7);
        std::vector<std::int64_t> userOf;
        for (std::int64_t j = 0; j < 1000; ++j) userOf.push_back(j % 250);
        Model model = Model::create(linearModel(4, 1), 1, "cpu");
        auto p = DpSgdParamsBuilder()
                     .epsilon(2.0)
                     .delta(1e-5)
                     .clipNorm(1.5)
                     .expectedBatchSize(25)
                     .steps(20)
                     .maxExamplesPerUser(2)
                     .build()
                     .value();
        privacy::Ledger ledger;
        auto r = finetuneUserLevelDpSgd(model, viewOf(data), sourceLabels(data, 0), userOf, p, ledger);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
        QCOMPARE(ledger.entries().size(), std::size_t(1));
        const auto& e = ledger.entries()[0];
        QVERIFY(e.unit == privacy::PrivacyUnit::User);
        QCOMPARE(e.q, 0.1);
        QCOMPARE(e.steps, 20LL);
        QCOMPARE(e.sigma, privacy::calibrateGaussianSigma(2.0, 1e-5, 0.1, 20)->sigma);
        QVERIFY(e.epsilon <= 2.0 && e.epsilon > 1.9);
        // The example-level rate on the same data would be 25/1000: a different mechanism.
        QVERIFY(std::abs(e.sigma - privacy::calibrateGaussianSigma(2.0, 1e-5, 0.025, 20)->sigma) > 0.1);
    }

    void userLevelBadInputIsAnError() {
        auto data = testing::makeQuadrantImages(40, 4, 1, 1.0f, 5);
        const std::vector<int> y = sourceLabels(data, 0);
        Model model = Model::create(linearModel(4, 1), 3, "cpu");
        privacy::Ledger ledger;
        auto p = DpSgdParamsBuilder().sigma(0.0).expectedBatchSize(14).steps(1).build().value();
        auto tooMany = finetuneUserLevelDpSgd(model, viewOf(data), y, thirteenUsers(), p, ledger);
        QVERIFY(!tooMany.ok());
        QVERIFY(tooMany.error().message.find("13 fine-tuning users") != std::string::npos);
        std::vector<std::int64_t> gap = thirteenUsers();
        for (auto& u : gap)
            if (u == 4) u = 12;  // user 4 owns nothing
        p.expectedBatchSize = 2;
        QVERIFY(!finetuneUserLevelDpSgd(model, viewOf(data), y, gap, p, ledger).ok());
        QVERIFY(!finetuneUserLevelDpSgd(model, viewOf(data), y, std::vector<std::int64_t>(39, 0), p, ledger).ok());
        QVERIFY(ledger.entries().empty());
        QVERIFY(!DpSgdParamsBuilder().maxExamplesPerUser(0).build().ok());
    }

    void userLevelNoiseHasStdSigmaCOverExpectedUsers() {
        // Same seed (same users and images each step), σ = 0 vs σ = 2, q = 5/13: the runs differ
        // by lr·σC·ξ/(q·m), ξ ~ N(0, I), whatever the sampled batch.
        auto data = testing::makeQuadrantImages(40, 4, 1, 1.0f, 6);
        const std::vector<int> y = sourceLabels(data, 0);
        checkNoiseIsStandardised(5.0, [&](Model& model, const DpSgdParams& p, privacy::Ledger& ledger) {
            DpSgdParams users = p;
            users.expectedBatchSize = 5;
            users.maxExamplesPerUser = 2;
            return finetuneUserLevelDpSgd(model, viewOf(data), y, thirteenUsers(), users, ledger).ok();
        });
    }

    void ledgerRecordsCalibratedGaussian() {
        auto data = testing::makeQuadrantImages(1000, 4, 1, 1.0f, 7);
        Model model = Model::create(linearModel(4, 1), 1, "cpu");
        auto p = DpSgdParamsBuilder()
                     .epsilon(2.0)
                     .delta(1e-5)
                     .clipNorm(1.5)
                     .expectedBatchSize(100)
                     .epochs(2)
                     .build()
                     .value();
        privacy::Ledger ledger;
        auto r = finetuneDpSgd(model, viewOf(data), sourceLabels(data, 0), p, ledger);
        QVERIFY(r.ok());
        QCOMPARE(ledger.entries().size(), std::size_t(1));
        const auto& e = ledger.entries()[0];
        QCOMPARE(e.stage, std::string("finetune"));
        QCOMPARE(e.split, std::string("B"));
        QVERIFY(e.mechanism == privacy::MechanismKind::SubsampledGaussian);
        QCOMPARE(e.q, 0.1);
        QCOMPARE(e.steps, 20LL);  // 2 epochs × 1000 / 100
        QCOMPARE(e.clipNorm, 1.5);
        QCOMPARE(e.sigma, privacy::calibrateGaussianSigma(2.0, 1e-5, 0.1, 20)->sigma);
        QVERIFY(e.epsilon <= 2.0 && e.epsilon > 1.9);
        QCOMPARE(r->stepLoss.size(), std::size_t(20));
    }

    void onlyLastBlocksChange() {
        auto data = testing::makeQuadrantImages(64, 8, 1, 1.0f, 8);
        ModelSpec spec = ModelSpecBuilder()
                             .kind(ModelKind::SmallCnn)
                             .input(1, 8, 8)
                             .outputs(1)
                             .convWidths(4, 4)
                             .hidden(6)
                             .normGroups(2)
                             .build()
                             .value();
        Model model = Model::create(spec, 2, "cpu");
        const std::vector<float> before = model.parameters();
        auto p = DpSgdParamsBuilder()
                     .sigma(1.0)
                     .learningRate(0.5)
                     .expectedBatchSize(16)
                     .steps(3)
                     .trainLastBlocks(1)
                     .build()
                     .value();
        privacy::Ledger ledger;
        QVERIFY(finetuneDpSgd(model, viewOf(data), sourceLabels(data, 0), p, ledger).ok());
        const std::vector<float> after = model.parameters();
        const std::size_t head = 6 + 1;  // Linear(6 → 1): the last 7 parameters
        for (std::size_t i = 0; i < after.size() - head; ++i) QCOMPARE(after[i], before[i]);
        bool headMoved = false;
        for (std::size_t i = after.size() - head; i < after.size(); ++i) headMoved |= after[i] != before[i];
        QVERIFY(headMoved);
    }

    void badInputIsAnErrorAndLeavesLedgerUnchanged() {
        auto data = testing::makeQuadrantImages(30, 4, 1, 1.0f, 9);
        Model model = Model::create(linearModel(4, 1), 1, "cpu");
        const std::vector<float> before = model.parameters();
        privacy::Ledger ledger;
        auto ok = DpSgdParamsBuilder().expectedBatchSize(10).steps(2).build().value();
        auto tooBig = DpSgdParamsBuilder().expectedBatchSize(31).steps(2).build().value();
        std::vector<int> y = sourceLabels(data, 0);
        auto r1 = finetuneDpSgd(model, viewOf(data), y, tooBig, ledger);
        QVERIFY(!r1.ok() && r1.error().message.find("expectedBatchSize = 31") != std::string::npos);
        std::vector<int> bad = y;
        bad[4] = 2;
        auto r2 = finetuneDpSgd(model, viewOf(data), bad, ok, ledger);
        QVERIFY(!r2.ok() && r2.error().message.find("index 4") != std::string::npos);
        ImageView wrongShape{data.pixels, 30, 1, 2, 8};
        QVERIFY(!finetuneDpSgd(model, wrongShape, y, ok, ledger).ok());
        auto deep = DpSgdParamsBuilder().trainLastBlocks(5).build().value();
        QVERIFY(!finetuneDpSgd(model, viewOf(data), y, deep, ledger).ok());
        QVERIFY(ledger.entries().empty());
        QVERIFY(model.parameters() == before);
        // Builders reject bad values with the field's name.
        QVERIFY(DpSgdParamsBuilder().clipNorm(0).build().error().message.find("clipNorm") != std::string::npos);
        QVERIFY(DpSgdParamsBuilder().learningRate(-1).build().error().message.find("learningRate") !=
                std::string::npos);
        QVERIFY(DpSgdParamsBuilder().expectedBatchSize(0).build().error().message.find("expectedBatchSize") !=
                std::string::npos);
        QVERIFY(DirichletParamsBuilder().alpha(1.0).r(1.5).build().error().message.find("r = 1.5") !=
                std::string::npos);
    }

    void cancellationStopsTraining() {
        auto data = testing::makeQuadrantImages(30, 4, 1, 1.0f, 10);
        Model model = Model::create(linearModel(4, 1), 1, "cpu");
        CancellationToken token;
        int reports = 0;
        auto p = DpSgdParamsBuilder().expectedBatchSize(10).steps(1000).build().value();
        privacy::Ledger ledger;
        bool cancelled = false;
        try {
            (void)finetuneDpSgd(
                model, viewOf(data), sourceLabels(data, 0), p, ledger,
                [&](const ProgressEvent& e) {
                    ++reports;
                    if (e.done >= 21) token.cancel();
                },
                token);
        } catch (const Cancelled&) {
            cancelled = true;
        }
        QVERIFY(cancelled);
        QCOMPARE(reports, 3);  // steps 1, 11, 21 reported; cancelled before step 22
    }

    void secretRandomnessIsNotRegeneratedBySeededMode() {
        // The same data, model and configuration: secret noise differs run to run; seeded noise
        // repeats and is marked as no release (for DP-SGD and the Dirichlet mechanism alike).
        auto train = testing::makeQuadrantImages(400, 4, 1, 1.5f, 11);
        // Weights (empty if the run failed, which fails every comparison below) and the ledger's mark.
        auto run = [&](auto builder, bool dirichlet) -> std::pair<std::vector<float>, privacy::RandomnessMode> {
            Model model = Model::create(linearModel(4, dirichlet ? 2 : 1), 5, "cpu");  // the same public initialisation
            privacy::Ledger ledger;
            auto p = builder.build().value();
            bool ok = false;
            if constexpr (std::is_same_v<decltype(p), DirichletParams>)
                ok = finetuneDirichlet(model, viewOf(train), sourceLabels(train, 0), p, ledger).ok();
            else
                ok = finetuneDpSgd(model, viewOf(train), sourceLabels(train, 0), p, ledger).ok();
            if (!ok || ledger.entries().empty()) return {{}, privacy::RandomnessMode::Secret};
            return {model.parameters(), ledger.entries().front().randomness};
        };
        auto dpSgd = [] { return DpSgdParamsBuilder().epsilon(2.0).expectedBatchSize(50).steps(5); };
        auto dirichlet = [] { return DirichletParamsBuilder().epsilon(2.0).alpha(3.0).expectedBatchSize(50).steps(5); };
        const auto s1 = run(dpSgd(), false), s2 = run(dpSgd(), false);
        QVERIFY(!s1.first.empty() && !s2.first.empty());
        QVERIFY(s1.first != s2.first);
        QVERIFY(s1.second == (privacy::RandomnessMode::Secret));
        const auto r1 = run(dpSgd().reproducible(0, "finetune/dp-mixmin/task=t/eps=2/seed=0"), false);
        const auto r2 = run(dpSgd().reproducible(0, "finetune/dp-mixmin/task=t/eps=2/seed=0"), false);
        QVERIFY(!r1.first.empty());
        QCOMPARE(r1.first, r2.first);
        QVERIFY(r1.second == (privacy::RandomnessMode::Seeded));
        QVERIFY(run(dpSgd().reproducible(0, "finetune/uniform/task=t/eps=2/seed=0"), false).first != r1.first);
        const auto d1 = run(dirichlet(), true), d2 = run(dirichlet(), true);
        QVERIFY(!d1.first.empty() && !d2.first.empty());
        QVERIFY(d1.first != d2.first);
        QVERIFY(d1.second == (privacy::RandomnessMode::Secret));
        const auto e1 = run(dirichlet().reproducible(4), true), e2 = run(dirichlet().reproducible(4), true);
        QVERIFY(!e1.first.empty());
        QCOMPARE(e1.first, e2.first);
        QVERIFY(e1.second == (privacy::RandomnessMode::Seeded));
    }

    void dpSgdLearnsASeparableTask() {
        for (std::uint64_t seed = 1; seed <= 3; ++seed) {
            auto train = testing::makeQuadrantImages(2000, 4, 1, 1.5f, 100 + seed);
            auto test = testing::makeQuadrantImages(500, 4, 1, 1.5f, 200 + seed);
            Model model = Model::create(linearModel(4, 1), seed, "cpu");
            auto p = DpSgdParamsBuilder()
                         .epsilon(4.0)
                         .clipNorm(1.0)
                         .learningRate(2.0)
                         .expectedBatchSize(200)
                         .epochs(10)
                         .reproducible(seed)
                         .build()
                         .value();
            privacy::Ledger ledger;
            QVERIFY(finetuneDpSgd(model, viewOf(train), sourceLabels(train, 0), p, ledger).ok());
            std::vector<float> logits = model.logits(viewOf(test)).value();
            auto auc = rocAuc(std::vector<double>(logits.begin(), logits.end()), sourceLabels(test, 0));
            QVERIFY2(*auc > 0.9, str("seed ", seed, ": AUC ", *auc).c_str());
        }
    }

    void dirichletRecordsClaimedEntryAndLearns() {
        for (std::uint64_t seed = 1; seed <= 3; ++seed) {
            auto train = testing::makeQuadrantImages(2000, 4, 1, 1.5f, 300 + seed);
            auto test = testing::makeQuadrantImages(500, 4, 1, 1.5f, 400 + seed);
            Model model = Model::create(linearModel(4, 2), seed, "cpu");
            auto p = DirichletParamsBuilder()
                         .epsilon(4.0)
                         .alpha(3.0)
                         .learningRate(0.5)
                         .expectedBatchSize(100)
                         .epochs(10)
                         .reproducible(seed)
                         .build()
                         .value();
            privacy::Ledger ledger;
            auto r = finetuneDirichlet(model, viewOf(train), sourceLabels(train, 0), p, ledger);
            QVERIFY(r.ok());
            const auto& e = ledger.entries().at(0);
            QVERIFY(e.mechanism == privacy::MechanismKind::SubsampledDirichlet);
            QVERIFY(!e.established);
            QCOMPARE(e.steps, 200LL);
            QCOMPARE(e.dirichletR, privacy::calibrateDirichletR(4.0, 1e-5, 3.0, 0.05, 200)->r);
            QVERIFY(e.epsilon <= 4.0);
            std::vector<float> logits = model.logits(viewOf(test)).value();  // (n, 2)
            std::vector<double> score;
            for (std::size_t j = 0; j < logits.size(); j += 2) score.push_back(logits[j + 1] - logits[j]);
            auto auc = rocAuc(score, sourceLabels(test, 0));
            QVERIFY2(*auc > 0.9, str("seed ", seed, ": AUC ", *auc).c_str());
        }
    }
};

QTEST_APPLESS_MAIN(TestDpSgd)
#include "tst_dp_sgd.moc"
