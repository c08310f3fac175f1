// The body of the per-example convolution gradient kernel (conv_example_kernel.h), written once
// for every vector width: conv_example_kernel.cpp includes it once per instruction set, inside a
// namespace that defines W (lanes) and V / I (float and int32 vectors of W lanes), and inside that
// instruction set's target region. No include guard, on purpose; include nothing here.

inline V load(const float* p) {
    V v;
    __builtin_memcpy(&v, p, sizeof v);
    return v;
}

// Pairwise (halves, then quarters, …): a short dependency chain, unlike a lane-by-lane loop,
// which cost more than the products themselves on a 28-column image at 16 lanes.
inline float laneSum(V v) {
    float a[W];
    __builtin_memcpy(a, &v, sizeof v);
    for (int half = W / 2; half >= 1; half /= 2)
        for (int i = 0; i < half; ++i) a[i] += a[i + half];
    return a[0];
}

// One (output channel, input channel) pair: the K × K weight gradients and the output channel's
// bias-gradient lanes. xc is the padded channel (rows of wp floats), go the output gradient plane.
template <int K>
void channelPair(const float* xc, std::int64_t wp, const float* go, std::int64_t ho, std::int64_t wo, I tailMask,
                 float* out, V* biasLanes) {
    V acc[K * K] = {};
    V bias = {};
    const std::int64_t full = wo / W;
    const bool tail = wo % W != 0;
    for (std::int64_t y = 0; y < ho; ++y) {
        const float* gr = go + y * wo;
        const float* xr = xc + y * wp;
        auto add = [&](std::int64_t col, V gv) {
            bias += gv;
            for (int ky = 0; ky < K; ++ky)
                for (int kx = 0; kx < K; ++kx) acc[ky * K + kx] += gv * load(xr + ky * wp + col + kx);
        };
        for (std::int64_t j = 0; j < full; ++j) add(j * W, load(gr + j * W));
        if (tail) add(wo - W, (V)((I)load(gr + wo - W) & tailMask));
    }
    for (int i = 0; i < K * K; ++i) out[i] = laneSum(acc[i]);
    *biasLanes = bias;
}

template <int K>
void exampleGradientsK(const ConvExampleShape& s, const float* x, const float* g, float* scratch, float* weightGrad,
                       float* biasGrad) {
    const std::int64_t hp = s.height + 2 * s.padding, wp = s.width + 2 * s.padding;
    const std::int64_t ho = s.outHeight(), wo = s.outWidth();
    for (std::int64_t i = 0; i < s.channels * hp * wp; ++i) scratch[i] = 0.0f;
    for (std::int64_t c = 0; c < s.channels; ++c)
        for (std::int64_t y = 0; y < s.height; ++y)
            __builtin_memcpy(scratch + (c * hp + y + s.padding) * wp + s.padding, x + (c * s.height + y) * s.width,
                             static_cast<std::size_t>(s.width) * sizeof(float));
    // The tail vector covers the row's last W columns; its first W − (wo mod W) were counted.
    I tailMask;
    for (int i = 0; i < W; ++i) tailMask[i] = i >= W - static_cast<int>(wo % W) ? -1 : 0;
    for (std::int64_t o = 0; o < s.outChannels; ++o) {
        const float* go = g + o * ho * wo;
        V biasLanes = {};
        for (std::int64_t c = 0; c < s.channels; ++c)
            channelPair<K>(scratch + c * hp * wp, wp, go, ho, wo, tailMask, weightGrad + (o * s.channels + c) * K * K,
                           &biasLanes);
        if (biasGrad != nullptr) biasGrad[o] = laneSum(biasLanes);
    }
}

void exampleGradients(const ConvExampleShape& s, const float* x, const float* g, float* scratch, float* weightGrad,
                      float* biasGrad) {
    if (s.kernel == 3) return exampleGradientsK<3>(s, x, g, scratch, weightGrad, biasGrad);
    exampleGradientsK<5>(s, x, g, scratch, weightGrad, biasGrad);
}
