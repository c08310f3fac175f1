// Several public sources (docs/METHODS.md, "Several public sources"): the masked proxy, whose
// heads learn only from their own source's images, and pretraining on λ across sources, whose
// importance weights make the uniform pass over all public images the mixture's expected loss.
#include "engine/train/evaluation.h"
#include "engine/train/model.h"
#include "engine/train/pretrain.h"
#include "engine/train/proxy.h"
#include "synthetic_images.h"

#include "tests/support/unit_test.h"

#include <cmath>
#include <limits>
#include <random>

using namespace dpmix;
using namespace dpmix::train;

namespace {

ImageView viewOf(const testing::SyntheticImages& s) { return ImageView{s.pixels, s.count, 1, s.side, s.side}; }

ModelSpec tinyCnn(int side, int outputs = 1) {
    return ModelSpecBuilder()
        .kind(ModelKind::SmallCnn)
        .input(1, side, side)
        .outputs(outputs)
        .convWidths(8, 8)
        .hidden(16)
        .normGroups(4)
        .build()
        .value();
}

double bce(double f, double y) { return -(y * std::log(f) + (1.0 - y) * std::log(1.0 - f)); }

// Images 0..n/2-1 belong to source 0 (components 0, 1), the rest to source 1 (component 2).
struct TwoSources {
    std::vector<std::size_t> componentSource{0, 0, 1};
    std::vector<std::size_t> imageSource;
    std::vector<unsigned char> defined;
    explicit TwoSources(std::size_t n) {
        for (std::size_t j = 0; j < n; ++j) {
            const std::size_t s = j < n / 2 ? 0 : 1;
            imageSource.push_back(s);
            for (std::size_t c = 0; c < 3; ++c) defined.push_back(componentSource[c] == s ? 1 : 0);
        }
    }
};

}  // namespace

class TestSourceMixture : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void targetsAndWeightsByHand() {
        // Source A: components 0, 1 and images 0–2; source B: component 2 and image 3.
        // λ = (0.2, 0.3, 0.5): Λ_A = Λ_B = 0.5, N = 4, N_A = 3, N_B = 1.
        const std::vector<float> labels{1, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0, 1};
        const std::vector<std::size_t> componentSource{0, 0, 1}, imageSource{0, 0, 0, 1};
        const std::vector<double> lambda{0.2, 0.3, 0.5};
        auto w = sourceMixtureTargets(labels, 3, componentSource, imageSource, lambda);
        QVERIFY(w.ok());
        DPMIX_COMPARE_NEAR(w->targets[0], 0.2 / 0.5, 1e-7);
        DPMIX_COMPARE_NEAR(w->targets[1], 0.3 / 0.5, 1e-7);
        DPMIX_COMPARE_NEAR(w->targets[2], 1.0, 1e-7);
        DPMIX_COMPARE_NEAR(w->targets[3], 1.0, 1e-7);
        for (int j = 0; j < 3; ++j) DPMIX_COMPARE_NEAR(w->weights[static_cast<std::size_t>(j)], 0.5 * 4 / 3, 1e-6);
        DPMIX_COMPARE_NEAR(w->weights[3], 0.5 * 4 / 1, 1e-6);
        // No mass on source B: its image is never drawn.
        auto onlyA = sourceMixtureTargets(labels, 3, componentSource, imageSource, std::vector<double>{0.5, 0.5, 0.0});
        QVERIFY(onlyA.ok());
        QCOMPARE(onlyA->weights[3], 0.0f);
        DPMIX_COMPARE_NEAR(onlyA->weights[0], 4.0 / 3.0, 1e-6);
        // Sizes that do not fit are refused.
        QVERIFY(!sourceMixtureTargets(labels, 3, componentSource, std::vector<std::size_t>{0, 0, 1}, lambda).ok());
    }

    void weightedPassIsTheMixturesExpectedLoss() {
        // For any predictor f, (1/N) Σ_j w_j BCE(f_j, t_j) equals the loss of the mixture drawn
        // component by component: Σ_c λ_c (1/N_s(c)) Σ_{x∈s(c)} BCE(f(x), y_c(x)).
        std::mt19937_64 rng(7);
        std::uniform_real_distribution<double> u(0.05, 0.95);
        const std::size_t n = 9;
        const std::vector<std::size_t> componentSource{0, 1, 0, 2, 1};
        const std::vector<std::size_t> imageSource{0, 1, 2, 0, 0, 1, 2, 2, 0};
        std::vector<float> labels(n * 5);
        for (auto& y : labels) y = u(rng) < 0.5 ? 0.0f : 1.0f;
        std::vector<double> f(n), lambda{0.1, 0.25, 0.3, 0.05, 0.3};
        for (auto& v : f) v = u(rng);
        auto w = sourceMixtureTargets(labels, 5, componentSource, imageSource, lambda);
        QVERIFY(w.ok());
        double weighted = 0.0;
        for (std::size_t j = 0; j < n; ++j) weighted += w->weights[j] * bce(f[j], w->targets[j]);
        weighted /= static_cast<double>(n);
        double byComponent = 0.0;
        for (std::size_t c = 0; c < 5; ++c) {
            double sum = 0.0;
            int count = 0;
            for (std::size_t j = 0; j < n; ++j)
                if (imageSource[j] == componentSource[c]) {
                    sum += bce(f[j], labels[j * 5 + c]);
                    ++count;
                }
            byComponent += lambda[c] * sum / count;
        }
        DPMIX_COMPARE_NEAR(weighted, byComponent, 1e-6);
    }

    void oneSourceIsTheOneSourceObjective() {
        // With one source the weights are 1 and the targets mixtureTargets' (the pipeline then
        // keeps the one-source code path, so one-source studies are unchanged bit for bit).
        const std::vector<float> labels{1, 0, 1, -1, 1, 1, 0, 0, 1};
        const std::vector<double> lambda{0.5, 0.3, 0.2};
        auto w = sourceMixtureTargets(labels, 3, std::vector<std::size_t>{0, 0, 0}, std::vector<std::size_t>{0, 0, 0},
                                      lambda);
        QVERIFY(w.ok());
        const auto t = mixtureTargets(labels, 3, lambda);
        for (std::size_t j = 0; j < 3; ++j) {
            DPMIX_COMPARE_NEAR(w->targets[j], t[j], 1e-7);
            DPMIX_COMPARE_NEAR(w->weights[j], 1.0, 1e-7);
        }
    }

    void maskedProxyLearnsNothingFromUndefinedLabels() {
        auto train = testing::makeQuadrantImages(200, 8, 3, 1.0f, 31);
        const TwoSources layout(200);
        auto params = SupervisedParamsBuilder().epochs(1).batchSize(32).learningRate(3e-3).seed(5).build().value();
        auto masked = trainMaskedProxy(viewOf(train), train.labels, layout.defined, 3, tinyCnn(8), params);
        QVERIFY2(masked.ok(), masked.ok() ? "" : masked.error().message.c_str());
        // Other labels where they are undefined: the same model, bit for bit.
        std::vector<float> scrambled = train.labels;
        for (std::size_t i = 0; i < scrambled.size(); ++i)
            if (!layout.defined[i]) scrambled[i] = 1.0f - scrambled[i];
        auto again = trainMaskedProxy(viewOf(train), scrambled, layout.defined, 3, tinyCnn(8), params);
        QVERIFY(again.ok());
        QVERIFY(masked->parameters() == again->parameters());
        // Without the mask the scrambled labels do change the model (the test can fail).
        auto unmasked = trainProxy(viewOf(train), scrambled, 3, tinyCnn(8), params);
        QVERIFY(unmasked.ok());
        QVERIFY(unmasked->parameters() != masked->parameters());
        // Everything defined: the plain proxy, bit for bit.
        const std::vector<unsigned char> all(train.labels.size(), 1);
        auto full = trainMaskedProxy(viewOf(train), train.labels, all, 3, tinyCnn(8), params);
        auto plain = trainProxy(viewOf(train), train.labels, 3, tinyCnn(8), params);
        QVERIFY(full.ok() && plain.ok());
        QVERIFY(full->parameters() == plain->parameters());
    }

    void maskedProxyRefusesBadMasks() {
        auto train = testing::makeQuadrantImages(20, 8, 3, 1.0f, 32);
        auto params = SupervisedParamsBuilder().epochs(1).batchSize(10).build().value();
        std::vector<unsigned char> shortMask(10, 1);
        QVERIFY(!trainMaskedProxy(viewOf(train), train.labels, shortMask, 3, tinyCnn(8), params).ok());
        std::vector<unsigned char> hole(60, 1);
        hole[12] = hole[13] = hole[14] = 0;  // image 4 has no defined label
        auto r = trainMaskedProxy(viewOf(train), train.labels, hole, 3, tinyCnn(8), params);
        QVERIFY(!r.ok());
        QVERIFY2(r.error().message.find("image 4") != std::string::npos, r.error().message.c_str());
    }

    void pretrainingFollowsTheSourceMass() {
        // All of λ on source 0's first component: the model learns that label on source 0's
        // images; source 1's images weigh 0. Quadrant 0 is bright exactly when component 0 is 1.
        auto train = testing::makeQuadrantImages(1500, 8, 3, 1.0f, 41);
        auto test = testing::makeQuadrantImages(400, 8, 3, 1.0f, 42);
        const TwoSources layout(1500);
        auto params = SupervisedParamsBuilder().epochs(4).batchSize(64).learningRate(3e-3).build().value();
        auto model = pretrainOnSourceMixture(viewOf(train), train.labels, 3, layout.componentSource, layout.imageSource,
                                             std::vector<double>{1.0, 0.0, 0.0}, tinyCnn(8), params);
        QVERIFY2(model.ok(), model.ok() ? "" : model.error().message.c_str());
        std::vector<float> z = model->logits(viewOf(test)).value();
        std::vector<double> s(z.begin(), z.end());
        std::vector<int> y0, y2;
        for (std::int64_t j = 0; j < test.count; ++j) {
            y0.push_back(test.labels[static_cast<std::size_t>(j * 3)] > 0.5f);
            y2.push_back(test.labels[static_cast<std::size_t>(j * 3 + 2)] > 0.5f);
        }
        QVERIFY(*rocAuc(s, y0) > 0.95);
        DPMIX_COMPARE_NEAR(*rocAuc(s, y2), 0.5, 0.1);
        QCOMPARE(pretrainingCollapse(*model, viewOf(test)).value(), std::string());  // a working model
        // An image-source list of the wrong length is refused.
        auto bad = pretrainOnSourceMixture(viewOf(train), train.labels, 3, layout.componentSource,
                                           std::vector<std::size_t>(10, 0), std::vector<double>{1.0, 0.0, 0.0},
                                           tinyCnn(8), params);
        QVERIFY(!bad.ok() && bad.error().message.find("10 image sources") != std::string::npos);
    }

    void aCollapsedPretrainingIsDetected() {
        // A network whose parameters are all 0 outputs logit 0 on every image (docs/RESULTS.md,
        // "The collapsed pretraining": a pretraining whose hidden units all died gives such a model).
        auto images = testing::makeQuadrantImages(400, 8, 3, 1.0f, 43);
        Model model = Model::create(tinyCnn(8), 5, "cpu");
        QCOMPARE(pretrainingCollapse(model, viewOf(images)).value(), std::string());  // initialised: it varies
        std::vector<float> zero(model.parameters().size(), 0.0f);
        QVERIFY(!model.setParameters(zero));
        QCOMPARE(pretrainingCollapse(model, viewOf(images)).value(),
                 std::string("constant outputs: 400 logits all 0 (standard deviation 0)"));
        // Up to maxImages of them, evenly spaced.
        QCOMPARE(pretrainingCollapse(model, viewOf(images), 100).value(),
                 std::string("constant outputs: 100 logits all 0 (standard deviation 0)"));
        // A NaN parameter: every logit NaN (0 · NaN is NaN).
        zero.back() = std::numeric_limits<float>::quiet_NaN();
        QVERIFY(!model.setParameters(zero));
        QCOMPARE(pretrainingCollapse(model, viewOf(images)).value(),
                 std::string("non-finite outputs: 400 of 400 logits NaN or infinite"));
    }
};

QTEST_APPLESS_MAIN(TestSourceMixture)
#include "tst_source_mixture.moc"
