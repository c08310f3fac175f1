#pragma once
// Internal header: one example's weight and bias gradients of a stride-1 convolution with few
// input channels (the first layer on grey or colour images), without torch and without building
// the example's patches. conv1 of the reference CNN (1 → 32, 3 × 3, 28 × 28) spent ~9 ms of a
// 256-example DP step in im2col and 256 small BLAS products for 58 M multiply-adds; this kernel
// keeps the padded image (a few KB) in L1 and streams the output gradient once.
//
// ∇W[o, c, ky, kx] = Σ_{y,x} g[o, y, x] · xpad[c, y + ky, x + kx], ∇b[o] = Σ_{y,x} g[o, y, x].
// Vectorised along x with one accumulator per (ky, kx); a row's last, partial vector is an
// overlapping load of its last W columns with the lanes already counted masked to zero in g.
// The summation order depends on the vector width, so the portable, AVX2 and AVX-512 builds agree
// to rounding, not bit for bit (as ATen's own kernels, which also choose by CPU); on one machine
// the result is deterministic and independent of the thread count.
#include <cstdint>

#include "engine/train/detail/simd_level.h"

namespace dpmix::train::detail {

struct ConvExampleShape {
    std::int64_t channels = 0, height = 0, width = 0;       // the input, C × H × W
    std::int64_t outChannels = 0, kernel = 0, padding = 0;  // stride 1
    std::int64_t outHeight() const { return height + 2 * padding - kernel + 1; }
    std::int64_t outWidth() const { return width + 2 * padding - kernel + 1; }
};

/// The level the kernel would run this shape at on this CPU, or nothing (false) where it does not
/// apply: kernel sizes other than 3 and 5, an output row narrower than 4 columns.
bool convExampleKernelLevel(const ConvExampleShape& shape, SimdLevel* level);

/// Whether `level` can run `shape` (kernel 3 or 5, output width ≥ the level's lanes).
bool convExampleKernelFits(SimdLevel level, const ConvExampleShape& shape);

/// Floats of scratch one call needs (the padded input).
std::int64_t convExampleScratchFloats(const ConvExampleShape& shape);

/// Example gradients at `level` (which must fit the shape): x is C × H × W, g is O × Ho × Wo,
/// both contiguous float32; writes weightGrad (O × C·k·k, in the weight's (o, c, ky, kx) order)
/// and, when not null, biasGrad (O).
void convExampleGradients(SimdLevel level, const ConvExampleShape& shape, const float* x, const float* g,
                          float* scratch, float* weightGrad, float* biasGrad);

}  // namespace dpmix::train::detail
