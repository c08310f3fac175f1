#pragma once
// Synthetic proxy predictions for the mixture-learning tests (test-only, header-only).
#include <Eigen/Dense>

#include <cmath>
#include <random>
#include <vector>

namespace dpmix::mixmin::testing {

struct BinaryData {
    Eigen::MatrixXd p;  // n × k, P(y = 1 | x) of each proxy
    std::vector<int> y;
};

/// docs/ALGORITHMS.md A.11 "synthetic sanity check": k sources of which source 0 is informative
/// (but over-confident), the others are weak, near the 30% base rate. Mixing calibrates the
/// informative source, so λ* is interior (about 0.64 on source 0; cos(uniform, λ*) ≈ 0.47,
/// close to the reference's 0.486), not a vertex a trivial solver could hit.
inline BinaryData informativeSourceData(int n, int k, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::bernoulli_distribution label(0.3);
    std::normal_distribution<double> noise(0.0, 1.0);
    std::uniform_real_distribution<double> u01(0.0, 1.0);
    BinaryData d{Eigen::MatrixXd(n, k), std::vector<int>(static_cast<std::size_t>(n))};
    for (int j = 0; j < n; ++j) {
        const int y = label(rng) ? 1 : 0;
        d.y[static_cast<std::size_t>(j)] = y;
        // Source 0 is informative but over-confident: right 85% of the time, then sure of it.
        const bool right = u01(rng) < 0.85;
        d.p(j, 0) = (right == (y == 1)) ? 0.9 + 0.09 * u01(rng) : 0.01 + 0.09 * u01(rng);
        for (int i = 1; i < k; ++i) d.p(j, i) = 1.0 / (1.0 + std::exp(-(0.3 * (2 * y - 1) - 0.85 + 0.5 * noise(rng))));
    }
    return d;
}

/// Random binary-task proxies with values well inside (0, 1) (no clamping anywhere).
inline BinaryData randomBinaryData(int n, int k, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0.05, 0.95);
    std::bernoulli_distribution label(0.4);
    BinaryData d{Eigen::MatrixXd(n, k), std::vector<int>(static_cast<std::size_t>(n))};
    for (int j = 0; j < n; ++j) {
        d.y[static_cast<std::size_t>(j)] = label(rng) ? 1 : 0;
        for (int i = 0; i < k; ++i) d.p(j, i) = u(rng);
    }
    return d;
}

/// A random interior point of the simplex with every weight >= floor / k.
inline Eigen::VectorXd randomInteriorLambda(int k, std::mt19937_64& rng, double floor = 0.2) {
    std::uniform_real_distribution<double> u(floor, 1.0);
    Eigen::VectorXd l(k);
    for (int i = 0; i < k; ++i) l(i) = u(rng);
    return l / l.sum();
}

/// Independent (test-side) BCE mixture loss, mean over examples.
inline double referenceBceLoss(const BinaryData& d, const Eigen::VectorXd& lambda) {
    double s = 0.0;
    for (int j = 0; j < d.p.rows(); ++j) {
        double f = 0.0;
        for (int i = 0; i < d.p.cols(); ++i) f += lambda(i) * d.p(j, i);
        f = std::min(std::max(f, 1e-6), 1.0 - 1e-6);
        s += d.y[static_cast<std::size_t>(j)] == 1 ? -std::log(f) : -std::log(1.0 - f);
    }
    return s / static_cast<double>(d.p.rows());
}

/// Brute-force minimiser of `loss` over a grid of step 1/steps on Δ_3.
template <typename Loss>
Eigen::Vector3d gridMinimiser3(Loss&& loss, int steps) {
    Eigen::Vector3d best(1.0 / 3, 1.0 / 3, 1.0 / 3);
    double bestValue = loss(Eigen::VectorXd(best));
    for (int a = 0; a <= steps; ++a)
        for (int b = 0; a + b <= steps; ++b) {
            Eigen::VectorXd l(3);
            l << double(a) / steps, double(b) / steps, double(steps - a - b) / steps;
            const double v = loss(l);
            if (v < bestValue) {
                bestValue = v;
                best = l;
            }
        }
    return best;
}

}  // namespace dpmix::mixmin::testing
