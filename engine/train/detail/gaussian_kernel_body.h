// The body of the float32 Gaussian kernel (gaussian_kernel.h), written once for every vector
// width: gaussian_kernel.cpp includes it once per instruction set, inside a namespace that
// defines W (lanes), V / I / U (float, int32, uint32 vectors of W lanes) and vsqrt(V), and inside
// that instruction set's target region. No include guard, on purpose; include nothing here (a
// header included inside a target region would be compiled for that target).
//
// Only correctly rounded IEEE operations — +, -, ×, √, exact int↔float conversions, bit
// operations — in a fixed order, and no fused multiply-add (gaussian_kernel.cpp turns contraction
// off), so every width gives the same bits.

inline V splat(float x) { return V{} + x; }
inline I bitsOf(V x) { return (I)x; }  // a cast between vectors of one size keeps the bits
inline V floatsOf(I x) { return (V)x; }
inline V select(I mask, V yes, V no) { return floatsOf((mask & bitsOf(yes)) | (~mask & bitsOf(no))); }

// -ln x for normal x in (0, 1]: Cephes logf. x = m · 2^e with m in [√½, √2), then
// ln x = e ln 2 + ln m, ln(1 + f) by a degree-9 polynomial; ln 2 in two parts.
inline V minusLog(V x) {
    const I bits = bitsOf(x);
    V e = __builtin_convertvector((bits >> 23) - 126, V);  // x = m · 2^e, m in [0.5, 1)
    V m = floatsOf((bits & 0x007FFFFF) | 0x3F000000);
    const I small = m < splat(0.707106781186547524f);  // m < √½: use 2m, e - 1
    const V twice = floatsOf(small & bitsOf(m));
    m = m - 1.0f;
    e = e - floatsOf(small & bitsOf(splat(1.0f)));
    m = m + twice;  // f = m - 1 or 2m - 1
    const V z = m * m;
    V y = splat(7.0376836292e-2f);
    y = y * m;
    y = y + -1.1514610310e-1f;
    y = y * m;
    y = y + 1.1676998740e-1f;
    y = y * m;
    y = y + -1.2420140846e-1f;
    y = y * m;
    y = y + 1.4249322787e-1f;
    y = y * m;
    y = y + -1.6668057665e-1f;
    y = y * m;
    y = y + 2.0000714765e-1f;
    y = y * m;
    y = y + -2.4999993993e-1f;
    y = y * m;
    y = y + 3.3333331174e-1f;
    y = y * m;
    y = y * z;
    y = y + e * -2.12194440e-4f;
    y = y - z * 0.5f;
    V log = m + y;
    log = log + e * 0.693359375f;
    const V minus = splat(0.0f) - log;
    return select(minus > splat(0.0f), minus, splat(0.0f));  // -ln 1 = +0, never below
}

// sin x for x in [0, 8]: Cephes sinf. j = the even integer nearest 4x/π from above (octant pair),
// x - j·π/4 in three parts (exact for these j), then the sine or the cosine polynomial on
// [-π/4, π/4] by bit 1 of j and the sign by bit 2.
inline V sinOf(V x) {
    V y = x * 1.27323954473516f;          // 4/π
    I j = __builtin_convertvector(y, I);  // truncation
    j = (j + 1) & ~1;
    y = __builtin_convertvector(j, V);
    const I sign = (j & 4) << 29;
    const I sinePolynomial = (j & 2) == I{};
    x = x - y * 0.78515625f;
    x = x - y * 2.4187564849853515625e-4f;
    x = x - y * 3.77489497744594108e-8f;
    const V z = x * x;
    V c = splat(2.443315711809948e-5f);
    c = c * z;
    c = c + -1.388731625493765e-3f;
    c = c * z;
    c = c + 4.166664568298827e-2f;
    c = c * z;
    c = c * z;
    c = c - z * 0.5f;
    c = c + 1.0f;
    V s = splat(-1.9515295891e-4f);
    s = s * z;
    s = s + 8.3321608736e-3f;
    s = s * z;
    s = s + -1.6666654611e-1f;
    s = s * z;
    s = s * x;
    s = s + x;
    return floatsOf(bitsOf(select(sinePolynomial, s, c)) ^ sign);
}

// u1 = (w + 1) · 2^-32 rounded once: hi · 2^16 and lo + 1 are exact in float, their sum is rounded.
inline V radiusUniform(U w) {
    const I hi = (I)(w >> 16), lo = (I)(w & 0xFFFFu) + 1;
    return (__builtin_convertvector(hi, V) * 65536.0f + __builtin_convertvector(lo, V)) * 0x1.0p-32f;
}

// θ + π/4 with θ = 2π (w >> 8) · 2^-24.
inline V shiftedAngle(U w) {
    const I top = (I)(w >> 8);
    return __builtin_convertvector(top, V) * static_cast<float>(2.0 * 3.14159265358979323846 * 0x1.0p-24) +
           static_cast<float>(3.14159265358979323846 / 4);
}

// The pair's normals summed and halved: R (cos θ + sin θ) / 2 = sqrt(-ln u1) · sin(θ + π/4).
inline V halfPairSum(U radiusWord, U angleWord) {
    return vsqrt(minusLog(radiusUniform(radiusWord))) * sinOf(shiftedAngle(angleWord));
}

inline U loadWords(const std::uint32_t* p) {
    U v;
    __builtin_memcpy(&v, p, sizeof v);
    return v;
}

void gaussianFromWords(const std::uint32_t* w, std::int64_t n, std::int64_t count, float* out) {
    for (std::int64_t j = 0; j < count; j += W) {  // n is a multiple of 16 ≥ W: every load is in range
        const V value = halfPairSum(loadWords(w + j), loadWords(w + 2 * n + j)) +
                        halfPairSum(loadWords(w + n + j), loadWords(w + 3 * n + j));
        const std::int64_t lanes = count - j < W ? count - j : W;
        __builtin_memcpy(out + j, &value, static_cast<unsigned long>(lanes) * sizeof(float));
    }
}

void minusLogLanes(const float* in, std::int64_t count, float* out) {
    for (std::int64_t j = 0; j < count; j += W) {
        V v;
        __builtin_memcpy(&v, in + j, sizeof v);
        v = minusLog(v);
        __builtin_memcpy(out + j, &v, sizeof v);
    }
}

void sinLanes(const float* in, std::int64_t count, float* out) {
    for (std::int64_t j = 0; j < count; j += W) {
        V v;
        __builtin_memcpy(&v, in + j, sizeof v);
        v = sinOf(v);
        __builtin_memcpy(out + j, &v, sizeof v);
    }
}
