// Model specs and handles, the classification proxy and mixture pretraining (public API only).
#include "engine/train/evaluation.h"
#include "engine/train/model.h"
#include "engine/train/pretrain.h"
#include "engine/train/proxy.h"
#include "synthetic_images.h"

#include "tests/support/unit_test.h"

#include <cmath>

using namespace dpmix;
using namespace dpmix::train;
using dpmix::test_support::str;

namespace {

ImageView viewOf(const testing::SyntheticImages& s) { return ImageView{s.pixels, s.count, 1, s.side, s.side}; }

std::vector<int> column(const std::vector<float>& labels, int k, int i) {
    std::vector<int> y;
    for (std::size_t j = 0; j < labels.size() / k; ++j) y.push_back(labels[j * k + i] > 0.5f ? 1 : 0);
    return y;
}

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

}  // namespace

class TestModelsAndPublicTraining : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void parameterCountsMatchHandCounts() {
        // Demo CNN, 28×28×1, one logit: conv 1·32·9+32, GN 2·32, conv 32·64·9+64, GN 2·64,
        // Linear 3136·128+128, head 128+1.
        ModelSpec cnn = ModelSpecBuilder().kind(ModelKind::SmallCnn).build().value();
        QCOMPARE(Model::create(cnn, 1, "cpu").parameterCount(), 320LL + 64 + 18496 + 128 + 401536 + 129);
        // ResNet-18 CIFAR variant (3×3 stem, width 64, 10 classes): 11,173,962 parameters, the
        // widely published count for that network with BatchNorm (GroupNorm has the same γ, β).
        ModelSpec resnet = ModelSpecBuilder().kind(ModelKind::ResNet18).input(3, 32, 32).outputs(10).build().value();
        QCOMPARE(Model::create(resnet, 1, "cpu").parameterCount(), 11173962LL);
        ModelSpec mlp = ModelSpecBuilder().kind(ModelKind::Mlp).outputs(10).build().value();
        QCOMPARE(Model::create(mlp, 1, "cpu").parameterCount(), 784LL * 512 + 512 + 512 * 512 + 512 + 512 * 10 + 10);
        QCOMPARE(resnet.blockCount(), 10);
    }

    void specBuilderNamesTheBadField() {
        auto e1 = ModelSpecBuilder().kind(ModelKind::ResNet18).resnetWidth(20).normGroups(8).build();
        QVERIFY(!e1.ok() &&
                e1.error().message.find("normGroups = 8 does not divide resnetWidth = 20") != std::string::npos);
        auto e2 = ModelSpecBuilder().input(1, 2, 28).build();
        QVERIFY(!e2.ok() && e2.error().message.find("height = 2") != std::string::npos);
        ModelKind k;
        QVERIFY(parseModelKind("resnet18", k) && k == ModelKind::ResNet18);
        QVERIFY(!parseModelKind("vgg", k));
    }

    void parametersRoundTripAndCloneIsIndependent() {
        Model a = Model::create(tinyCnn(8), 1, "cpu");
        Model b = Model::create(tinyCnn(8), 2, "cpu");
        QVERIFY(a.parameters() != b.parameters());
        QVERIFY(!b.setParameters(a.parameters()));
        QVERIFY(a.parameters() == b.parameters());
        auto err = b.setParameters(std::vector<float>(3, 0.0f));
        QVERIFY(err && err->message.find("got 3 values") != std::string::npos);
        QVERIFY(a.parameters() == b.parameters());  // unchanged on error
        Model c = a.clone();
        std::vector<float> zero(a.parameters().size(), 0.0f);
        QVERIFY(!c.setParameters(zero));
        QVERIFY(a.parameters() != c.parameters());
        // Same seed, same network.
        QVERIFY(Model::create(tinyCnn(8), 7, "cpu").parameters() == Model::create(tinyCnn(8), 7, "cpu").parameters());
    }

    void logitsShapeAndShapeErrors() {
        auto data = testing::makeQuadrantImages(5, 8, 1, 1.0f, 1);
        Model m = Model::create(tinyCnn(8, 3), 1, "cpu");
        auto out = m.logits(viewOf(data));
        QVERIFY(out.ok());
        QCOMPARE(out->size(), std::size_t(15));
        ImageView wrong{data.pixels, 5, 1, 4, 16};
        QVERIFY(m.logits(wrong).error().message.find("model expects 1x8x8") != std::string::npos);
        ImageView shortBuffer{std::span<const float>(data.pixels).first(10), 5, 1, 8, 8};
        QVERIFY(!m.logits(shortBuffer).ok());
    }

    void proxyPredictsEverySource() {
        // 3 sources, each a bright quadrant; held-out AUC per source from the proxy's P.
        auto train = testing::makeQuadrantImages(1500, 8, 3, 1.0f, 11);
        auto test = testing::makeQuadrantImages(400, 8, 3, 1.0f, 12);
        train.labels[0] = -1.0f;  // an uncertain label is accepted (counted as 0)
        auto params = SupervisedParamsBuilder().epochs(4).batchSize(64).learningRate(3e-3).build().value();
        long long lastDone = 0;
        auto proxy = trainProxy(viewOf(train), train.labels, 3, tinyCnn(8), params,
                                [&](const ProgressEvent& e) { lastDone = e.done; });
        QVERIFY2(proxy.ok(), proxy.ok() ? "" : proxy.error().message.c_str());
        QCOMPARE(proxy->spec().outputs, 6);
        QCOMPARE(lastDone, 4LL * 24);  // 4 epochs × ceil(1500/64) steps
        auto p = predictProxy(*proxy, viewOf(test));
        QVERIFY(p.ok());
        QCOMPARE(p->size(), std::size_t(400 * 3));
        for (double v : *p) QVERIFY(v >= 0.0 && v <= 1.0);
        for (int i = 0; i < 3; ++i) {
            std::vector<double> s;
            for (std::size_t j = 0; j < 400; ++j) s.push_back((*p)[j * 3 + i]);
            const double auc = *rocAuc(s, column(test.labels, 3, i));
            QVERIFY2(auc > 0.95, str("source ", i, " AUC ", auc).c_str());
        }
    }

    void proxyRejectsBadLabelsAndSubsamples() {
        auto train = testing::makeQuadrantImages(100, 8, 2, 1.0f, 13);
        std::vector<float> bad = train.labels;
        bad[7] = 2.0f;
        auto params = SupervisedParamsBuilder().epochs(1).batchSize(10).maxExamples(30).build().value();
        auto r = trainProxy(viewOf(train), bad, 2, tinyCnn(8), params);
        QVERIFY(!r.ok() && r.error().message.find("image 3, source 1") != std::string::npos);
        long long total = 0;
        QVERIFY(trainProxy(viewOf(train), train.labels, 2, tinyCnn(8), params, [&](const ProgressEvent& e) {
                    total = e.total;
                }).ok());
        QCOMPARE(total, 3LL);  // 30 subsampled examples / batch 10
        QVERIFY(SupervisedParamsBuilder().momentum(1.0).build().error().message.find("momentum = 1") !=
                std::string::npos);
    }

    void mixtureTargetsAreTheLambdaWeightedLabels() {
        // Two images, three sources; uncertain −1 counts as 0.
        std::vector<float> labels{1, 0, 1, -1, 1, 1};
        std::vector<double> lambda{0.5, 0.3, 0.2};
        std::vector<float> t = mixtureTargets(labels, 3, lambda);
        QCOMPARE(t.size(), std::size_t(2));
        DPMIX_COMPARE_NEAR(t[0], 0.7f, 1e-6);
        DPMIX_COMPARE_NEAR(t[1], 0.5f, 1e-6);
    }

    void pretrainingFollowsLambda() {
        // λ = e_0 makes the target source 0's label: the model must rank source 0 well and be
        // near chance on source 1 (independent labels).
        auto train = testing::makeQuadrantImages(1500, 8, 2, 1.0f, 21);
        auto test = testing::makeQuadrantImages(400, 8, 2, 1.0f, 22);
        auto params = SupervisedParamsBuilder().epochs(4).batchSize(64).learningRate(3e-3).build().value();
        std::vector<double> lambda{1.0, 0.0};
        auto model = pretrainOnMixture(viewOf(train), train.labels, 2, lambda, tinyCnn(8), params);
        QVERIFY(model.ok());
        std::vector<float> z = model->logits(viewOf(test)).value();
        std::vector<double> s(z.begin(), z.end());
        QVERIFY(*rocAuc(s, column(test.labels, 2, 0)) > 0.95);
        DPMIX_COMPARE_NEAR(*rocAuc(s, column(test.labels, 2, 1)), 0.5, 0.1);
        // λ off the simplex, wrong count, wrong head: errors naming the problem.
        std::vector<double> notSimplex{0.7, 0.7}, three{0.2, 0.3, 0.5};
        QVERIFY(pretrainOnMixture(viewOf(train), train.labels, 2, notSimplex, tinyCnn(8), params)
                    .error()
                    .message.find("sums to 1.4") != std::string::npos);
        QVERIFY(!pretrainOnMixture(viewOf(train), train.labels, 2, three, tinyCnn(8), params).ok());
        QVERIFY(pretrainOnMixture(viewOf(train), train.labels, 2, lambda, tinyCnn(8, 2), params)
                    .error()
                    .message.find("expected 1") != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestModelsAndPublicTraining)
#include "tst_models_and_public_training.moc"
