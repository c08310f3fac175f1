#include "engine/train/detail/secure_noise.h"

#include <numbers>
#include <span>

namespace dpmix::train::detail {

at::Tensor secureGaussian(privacy::MechanismRng& rng, at::IntArrayRef sizes, at::ScalarType dtype) {
    at::NoGradGuard noGrad;
    std::int64_t m = 1;
    for (auto s : sizes) m *= s;
    const auto options = at::TensorOptions().dtype(at::kDouble);
    if (m == 0) return at::empty(sizes, options.dtype(dtype));
    // 2m Box–Muller pairs give 4m normals: four per output value.
    at::Tensor u1 = at::empty({2 * m}, options), u2 = at::empty({2 * m}, options);
    rng.fillUniform(std::span<double>(u1.data_ptr<double>(), static_cast<std::size_t>(2 * m)), /*positive=*/true);
    rng.fillUniform(std::span<double>(u2.data_ptr<double>(), static_cast<std::size_t>(2 * m)), /*positive=*/false);
    // Pair k gives R_k cos θ_k and R_k sin θ_k; value j sums pairs j and m + j: four normals.
    at::Tensor radius = u1.log_().mul_(-2.0).sqrt_();
    at::Tensor angle = u2.mul_(2.0 * std::numbers::pi);
    at::Tensor normals = radius.mul_(angle.cos() + angle.sin());  // R(cos θ + sin θ): two normals summed
    return normals.view({2, m}).sum(0).mul_(0.5).view(sizes).to(dtype);
}

}  // namespace dpmix::train::detail
