// The mixture stage on synthetic proxies whose best mixture is known by construction.
#include "engine/pipeline/mixture_stage.h"
#include "engine/privacy/gaussian_accountant.h"

#include <QtTest>

#include <random>

using namespace dpmix;
using namespace dpmix::pipeline;

namespace {

// k proxies with random probabilities; labels drawn from the mixture Σ λ_true_i p_i(x), so
// the population minimiser of the BCE objective is λ_true (the log loss is proper).
MixtureInputs syntheticInputs(int n, const Eigen::VectorXd& truth, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0.02, 0.98);
    MixtureInputs in;
    in.task = "synthetic";
    const auto k = truth.size();
    in.proxyProbabilities.resize(n, k);
    for (int j = 0; j < n; ++j) {
        for (Eigen::Index i = 0; i < k; ++i) in.proxyProbabilities(j, i) = u(rng);
        const double p = in.proxyProbabilities.row(j).dot(truth);
        in.labels.push_back(u(rng) < p ? 1 : 0);
    }
    for (Eigen::Index i = 0; i < k; ++i) in.componentNames.push_back("source " + std::to_string(i));
    return in;
}

}  // namespace

class TestMixtureStage : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void recoversTheGeneratingMixture() {
        Eigen::VectorXd truth(4);
        truth << 0.6, 0.3, 0.1, 0.0;
        const auto in = syntheticInputs(20000, truth, 7);
        MixtureRequest req;
        req.epsilons = {1.0, 8.0};
        req.seeds = {11};
        req.delta = 1e-5;
        req.stage.clip = 13.0;
        req.stage.batch = 1000;
        req.stage.lr = 1.0;
        req.stage.steps = 100;
        req.randomSearchCandidates = 50;
        auto out = runMixtureStage(in, req);
        QVERIFY2(out.ok(), out.ok() ? "" : out.error().message.c_str());
        // λ* is the empirical minimiser: close to the generating mixture at n = 20000.
        QVERIFY((out->lambdaStar - truth).lpNorm<1>() < 0.15);
        QVERIFY(out->lambdaStarGap <= 1e-6);
        QCOMPARE(out->lambdaUniform.size(), Eigen::Index(4));
        QVERIFY(std::abs(out->lambdaUniform.sum() - 1.0) < 1e-12);
        QCOMPARE(out->privateLambdas.size(), std::size_t(2));
        for (const auto& p : out->privateLambdas) {
            QVERIFY(std::abs(p.lambda.sum() - 1.0) < 1e-9);
            QVERIFY((p.lambda.array() >= 0).all());
            // The ledger entry is the mixture step's own: split A, its σ, ε at most the target.
            QCOMPARE(p.ledgerEntry.split, std::string("A"));
            QCOMPARE(p.ledgerEntry.sigma, p.sigma);
            QVERIFY(p.epsilonSpent <= p.epsilon);
            QVERIFY(p.epsilonSpent >= p.epsilon * (1 - 1e-3));
            const double independent = privacy::gaussianEpsilon({1000.0 / 20000.0, p.sigma, 100}, 1e-5).epsilon;
            QVERIFY(std::abs(independent - p.epsilonSpent) < 1e-9);
            QVERIFY(!p.trajectory.empty());
            QCOMPARE(p.trajectorySteps.back(), 100LL);
        }
        // More budget, less noise.
        QVERIFY(out->privateLambdas[1].sigma < out->privateLambdas[0].sigma);
        // Cosines are reported against λ* and agree with a direct computation.
        const auto& p = out->privateLambdas[1];
        const double cos = p.lambda.dot(out->lambdaStar) / (p.lambda.norm() * out->lambdaStar.norm());
        QVERIFY(std::abs(cos - p.cosine) < 1e-12);
    }
    void batchLargerThanSplitAIsCapped() {
        Eigen::VectorXd truth(3);
        truth << 0.5, 0.5, 0.0;
        const auto in = syntheticInputs(300, truth, 3);
        MixtureRequest req;
        req.epsilons = {2.0};
        req.seeds = {1};
        req.stage.batch = 1000;  // > n: q is capped at 1
        req.stage.steps = 20;
        auto out = runMixtureStage(in, req);
        QVERIFY2(out.ok(), out.ok() ? "" : out.error().message.c_str());
        QCOMPARE(out->privateLambdas.front().ledgerEntry.q, 1.0);
    }
    void badProxyValuesAreAnError() {
        Eigen::VectorXd truth(2);
        truth << 0.5, 0.5;
        auto in = syntheticInputs(50, truth, 1);
        in.proxyProbabilities(3, 1) = 1.5;
        MixtureRequest req;
        req.epsilons = {1.0};
        req.seeds = {1};
        auto out = runMixtureStage(in, req);
        QVERIFY(!out.ok());
        QVERIFY(QString::fromStdString(out.error().message).startsWith("task 'synthetic'"));
    }
    void cancellationStops() {
        Eigen::VectorXd truth(2);
        truth << 0.5, 0.5;
        const auto in = syntheticInputs(500, truth, 1);
        MixtureRequest req;
        req.epsilons = {1.0};
        req.seeds = {1};
        CancellationToken token;
        token.cancel();
        QVERIFY_THROWS_EXCEPTION(Cancelled, (void)runMixtureStage(in, req, {}, token));
    }
};

QTEST_APPLESS_MAIN(TestMixtureStage)
#include "tst_mixture_stage.moc"
