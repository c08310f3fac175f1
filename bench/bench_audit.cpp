// Benchmark of the canary audit (engine/audit): wall time of the default audit (2 × 2,000 runs of
// DP-MixMin, n = 9,000, k = 14, imaging defaults C = 13, B = 1000, η = 1, T = 100, δ = 1e-5) on a
// synthetic binary task, for the private audit at ε = 1 and the no-noise control, both canaries.
//
//   bench_audit [--runs R] [--n N] [--k K] [--threads T] [--sign lower|raise] [--only private|control]
//               [--data rare|common] [--batch B] [--clip C]
#include "engine/audit/canary_audit.h"
#include "engine/mixmin/params.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <utility>
#include <vector>

using namespace dpmix;

namespace {

// Same recipes as tests/engine/audit/audit_fixtures.h: source 0 informative, the rest weak.
// "common": 30% positives, confident proxies (large per-example gradients); "rare": 5%
// positives and low proxy probabilities, like a rare NIH finding (small gradients).
mixmin::MixtureObjective syntheticSplitA(int n, int k, std::uint64_t seed, bool rare, Eigen::VectorXd& heldOutRow,
                                         int& heldOutLabel) {
    std::mt19937_64 rng(seed);
    std::bernoulli_distribution label(rare ? 0.05 : 0.3);
    std::normal_distribution<double> noise(0.0, 1.0);
    std::uniform_real_distribution<double> u01(0.0, 1.0);
    Eigen::MatrixXd p(n + 1, k);
    std::vector<int> y(static_cast<std::size_t>(n + 1));
    for (int j = 0; j <= n; ++j) {
        const int yj = label(rng) ? 1 : 0;
        y[static_cast<std::size_t>(j)] = yj;
        const bool right = u01(rng) < 0.85;
        if (rare) {
            p(j, 0) = (right == (yj == 1)) ? 0.3 + 0.3 * u01(rng) : 0.01 + 0.04 * u01(rng);
            for (int i = 1; i < k; ++i) p(j, i) = 1.0 / (1.0 + std::exp(-(0.5 * yj - 3.0 + 0.5 * noise(rng))));
        } else {
            p(j, 0) = (right == (yj == 1)) ? 0.9 + 0.09 * u01(rng) : 0.01 + 0.09 * u01(rng);
            for (int i = 1; i < k; ++i)
                p(j, i) = 1.0 / (1.0 + std::exp(-(0.3 * (2 * yj - 1) - 0.85 + 0.5 * noise(rng))));
        }
    }
    heldOutRow = p.row(n).transpose();  // the last example is held out: the natural canary
    heldOutLabel = y.back();
    y.pop_back();
    return mixmin::makeBinaryObjective(p.topRows(n), y).value();
}

}  // namespace

int main(int argc, char** argv) {
    long long runs = 2000;
    int n = 9000, k = 14, threads = 0;
    double batch = 1000, clip = 13.0;
    std::string sign = "lower", only, data = "rare";
    for (int a = 1; a + 1 < argc; a += 2) {
        const std::string f = argv[a], v = argv[a + 1];
        if (f == "--runs")
            runs = std::atoll(v.c_str());
        else if (f == "--n")
            n = std::atoi(v.c_str());
        else if (f == "--k")
            k = std::atoi(v.c_str());
        else if (f == "--threads")
            threads = std::atoi(v.c_str());
        else if (f == "--sign")
            sign = v;
        else if (f == "--only")
            only = v;
        else if (f == "--data")
            data = v;
        else if (f == "--batch")
            batch = std::atof(v.c_str());
        else if (f == "--clip")
            clip = std::atof(v.c_str());
        else {
            std::fprintf(stderr, "unknown flag %s\n", f.c_str());
            return 2;
        }
    }
    Eigen::VectorXd row;
    int label = 0;
    const auto splitA = syntheticSplitA(n, k, 20261129, data == "rare", row, label);
    std::printf("audit benchmark: %s data, n = %d, k = %d, runs per world = %lld, threads = %d (0 = all), sign %s\n",
                data.c_str(), n, k, runs, threads, sign.c_str());
    for (const bool control : {false, true}) {
        if ((only == "private" && control) || (only == "control" && !control)) continue;
        auto builder =
            mixmin::DpMixMinParamsBuilder::imagingDefaults().epsilon(1.0).expectedBatch(batch).clipNorm(clip);
        if (control) builder.noise(mixmin::NoiseMode::None);
        const auto params = builder.build(n).value();
        for (const auto kind : {audit::CanaryKind::MaxClip, audit::CanaryKind::Natural}) {
            audit::CanaryAuditOptions o;
            o.canary = kind;
            o.runsPerWorld = runs;
            o.threads = threads;
            o.seed = 7;
            o.keepScores = true;
            o.maxClipSign = sign == "raise" ? audit::MaxClipSign::RaiseTopSource : audit::MaxClipSign::LowerTopSource;
            if (kind == audit::CanaryKind::Natural) o.naturalExample = audit::makeNaturalCanary(row, label).value();
            const auto t0 = std::chrono::steady_clock::now();
            const auto r = audit::runCanaryAudit(splitA, params, o);
            const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            if (!r) {
                std::fprintf(stderr, "%s\n", r.error().message.c_str());
                return 1;
            }
            std::printf(
                "%-8s %-9s sigma=%.3f  eps_LB=%.3f (select %.3f)  FP=%lld/%lld FN=%lld/%lld  dir=%s  canary sampled "
                "%.1f steps  %.1f s\n",
                control ? "control" : "eps=1", audit::toString(kind), r->sigma, r->epsilonLB, r->selectEpsilonLB,
                r->falsePositives, r->evalOut, r->falseNegatives, r->evalIn, audit::toString(r->direction),
                r->meanCanarySamples, s);
            auto stats = [](const std::vector<double>& v) {
                double m = 0, ss = 0;
                for (double x : v) m += x;
                m /= static_cast<double>(v.size());
                for (double x : v) ss += (x - m) * (x - m);
                return std::pair{m, std::sqrt(ss / static_cast<double>(v.size() - 1))};
            };
            const auto [mi, si] = stats(r->scoresIn);
            const auto [mo, so] = stats(r->scoresOut);
            std::printf("         scores in %.4f ± %.4f, out %.4f ± %.4f (top source %ld)\n", mi, si, mo, so,
                        static_cast<long>(r->topSource));
            std::fflush(stdout);
        }
    }
    return 0;
}
