#pragma once
// Rényi DP of the Poisson-subsampled Gaussian mechanism (Mironov, Talwar & Zhang 2019,
// "Rényi Differential Privacy of the Sampled Gaussian Mechanism", Sections 3.3 and 3.4),
// add/remove adjacency, sensitivity 1 (noise multiplier σ = noise std / clip norm).
#include <vector>

namespace dpmix::privacy {

/// RDP at one order α > 1 of one application with sampling rate q ∈ [0, 1] and noise
/// multiplier σ ≥ 0. q = 1 gives α/(2σ²) exactly; q = 0 gives 0; σ = 0 gives +inf.
/// Integer α uses the finite binomial sum (MTZ §3.3); fractional α the two-sided series
/// with erfc tails (MTZ §3.4), both summed in log space.
double subsampledGaussianRdp(double q, double sigma, double order);

/// RDP curve of `steps` compositions at each order.
std::vector<double> subsampledGaussianRdp(double q, double sigma, long long steps, const std::vector<double>& orders);

}  // namespace dpmix::privacy
