// DP-SGD's white-box audit hook (engine/train/gradient_canaries.h): without an included canary the
// run is bit-identical to finetuneDpSgd; an included canary is one more example to the sampler and
// the ledger; at σ = 0 each sampled canary adds exactly C to its coordinate of the noisy sum and
// moves its weight by exactly lr·C/(q·N'); bad canaries are refused before anything is recorded.
//
// The exact checks train a linear model on all-zero images: the weights' gradient g·xᵀ is then
// exactly zero, so a canary on a weight sees nothing but itself (and, with σ > 0, the noise).
#include "engine/train/detail/poisson_sampler.h"
#include "engine/train/dp_sgd.h"
#include "engine/train/gradient_canaries.h"
#include "synthetic_images.h"

#include "tests/support/unit_test.h"

#include <cmath>
#include <set>

using namespace dpmix;
using namespace dpmix::train;
using dpmix::test_support::str;

namespace {

constexpr int kSide = 4;  // 16 weights + 1 bias

ModelSpec linearModel() {
    return ModelSpecBuilder().kind(ModelKind::Mlp).input(1, kSide, kSide).outputs(1).mlpHidden({}).build().value();
}

DpSgdParams params(std::optional<double> sigma, long long steps = 60) {
    DpSgdParamsBuilder b;
    b.clipNorm(1.5).learningRate(0.5).expectedBatchSize(10).steps(steps).reproducible(7);
    if (sigma) b.sigma(*sigma);
    return b.build().value();
}

struct Data {
    std::vector<float> pixels;
    std::vector<int> labels;
    std::int64_t count = 0;
    ImageView view() const { return {pixels, count, 1, kSide, kSide}; }
};

Data zeroImages(std::int64_t n) {
    Data d;
    d.count = n;
    d.pixels.assign(static_cast<std::size_t>(n * kSide * kSide), 0.0f);
    for (std::int64_t j = 0; j < n; ++j) d.labels.push_back(static_cast<int>(j % 2));
    return d;
}

Data noisyImages(std::int64_t n) {
    const auto s = testing::makeQuadrantImages(n, kSide, 1, 1.0f, 3);
    Data d;
    d.count = n;
    d.pixels = s.pixels;
    for (std::int64_t j = 0; j < n; ++j) d.labels.push_back(s.labels[static_cast<std::size_t>(j)] > 0.5f ? 1 : 0);
    return d;
}

// Canaries on weights 0, 1, …, m−1, coins alternating in / out.
GradientCanaries weightCanaries(int m) {
    GradientCanaries c;
    for (int i = 0; i < m; ++i) {
        c.coordinates.push_back(i);
        c.included.push_back(i % 2 == 0 ? 1 : 0);
    }
    return c;
}

}  // namespace

class TestGradientCanaries : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void withoutAnIncludedCanaryTheRunIsBitIdentical() {
        const Data d = noisyImages(80);
        for (bool allOut : {false, true}) {
            GradientCanaries none = weightCanaries(allOut ? 8 : 0);
            std::fill(none.included.begin(), none.included.end(), std::uint8_t{0});
            Model plain = Model::create(linearModel(), 3, "cpu"), hooked = Model::create(linearModel(), 3, "cpu");
            privacy::Ledger plainLedger, hookedLedger;
            const auto a = finetuneDpSgd(plain, d.view(), d.labels, params(std::nullopt), plainLedger).value();
            const auto b =
                finetuneDpSgdWithGradientCanaries(hooked, d.view(), d.labels, params(std::nullopt), none, hookedLedger)
                    .value();
            QVERIFY(plain.parameters() == hooked.parameters());  // bit for bit
            QCOMPARE(a.stepLoss.size(), b.stepLoss.size());
            for (std::size_t t = 0; t < a.stepLoss.size(); ++t)
                QVERIFY(a.stepLoss[t] == b.stepLoss[t] || (std::isnan(a.stepLoss[t]) && std::isnan(b.stepLoss[t])));
            QCOMPARE(hookedLedger.entries().size(), std::size_t(1));
            const auto &x = plainLedger.entries()[0], &y = hookedLedger.entries()[0];
            QCOMPARE(y.q, x.q);
            QCOMPARE(y.sigma, x.sigma);
            QCOMPARE(y.steps, x.steps);
            QCOMPARE(y.epsilon, x.epsilon);
        }
    }

    void atSigmaZeroASampledCanaryAddsExactlyC() {
        const Data d = zeroImages(40);
        GradientCanaries c = weightCanaries(12);
        const long long steps = 60;
        std::vector<std::vector<double>> seen;
        c.observe = [&](long long t, std::span<const double> sum) {
            QCOMPARE(t, static_cast<long long>(seen.size()));
            seen.emplace_back(sum.begin(), sum.end());
        };
        Model model = Model::create(linearModel(), 5, "cpu");
        const auto before = model.parameters();
        privacy::Ledger ledger;
        const auto p = params(0.0, steps);
        const auto r = finetuneDpSgdWithGradientCanaries(model, d.view(), d.labels, p, c, ledger).value();
        const auto after = model.parameters();
        QCOMPARE(static_cast<long long>(seen.size()), steps);
        // The sampler of the mechanism, replayed: units 40 examples + 6 included canaries.
        const std::int64_t units = 40 + 6;
        QCOMPARE(r.q, 10.0 / static_cast<double>(units));
        detail::PoissonSampler replay(units, r.q, p.randomness);
        std::vector<long long> count(12, 0);
        for (long long t = 0; t < steps; ++t) {
            std::set<int> sampled;
            for (std::int64_t row : replay.next())
                if (row >= 40) sampled.insert(static_cast<int>(2 * (row - 40)));  // included canaries: 0, 2, 4, …
            for (int i = 0; i < 12; ++i) {
                const double expected = sampled.count(i) ? 1.5 : 0.0;
                QVERIFY2(std::abs(seen[static_cast<std::size_t>(t)][static_cast<std::size_t>(i)] - expected) <= 1e-6,
                         str("step ", t, " canary ", i, ": ", seen[t][i], " expected ", expected).c_str());
                count[static_cast<std::size_t>(i)] += sampled.count(i);
            }
        }
        long long total = 0;
        for (int i = 0; i < 12; ++i) {
            // w ← w − lr·(C·sampled)/(q·N'): exactly lr·C/B per time sampled.
            const double moved =
                static_cast<double>(after[static_cast<std::size_t>(i)]) - before[static_cast<std::size_t>(i)];
            const double expected = -0.5 * 1.5 / 10.0 * static_cast<double>(count[static_cast<std::size_t>(i)]);
            QVERIFY2(std::abs(moved - expected) <= 1e-5,
                     str("canary ", i, ": moved ", moved, " expected ", expected).c_str());
            if (i % 2 == 1) QCOMPARE(count[static_cast<std::size_t>(i)], 0LL);
            total += count[static_cast<std::size_t>(i)];
        }
        QVERIFY(total > 10);                       // 6 canaries × 60 steps × q ≈ 0.22: about 78 samples
        QCOMPARE(after[16] == before[16], false);  // the bias, which the examples do train
    }

    void theLedgerCountsTheIncludedCanaries() {
        const Data d = noisyImages(80);
        GradientCanaries c = weightCanaries(16);  // 8 in
        Model model = Model::create(linearModel(), 3, "cpu");
        privacy::Ledger ledger;
        const auto p = params(std::nullopt);
        const auto r = finetuneDpSgdWithGradientCanaries(model, d.view(), d.labels, p, c, ledger).value();
        const auto planned = plannedDpSgdEntry(p, 80 + 8, privacy::PrivacyUnit::Example).value();
        QCOMPARE(ledger.entries().size(), std::size_t(1));
        const auto& e = ledger.entries()[0];
        QCOMPARE(e.stage, std::string("finetune"));
        QVERIFY(e.mechanism == privacy::MechanismKind::SubsampledGaussian);
        QCOMPARE(e.q, 10.0 / 88.0);
        QCOMPARE(e.q, planned.q);
        QCOMPARE(e.sigma, planned.sigma);
        QCOMPARE(e.steps, planned.steps);
        QCOMPARE(e.epsilon, planned.epsilon);
        QCOMPARE(r.noise, planned.sigma);
    }

    void badCanariesAreRefusedBeforeTheLedger() {
        const Data d = noisyImages(80);
        const auto refused = [&](GradientCanaries c, const std::string& words, int lastBlocks = 0) {
            Model model = Model::create(linearModel(), 3, "cpu");
            const auto before = model.parameters();
            privacy::Ledger ledger;
            auto p = params(std::nullopt);
            p.trainLastBlocks = lastBlocks;
            const auto r = finetuneDpSgdWithGradientCanaries(model, d.view(), d.labels, p, c, ledger);
            QVERIFY(!r.ok());
            QVERIFY2(r.error().message.find(words) != std::string::npos, r.error().message.c_str());
            QVERIFY(ledger.entries().empty());
            QVERIFY(model.parameters() == before);
        };
        GradientCanaries c = weightCanaries(4);
        c.included.pop_back();
        refused(c, "coins for 4 canaries");
        c = weightCanaries(4);
        c.coordinates[2] = 17;  // 17 parameters: 0..16
        refused(c, "outside the model's 17 parameters");
        c.coordinates[2] = -1;
        refused(c, "outside");
        c = weightCanaries(4);
        c.coordinates[3] = 1;
        refused(c, "repeated");
        // A two-layer network, only its head trained: a canary on the first layer is refused.
        const auto spec = ModelSpecBuilder().kind(ModelKind::Mlp).input(1, kSide, kSide).outputs(1).mlpHidden({3});
        Model twoLayers = Model::create(spec.build().value(), 3, "cpu");
        auto p = params(std::nullopt);
        p.trainLastBlocks = 1;
        privacy::Ledger ledger;
        const auto r = finetuneDpSgdWithGradientCanaries(twoLayers, d.view(), d.labels, p, weightCanaries(2), ledger);
        QVERIFY(!r.ok());
        QVERIFY2(r.error().message.find("frozen block") != std::string::npos, r.error().message.c_str());
        QVERIFY(ledger.entries().empty());
    }

    void spreadCoordinatesAreDistinctAndReproducible() {
        const auto a = spreadCanaryCoordinates(1000, 300, 9);
        QCOMPARE(a.size(), std::size_t(300));
        QCOMPARE(std::set<std::int64_t>(a.begin(), a.end()).size(), std::size_t(300));
        for (auto c : a) QVERIFY(c >= 0 && c < 1000);
        QVERIFY(spreadCanaryCoordinates(1000, 300, 9) == a);
        QVERIFY(spreadCanaryCoordinates(1000, 300, 10) != a);
        QCOMPARE(spreadCanaryCoordinates(1000, 1000, 1).size(), std::size_t(1000));
        QVERIFY(spreadCanaryCoordinates(10, 11, 1).empty());
    }
};

QTEST_APPLESS_MAIN(TestGradientCanaries)
#include "tst_gradient_canaries.moc"
