// The cost of one AdaMix-R step at the experiment's sizes (docs/BENCHMARKS.md, "AdaMix-R"): the
// public guidance (SVD of the m × d public gradients), and the private projection of n examples
// through the basis (O(n·r·K·(p+1))) beside the same projection through the public gradients
// (O(n·m·(K + r)), docs/ADAMIX.md, "Projection without the gradient matrix"), on random unit
// features with K = 10 classes, p = 128 features, m = shots × 10 public examples and r = min(m, 64).
// Usage: bench_adamix [repetitions=5] [n=47876] [shots=10]
#include "bench/bench_timing.h"
#include "engine/adamix/adamix_step.h"
#include "engine/adamix/params.h"
#include "engine/adamix/projected_gradients.h"
#include "engine/adamix/public_guidance.h"

#include <cstdio>
#include <cstdlib>
#include <random>

using namespace dpmix;

namespace {

adamix::LabelledFeatures randomFeatures(Eigen::Index n, int classes, int p, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> normal;
    Eigen::MatrixXd x(n, p);
    Eigen::VectorXi labels(n);
    for (Eigen::Index i = 0; i < n; ++i) {
        labels(i) = static_cast<int>(i % classes);
        for (int j = 0; j < p; ++j) x(i, j) = normal(rng) + (j % classes == labels(i) ? 2.0 : 0.0);
    }
    return adamix::makeLabelledFeatures(x, labels, classes, "bench").value();
}

void print(const char* what, const bench::Timing& t) {
    std::printf("%-44s median %9.2f ms   fastest %9.2f ms   slowest %9.2f ms\n", what, t.medianMs, t.fastestMs,
                t.slowestMs);
}

}  // namespace

int main(int argc, char** argv) {
    const int reps = argc > 1 ? std::atoi(argv[1]) : 5;
    const Eigen::Index n = argc > 2 ? std::atoll(argv[2]) : 47876;
    const int shots = argc > 3 ? std::atoi(argv[3]) : 10;
    const int classes = 10, p = 128;
    const auto priv = randomFeatures(n, classes, p, 1);
    const auto pub = randomFeatures(static_cast<Eigen::Index>(shots) * classes, classes, p, 2);
    const auto params =
        adamix::AdamixParamsBuilder::defaults().epsilon(1.0).build(priv.examples(), pub.examples()).value();
    const adamix::HeadMatrix theta = adamix::fitHead(pub, params.publicRidge, 200).theta;
    std::printf("n = %lld private, m = %lld public, K = %d, p+1 = %d, r = %d; %d repetitions, one thread\n",
                static_cast<long long>(n), static_cast<long long>(pub.examples()), classes, p + 1, params.rank, reps);

    adamix::PublicGuidance guidance;
    print("public guidance (SVD, clip, coefficients)",
          bench::timeIt(reps, [&] { guidance = adamix::publicGuidance(theta, pub, params); }));
    const Eigen::MatrixXd r = adamix::residuals(theta, priv);
    print("private residuals (softmax of n × K logits)",
          bench::timeIt(reps, [&] { (void)adamix::residuals(theta, priv); }));
    Eigen::MatrixXd viaBasis, viaPublic;
    print("projection through the basis", bench::timeIt(reps, [&] {
              viaBasis = adamix::projectPerExampleGradients(r, priv.augmented, guidance.basis);
          }));
    Eigen::MatrixXd crossGram;
    print("cross-Gram Φ̃ Φ̃_pubᵀ (once per run)",
          bench::timeIt(reps, [&] { crossGram = priv.augmented * pub.augmented.transpose(); }));
    print("projection through the public gradients", bench::timeIt(reps, [&] {
              viaPublic = adamix::projectThroughPublicGradients(r, crossGram, guidance.publicResiduals,
                                                                guidance.basisCoefficients);
          }));
    std::printf("relative difference of the two projections: %.3g\n", (viaBasis - viaPublic).norm() / viaBasis.norm());
    print("whole release, basis route",
          bench::timeIt(reps, [&] { (void)adamix::releasePrivateSum(theta, priv, guidance, 0.0, nullptr); }));
    print("whole release, public route", bench::timeIt(reps, [&] {
              (void)adamix::releasePrivateSum(theta, priv, guidance, 0.0, nullptr, &crossGram);
          }));
    return 0;
}
