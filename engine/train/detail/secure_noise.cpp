#include "engine/train/detail/secure_noise.h"

#include "engine/train/detail/gaussian_kernel.h"
#include "engine/train/detail/parallel_ranges.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>
#include <numbers>

namespace dpmix::train::detail {
namespace {

static_assert(std::endian::native == std::endian::little, "the key stream is read as little-endian words");

// Each output is (z1 + z2 + z3 + z4) / 2 of four Box–Muller normals: the two normals R cos θ and
// R sin θ of pair j and the two of pair n + j of its chunk (n outputs). A chunk of n outputs
// reads 4n words of key stream (32-bit for float32, 64-bit for double): words [0, 2n) are the
// radius uniforms u1 of its 2n pairs, words [2n, 4n) their angle uniforms. A chunk's key stream
// starts at a block fixed by its position, so the noise does not depend on how many threads
// compute it. A pair's two normals are summed as R (cos θ + sin θ) = √2 R sin(θ + π/4), the same
// number with one sine instead of a sine and a cosine.
// Outputs per chunk (a multiple of 16): 256 KiB of key stream in float32 (512 KiB in double),
// in L2; larger chunks would balance the threads less well on a layer of a few hundred thousand
// parameters.
constexpr std::int64_t kChunk = 16384;
constexpr std::int64_t kAlign = 16;  // a chunk's n is padded to this; the padding's outputs are dropped

std::int64_t padded(std::int64_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

// Double: R (cos θ + sin θ) / 2 = sqrt(-ln u1) · sin(θ + π/4) by ATen, in place: afterwards u1
// holds sqrt(-ln u1) and theta (θ + π/4 from doubleUniforms) sin(θ + π/4).
void boxMullerPairSums(const at::Tensor& u1, const at::Tensor& theta) {
    u1.log_().neg_().sqrt_();
    theta.sin_();
}

// 64-bit words to double uniforms, in place: u1 = ((w >> 11) + 1) · 2^-53 on [2^-53, 1] (as
// MechanismRng::gaussian()), the angle θ = 2π (w >> 11) 2^-53, stored as θ + π/4.
void doubleUniforms(double* data, std::int64_t n) {
    constexpr double kAngle = 2.0 * std::numbers::pi * 0x1.0p-53;
    constexpr double kQuarterPi = std::numbers::pi / 4;
    for (std::int64_t b = 0; b < 4 * n; b += 8) {
        std::uint64_t w[8];
        std::memcpy(w, data + b, sizeof w);
        if (b < 2 * n)
            for (int k = 0; k < 8; ++k) data[b + k] = static_cast<double>((w[k] >> 11) + 1) * 0x1.0p-53;
        else
            for (int k = 0; k < 8; ++k) data[b + k] = static_cast<double>(w[k] >> 11) * kAngle + kQuarterPi;
    }
}

// Float32: the key stream into a buffer, then one vectorised pass (gaussian_kernel.h) straight
// into the output. Double: the key stream into the uniforms' memory, then ATen's vectorised
// functions over the chunk.
template <typename T>
void sampleChunk(const privacy::MechanismRng::KeyStreamRun& run, std::uint64_t firstBlock, std::int64_t count, T* out) {
    const std::int64_t n = padded(count);
    const std::int64_t words = 4 * n;  // 4n uniforms of sizeof(T) bytes: whole 64-byte blocks
    const auto blocks = static_cast<std::size_t>(words * static_cast<std::int64_t>(sizeof(T)) / 64);
    if constexpr (std::is_same_v<T, float>) {
        const auto stream = std::make_unique_for_overwrite<std::uint32_t[]>(static_cast<std::size_t>(words));
        run.write(firstBlock, blocks, reinterpret_cast<unsigned char*>(stream.get()));
        gaussianFromWords(stream.get(), n, count, out);
    } else {
        at::Tensor u = at::empty({words}, at::TensorOptions().dtype(at::kDouble));
        double* data = u.data_ptr<double>();
        run.write(firstBlock, blocks, reinterpret_cast<unsigned char*>(data));
        doubleUniforms(data, n);
        const at::Tensor u1 = u.narrow(0, 0, 2 * n), theta = u.narrow(0, 2 * n, 2 * n);
        boxMullerPairSums(u1, theta);
        // Output j: pairs j and n + j, four normals, halved.
        at::Tensor result = at::from_blob(out, {count}, at::TensorOptions().dtype(at::kDouble));
        at::mul_out(result, u1.narrow(0, 0, count), theta.narrow(0, 0, count));
        result.addcmul_(u1.narrow(0, n, count), theta.narrow(0, n, count));
    }
}

template <typename T>
void sample(privacy::MechanismRng& rng, std::int64_t m, T* out) {
    constexpr std::int64_t kBlocksPerChunk = kChunk * 4 * static_cast<std::int64_t>(sizeof(T)) / 64;
    const std::int64_t chunks = (m + kChunk - 1) / kChunk;
    const std::int64_t last = m - (chunks - 1) * kChunk;
    const std::int64_t blocks =
        (chunks - 1) * kBlocksPerChunk + padded(last) * 4 * static_cast<std::int64_t>(sizeof(T)) / 64;
    const auto run = rng.reserveKeyStream(static_cast<std::uint64_t>(blocks));
    parallelRanges(chunks, at::get_num_threads(), [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t c = begin; c < end; ++c)
            sampleChunk<T>(run, static_cast<std::uint64_t>(c * kBlocksPerChunk), std::min(kChunk, m - c * kChunk),
                           out + c * kChunk);
    });
}

}  // namespace

at::Tensor secureGaussian(privacy::MechanismRng& rng, at::IntArrayRef sizes, at::ScalarType dtype) {
    at::NoGradGuard noGrad;
    std::int64_t m = 1;
    for (auto s : sizes) m *= s;
    const bool wide = dtype == at::kDouble;
    at::Tensor out = at::empty({m}, at::TensorOptions().dtype(wide ? at::kDouble : at::kFloat));
    if (m > 0) {
        if (wide)
            sample<double>(rng, m, out.data_ptr<double>());
        else
            sample<float>(rng, m, out.data_ptr<float>());
    }
    return out.view(sizes).to(dtype);
}

}  // namespace dpmix::train::detail
