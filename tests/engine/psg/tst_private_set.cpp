// The PSG matching step and generator: the distance against a hand-computed case, the DP real
// gradient against the per-example definition, its noise variance (statistical), the double
// backward through the synthetic gradient against finite differences, the steps counted against
// the ledger, cancellation, and learning on a separable toy task (statistical).
#include "engine/psg/detail/gradient_match.h"
#include "engine/psg/private_set.h"
#include "engine/psg/set_evaluation.h"
#include "tests/engine/train/clipping_reference.h"
#include "tests/support/unit_test.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/csrc/autograd/autograd.h>

#include <cmath>
#include <random>

using namespace dpmix;
using namespace dpmix::psg;
using at::Tensor;
using dpmix::test_support::str;

namespace {

train::ModelSpec tinyConvNet(int side, int classes) {
    return train::ModelSpecBuilder()
        .kind(train::ModelKind::ConvNet)
        .input(1, side, side)
        .outputs(classes)
        .convNet(4, 2)
        .build()
        .value();
}

// Two classes a ConvNet separates easily: the left or the right half bright, plus noise.
struct ToyImages {
    std::vector<float> pixels;
    std::vector<int> labels;
    int side = 8;
    train::ImageView view() const { return {pixels, static_cast<std::int64_t>(labels.size()), 1, side, side}; }
};

ToyImages toyImages(int n, unsigned seed) {
    ToyImages t;
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(0.0f, 0.3f);
    for (int i = 0; i < n; ++i) {
        const int c = i % 2;
        t.labels.push_back(c);
        for (int y = 0; y < t.side; ++y)
            for (int x = 0; x < t.side; ++x) t.pixels.push_back(((x < t.side / 2) == (c == 0) ? 0.7f : 0.0f) + u(rng));
    }
    return t;
}

PsgParams toyParams(int spc, int iterations, int batchLoop, int batch, std::uint64_t seed = 1) {
    return PsgParamsBuilder()
        .imagesPerClass(spc)
        .iterations(iterations)
        .batchLoop(batchLoop)
        .expectedBatchSize(batch)
        .network(4, 2)
        .sigma(0.5)
        .seed(seed)
        .reproducible(seed, "tst_private_set")
        .build()
        .value();
}

}  // namespace

class TestPrivateSet : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init() {
        if (!dpmix::test_support::inThisTestPart(
                {"realGradientNoiseHasTheCalibratedVariance", "learnedSetTeachesTheToyTask"}))
            QSKIP("runs in the other part of this executable (DPMIX_TEST_PART)");
    }

    void distanceMatchesAHandComputedCase() {
        // Linear weight rows: (1,0)·(1,1): cos 1/(√2+ε); (0,1)·(0,−2): cos −2/(2+ε). Bias: 0. (ε = 1e-6)
        // Conv weight rows (3,4)·(3,4): cos 25/(25+1e-6); (0,0)·(1,0): cos 0 → 1.
        const Tensor linS = at::tensor({1.0, 0.0, 0.0, 1.0}, at::kDouble).reshape({2, 2});
        const Tensor linR = at::tensor({1.0, 1.0, 0.0, -2.0}, at::kDouble).reshape({2, 2});
        const Tensor biasS = at::tensor({1.0, 2.0}, at::kDouble), biasR = at::tensor({3.0, -4.0}, at::kDouble);
        const Tensor convS = at::tensor({3.0, 4.0, 0.0, 0.0}, at::kDouble).reshape({2, 1, 1, 2});
        const Tensor convR = at::tensor({3.0, 4.0, 1.0, 0.0}, at::kDouble).reshape({2, 1, 1, 2});
        const double expected =
            (1 - 1 / (std::sqrt(2.0) + 1e-6)) + (1 + 2 / (2 + 1e-6)) + 0.0 + (1 - 25 / (25 + 1e-6)) + 1.0;
        const double got = psg::detail::matchDistance({linS, biasS, convS}, {linR, biasR, convR}).item<double>();
        DPMIX_COMPARE_NEAR(got, expected, 1e-12);
        // Scale invariance per row: the DP gradient's normalisation does not matter.
        const double scaled =
            psg::detail::matchDistance({linS, biasS, convS}, {linR * 7, biasR, convR * 0.01}).item<double>();
        DPMIX_COMPARE_NEAR(scaled, expected, 1e-5);  // up to the 1e-6 in the denominator
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, psg::detail::matchDistance({linS}, {linR, biasR}));
    }

    void realGradientEqualsThePerExampleDefinition() {
        at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(3);
        train::detail::Network net = train::detail::buildNetwork(tinyConvNet(8, 3), gen);
        const Tensor x = at::randn({6, 1, 8, 8}, gen) * 3;
        const Tensor y = at::tensor({0, 1, 2, 0, 1, 2}, at::kLong);
        for (double clip : {0.1, 1.0, 1e9}) {
            privacy::MechanismRng noise(privacy::RandomnessSource::seeded(1, "zero"), "noise");
            const std::vector<Tensor> dp =
                psg::detail::privateRealGradient(net, x, y, clip, /*noiseStd=*/0.0, 1.0, noise);
            std::vector<double> norms;
            const std::vector<Tensor> expected = train::testing::naiveClippedSum(
                net, 6,
                [&](std::int64_t u) {
                    return at::cross_entropy_loss(net.forward(x.slice(0, u, u + 1), nullptr), y.slice(0, u, u + 1));
                },
                clip, &norms);
            QCOMPARE(dp.size(), expected.size());
            double worst = 0;
            for (std::size_t i = 0; i < dp.size(); ++i)
                worst = std::max(worst, (dp[i] - expected[i]).abs().max().item<double>() /
                                            std::max(1.0, expected[i].abs().max().item<double>()));
            QVERIFY2(worst < 1e-5, str("clip ", clip, ": max relative error ", worst).c_str());
            if (clip == 0.1) QVERIFY(*std::min_element(norms.begin(), norms.end()) > 0.1);  // every example clipped
            for (Tensor* p : net.parameters()) QVERIFY(!p->grad().defined());               // nothing left behind
        }
    }

    void realGradientNoiseHasTheCalibratedVariance() {
        // An empty batch releases noise only: N(0, noiseStd²) / denominator per coordinate.
        at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(5);
        train::detail::Network net = train::detail::buildNetwork(tinyConvNet(8, 3), gen);
        privacy::MechanismRng noise(privacy::RandomnessSource::seeded(9, "variance"), "noise");
        const double noiseStd = 0.3, denominator = 2.0, expectedVar = std::pow(noiseStd / denominator, 2);
        double sum = 0, sumSq = 0;
        long long n = 0;
        for (int r = 0; r < 40; ++r)
            for (const Tensor& g :
                 psg::detail::privateRealGradient(net, Tensor(), Tensor(), 0.1, noiseStd, denominator, noise)) {
                sum += g.sum().item<double>();
                sumSq += g.pow(2).sum().item<double>();
                n += g.numel();
            }
        const double mean = sum / n, var = sumSq / n - mean * mean;
        // n ≈ 17,000: the variance estimate has relative sd √(2/n) ≈ 1.1%; allow 5 sd.
        DPMIX_COMPARE_NEAR(var / expectedVar, 1.0, 5 * std::sqrt(2.0 / n));
        DPMIX_COMPARE_NEAR(mean, 0.0, 5 * std::sqrt(expectedVar / n));
    }

    void doubleBackwardAgreesWithFiniteDifferences() {
        at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(11);
        train::detail::Network net =
            train::detail::buildNetwork(tinyConvNet(8, 3), gen, at::TensorOptions().dtype(at::kDouble));
        Tensor set = at::randn({3, 1, 8, 8}, gen, at::kDouble).set_requires_grad(true);
        const Tensor labels = at::tensor({0, 1, 2}, at::kLong);
        std::vector<Tensor> real;
        for (Tensor* p : net.parameters()) real.push_back(at::randn(p->sizes(), gen, at::kDouble));
        auto distanceAt = [&](const Tensor& s) {
            return psg::detail::matchDistance(psg::detail::syntheticGradient(net, s, labels), real);
        };
        const Tensor analytic = torch::autograd::grad({distanceAt(set)}, {set})[0];
        QVERIFY(analytic.abs().max().item<double>() > 1e-6);  // a real signal to compare
        const double h = 1e-6;
        for (int64_t flat : {0, 17, 64, 100, 150, 191}) {
            Tensor plus = set.detach().clone(), minus = set.detach().clone();
            plus.view(-1)[flat] += h;
            minus.view(-1)[flat] -= h;
            const double fd = (distanceAt(plus).item<double>() - distanceAt(minus).item<double>()) / (2 * h);
            const double a = analytic.view(-1)[flat].item<double>();
            QVERIFY2(std::abs(a - fd) <= 1e-5 * std::max(1.0, std::abs(fd)),
                     str("pixel ", flat, ": autograd ", a, ", finite difference ", fd).c_str());
        }
    }

    void stepsRunEqualTheLedgerEntry() {
        const ToyImages data = toyImages(40, 1);
        for (const auto& [spc, iterations, batchLoop] : {std::tuple{1, 3, 2}, std::tuple{10, 1, 1}}) {
            const PsgParams params = toyParams(spc, iterations, batchLoop, 8);
            privacy::Ledger ledger;
            long long lastDone = 0, total = 0;
            PsgControl control;
            control.progress = [&](const ProgressEvent& e) {
                lastDone = e.done;
                total = e.total;
            };
            auto r = generatePrivateSet(data.view(), data.labels, 2, params, ledger, control);
            QVERIFY2(r, r ? "" : r.error().message.c_str());
            const long long k = static_cast<long long>(iterations) * params.loops().outer * batchLoop;
            QCOMPARE(r->dpGradientSteps, k);
            QCOMPARE(r->entry.steps, k);
            QCOMPARE(ledger.entries().size(), std::size_t(1));
            QCOMPARE(ledger.entries()[0].steps, k);
            QCOMPARE(lastDone, k);
            QCOMPARE(total, k);
            QCOMPARE(r->set.count(), std::int64_t(2 * spc));
            QCOMPARE(r->set.pixels.size(), std::size_t(2 * spc * 64));
            QCOMPARE(r->set.labels.front(), 0);
            QCOMPARE(r->set.labels.back(), 1);
            QCOMPARE(r->matchLoss.size(), std::size_t(iterations));
        }
    }

    void badInputIsRefusedBeforeTheLedger() {
        const ToyImages data = toyImages(40, 2);
        privacy::Ledger ledger;
        std::vector<int> badLabels = data.labels;
        badLabels[3] = 5;
        auto r = generatePrivateSet(data.view(), badLabels, 2, toyParams(1, 1, 1, 8), ledger);
        QVERIFY(!r);
        QVERIFY2(r.error().message.find("label 5 of image 3") != std::string::npos, r.error().message.c_str());
        r = generatePrivateSet(data.view(), data.labels, 2, toyParams(1, 1, 1, 41), ledger);
        QVERIFY(!r);
        QVERIFY2(r.error().message.find("batch = 41 exceeds the 40") != std::string::npos, r.error().message.c_str());
        auto deep = PsgParamsBuilder().imagesPerClass(1).network(4, 4).sigma(1).build().value();
        r = generatePrivateSet(data.view(), data.labels, 2, deep, ledger);  // 8 px halved 4 times
        QVERIFY(!r);
        QVERIFY2(r.error().message.find("at least 16x16") != std::string::npos, r.error().message.c_str());
        QVERIFY(ledger.entries().empty());
    }

    void cancellationStopsWithTheEntryRecorded() {
        const ToyImages data = toyImages(40, 3);
        privacy::Ledger ledger;
        CancellationToken cancel;
        PsgControl control;
        control.cancel = cancel;
        int snapshots = 0;
        control.snapshotEvery = 1;
        control.snapshot = [&](const PrivateSet&, int) { ++snapshots; };
        control.progress = [&](const ProgressEvent& e) {
            if (e.done >= 2) cancel.cancel();
        };
        QVERIFY_THROWS_EXCEPTION(
            Cancelled, (void)generatePrivateSet(data.view(), data.labels, 2, toyParams(1, 5, 2, 8), ledger, control));
        QCOMPARE(snapshots, 1);                             // one iteration finished, then the cancel
        QCOMPARE(ledger.entries().size(), std::size_t(1));  // at most the planned cost was spent
        QCOMPARE(ledger.entries()[0].steps, 10LL);
    }

    void learnedSetTeachesTheToyTask() {
        const ToyImages train = toyImages(400, 4), test = toyImages(200, 5);
        const train::ModelSpec spec = tinyConvNet(8, 2);
        SetTrainingParams eval;
        eval.epochs = 100;
        for (std::uint64_t seed : {1, 2, 3}) {
            PsgParams params = toyParams(1, 30, 10, 64, seed);
            privacy::Ledger ledger;
            auto r = generatePrivateSet(train.view(), train.labels, 2, params, ledger);
            QVERIFY(r);
            eval.seed = seed;
            auto acc = accuracyAfterTrainingOn(spec, r->set.view(), r->set.labels, test.view(), test.labels, eval);
            QVERIFY(acc);
            QVERIFY2(*acc >= 0.9, str("seed ", seed, ": accuracy ", *acc, " of the learned set").c_str());
        }
    }
};

QTEST_APPLESS_MAIN(TestPrivateSet)
#include "tst_private_set.moc"
