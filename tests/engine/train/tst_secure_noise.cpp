// DP-SGD's bulk secure Gaussian noise (engine/train/detail/secure_noise, gaussian_kernel),
// deterministic checks: each value is the hardened sampler applied to the documented words of the
// key stream (recomputed here in double from the raw stream, cos and sin separately), the key
// stream it consumes is exactly its reservation (later draws never reuse it), the values do not
// depend on the thread count nor on the instruction set, the float32 kernel's logarithm and sine
// are accurate over their whole input ranges and its largest output is within the bound, seeded
// noise repeats and secret noise does not. The moments and tails are in
// tst_secure_noise_statistical.
#include "engine/train/detail/gaussian_kernel.h"
#include "engine/train/detail/ghost_clipping.h"
#include "engine/train/detail/secure_noise.h"

#include <ATen/Parallel.h>

#include "tests/support/unit_test.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <numbers>
#include <random>
#include <vector>

using namespace dpmix;
using dpmix::test_support::str;
using privacy::KeyStreamKind;
using privacy::MechanismRng;
using privacy::RandomnessSource;
using train::detail::SimdLevel;

namespace {

// The documented layout: chunks of 16,384 outputs; a chunk of c outputs is padded to n, a
// multiple of 16, and reads 4n words (4 bytes for float, 8 for double) from its first block,
// chunk index · 16,384 · 4 · word / 64; output j sums the pairs j and n + j, whose radius
// uniforms are words j and n + j and angle uniforms words 2n + j and 3n + j.
constexpr std::int64_t kChunk = 16384;
std::int64_t padded(std::int64_t c) { return (c + 15) / 16 * 16; }
std::uint64_t blocksFor(std::int64_t m, std::int64_t word) {
    const std::int64_t chunks = (m + kChunk - 1) / kChunk, last = m - (chunks - 1) * kChunk;
    return static_cast<std::uint64_t>(((chunks - 1) * kChunk + padded(last)) * 4 * word / 64);
}

// Output j of chunk `chunk` of an m-value draw, from the raw key stream of an identical generator.
std::vector<double> expectedChunk(const RandomnessSource& source, KeyStreamKind kind, std::int64_t m,
                                  std::int64_t chunk, bool wide) {
    const std::int64_t word = wide ? 8 : 4;
    MechanismRng twin(source, "noise", kind);
    const auto run = twin.reserveKeyStream(blocksFor(m, word));
    const std::int64_t count = std::min(kChunk, m - chunk * kChunk), n = padded(count);
    std::vector<unsigned char> bytes(static_cast<std::size_t>(4 * n * word));
    run.write(static_cast<std::uint64_t>(chunk * kChunk * 4 * word / 64), bytes.size() / 64, bytes.data());
    auto wordAt = [&](std::int64_t i) {
        std::uint64_t v = 0;
        for (std::int64_t b = 0; b < word; ++b) v |= static_cast<std::uint64_t>(bytes[i * word + b]) << (8 * b);
        return v;
    };
    // Radius uniform on [2^-32, 1] (float) or [2^-53, 1] (double), angle uniform on [0, 1).
    auto radius = [&](std::uint64_t w) {
        const double u = wide ? static_cast<double>((w >> 11) + 1) * 0x1.0p-53 : static_cast<double>(w + 1) * 0x1.0p-32;
        return std::sqrt(-2.0 * std::log(u));
    };
    auto angle = [&](std::uint64_t w) {
        return 2.0 * std::numbers::pi *
               (wide ? static_cast<double>(w >> 11) * 0x1.0p-53 : static_cast<double>(w >> 8) * 0x1.0p-24);
    };
    std::vector<double> out;
    for (std::int64_t j = 0; j < count; ++j) {
        double sum = 0.0;
        for (std::int64_t pair : {j, n + j}) {
            const double r = radius(wordAt(pair)), theta = angle(wordAt(2 * n + pair));
            sum += r * std::cos(theta) + r * std::sin(theta);  // the pair's two normals
        }
        out.push_back(sum / 2.0);
    }
    return out;
}

// The instruction sets this CPU runs, the portable one first.
std::vector<SimdLevel> levels() {
    std::vector<SimdLevel> out{SimdLevel::Portable};
    if (train::detail::bestSimdLevel() != SimdLevel::Portable) out.push_back(SimdLevel::Avx2);
    if (train::detail::bestSimdLevel() == SimdLevel::Avx512) out.push_back(SimdLevel::Avx512);
    return out;
}

at::Tensor draw(const RandomnessSource& source, KeyStreamKind kind, std::int64_t m, at::ScalarType dtype, int threads) {
    const int before = at::get_num_threads();
    at::set_num_threads(threads);
    MechanismRng rng(source, "noise", kind);
    at::Tensor z = train::detail::secureGaussian(rng, {m}, dtype);
    at::set_num_threads(before);
    return z;
}

}  // namespace

class TestSecureNoise : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void valuesAreTheSamplerAppliedToTheKeyStream() {
        const auto source = RandomnessSource::seeded(17, "secure-noise-layout");
        for (KeyStreamKind kind : {KeyStreamKind::ChaCha20, KeyStreamKind::Aes256Ctr}) {
            for (bool wide : {false, true}) {
                // One partial chunk; then two chunks, the second partial (its padding differs).
                for (std::int64_t m : {std::int64_t{37}, kChunk + 21}) {
                    const at::Tensor z = draw(source, kind, m, wide ? at::kDouble : at::kFloat, 2).to(at::kDouble);
                    const double* values = z.data_ptr<double>();
                    // Float: its uniforms and functions are float32 (relative 6e-8), radius at most 6.7.
                    const double tolerance = wide ? 1e-12 : 2e-5;
                    for (std::int64_t chunk = 0; chunk * kChunk < m; ++chunk) {
                        const std::vector<double> expected = expectedChunk(source, kind, m, chunk, wide);
                        const std::size_t step = expected.size() > 100 ? 97 : 1;  // a sample of a full chunk
                        for (std::size_t j = 0; j < expected.size(); j += step)
                            DPMIX_COMPARE_NEAR(values[chunk * kChunk + static_cast<std::int64_t>(j)], expected[j],
                                               tolerance);
                        DPMIX_COMPARE_NEAR(values[chunk * kChunk + static_cast<std::int64_t>(expected.size()) - 1],
                                           expected.back(), tolerance);
                    }
                }
            }
        }
    }

    void consumesExactlyItsReservation() {
        // After a draw, the generator continues right after the draw's key stream: the next block
        // is the one after blocksFor(m) of an identical generator, never one the draw used.
        const auto source = RandomnessSource::seeded(5, "secure-noise-reservation");
        for (bool wide : {false, true}) {
            for (std::int64_t m : {std::int64_t{1}, std::int64_t{16}, std::int64_t{17}, 3 * kChunk + 5}) {
                MechanismRng used(source, "noise"), twin(source, "noise");
                (void)train::detail::secureGaussian(used, {m}, wide ? at::kDouble : at::kFloat);
                const std::uint64_t blocks = blocksFor(m, wide ? 8 : 4);
                unsigned char next[64], expected[64];
                used.reserveKeyStream(1).write(0, 1, next);
                twin.reserveKeyStream(blocks + 1).write(blocks, 1, expected);
                QVERIFY2(std::memcmp(next, expected, 64) == 0, str("m = ", m, wide ? " double" : " float").c_str());
            }
        }
    }

    void threadCountDoesNotChangeTheNoise() {
        const auto source = RandomnessSource::seeded(9, "secure-noise-threads");
        for (at::ScalarType dtype : {at::kFloat, at::kDouble}) {
            for (std::int64_t m : {std::int64_t{1}, std::int64_t{16}, kChunk, kChunk + 1, 5 * kChunk + 333}) {
                const at::Tensor one = draw(source, KeyStreamKind::Aes256Ctr, m, dtype, 1);
                for (int threads : {2, 3}) {
                    QVERIFY2(at::equal(one, draw(source, KeyStreamKind::Aes256Ctr, m, dtype, threads)),
                             str("m = ", m, ", ", threads, " threads").c_str());
                }
            }
        }
    }

    void kernelLogarithmAndSineAreAccurate() {
        // -ln x on every 61st float of [2^-32, 1] (the radius uniforms' range) and sin x on every
        // 3rd float of [π/4, 2π + π/4] (the shifted angles'), against double-precision std::log and
        // std::sin: within 1.5e-7 relative (about 1.3 float ulps) and 1.5e-7 absolute.
        std::vector<float> logIn, sinIn;
        for (std::uint32_t b = 0x2F800000u; b <= 0x3F800000u; b += 61) logIn.push_back(std::bit_cast<float>(b));
        logIn.push_back(1.0f);
        for (float x = static_cast<float>(std::numbers::pi / 4); x <= static_cast<float>(2.25 * std::numbers::pi);
             x = std::nextafter(std::nextafter(std::nextafter(x, 8.0f), 8.0f), 8.0f))
            sinIn.push_back(x);
        for (auto* v : {&logIn, &sinIn})
            while (v->size() % 16) v->push_back(v->back());
        std::vector<float> out(std::max(logIn.size(), sinIn.size()));
        for (SimdLevel level : levels()) {
            train::detail::kernelMinusLog(level, logIn.data(), static_cast<std::int64_t>(logIn.size()), out.data());
            double worst = 0.0;
            for (std::size_t i = 0; i < logIn.size(); ++i) {
                const double exact = -std::log(static_cast<double>(logIn[i]));
                worst = std::max(worst, std::fabs(out[i] - exact) / std::max(1.0, exact));
            }
            QVERIFY2(worst < 1.5e-7, str("level ", static_cast<int>(level), ": -ln relative error ", worst).c_str());
            QCOMPARE(out[logIn.size() - 1], 0.0f);  // -ln 1
            train::detail::kernelSin(level, sinIn.data(), static_cast<std::int64_t>(sinIn.size()), out.data());
            worst = 0.0;
            for (std::size_t i = 0; i < sinIn.size(); ++i)
                worst = std::max(worst, std::fabs(out[i] - std::sin(static_cast<double>(sinIn[i]))));
            QVERIFY2(worst < 1.5e-7, str("level ", static_cast<int>(level), ": sin error ", worst).c_str());
        }
    }

    void everyInstructionSetGivesTheSameBits() {
        // Random words, a full chunk and a partial one: the portable, AVX2 and AVX-512 builds
        // (those this CPU runs) agree bit for bit, so seeded noise is the same on every machine.
        std::mt19937 gen(3);
        const std::int64_t n = kChunk;
        std::vector<std::uint32_t> words(static_cast<std::size_t>(4 * n));
        for (auto& w : words) w = static_cast<std::uint32_t>(gen());
        for (std::int64_t count : {n, std::int64_t{13}}) {
            const std::int64_t chunk = count == n ? n : padded(count);
            std::vector<float> reference(static_cast<std::size_t>(count)), other(reference.size());
            train::detail::gaussianFromWords(SimdLevel::Portable, words.data(), chunk, count, reference.data());
            for (SimdLevel level : levels()) {
                train::detail::gaussianFromWords(level, words.data(), chunk, count, other.data());
                QVERIFY2(std::memcmp(reference.data(), other.data(), reference.size() * sizeof(float)) == 0,
                         str("level ", static_cast<int>(level)).c_str());
            }
        }
    }

    void largestFloatOutputIsWithinTheBound() {
        // Both radius uniforms at their smallest, 2^-32 (words 0), and both angles at π/4 (word
        // 2^29: θ + π/4 = π/2), the largest an output can be: 2 · sqrt(32 ln 2) = √2 · 6.6604;
        // radius uniforms of 1 (words 2^32 - 1) give 0.
        const std::int64_t n = 16;
        std::vector<std::uint32_t> words(4 * n, 0);
        for (std::int64_t j = 2 * n; j < 4 * n; ++j) words[static_cast<std::size_t>(j)] = 1u << 29;
        for (std::int64_t j = 8; j < 16; ++j)
            words[static_cast<std::size_t>(j)] = words[static_cast<std::size_t>(n + j)] = ~0u;
        for (SimdLevel level : levels()) {
            std::vector<float> out(n);
            train::detail::gaussianFromWords(level, words.data(), n, n, out.data());
            for (std::int64_t j = 0; j < 8; ++j) {
                DPMIX_COMPARE_NEAR(out[static_cast<std::size_t>(j)], 2.0 * std::sqrt(32.0 * std::log(2.0)), 2e-6);
                QVERIFY(std::fabs(out[static_cast<std::size_t>(j)]) <= privacy::kGaussianBoundFloat);
            }
            for (std::int64_t j = 8; j < 16; ++j) QCOMPARE(out[static_cast<std::size_t>(j)], 0.0f);
        }
        DPMIX_COMPARE_NEAR(privacy::kGaussianBoundFloat, 2.0 * std::sqrt(-2.0 * std::log(0x1.0p-32)), 1e-12);
    }

    void shapesAndTypes() {
        MechanismRng rng(RandomnessSource::secret(), "noise");
        const at::Tensor z = train::detail::secureGaussian(rng, {3, 5, 7}, at::kFloat);
        QCOMPARE(z.sizes().vec(), (std::vector<std::int64_t>{3, 5, 7}));
        QVERIFY(z.scalar_type() == at::kFloat);
        QCOMPARE(train::detail::secureGaussian(rng, {0, 4}, at::kFloat).numel(), std::int64_t{0});
        // Half and bfloat16 are drawn in float32, then converted.
        for (at::ScalarType narrow : {at::kHalf, at::kBFloat16}) {
            const at::Tensor h = train::detail::secureGaussian(rng, {1000}, narrow);
            QVERIFY(h.scalar_type() == narrow);
            QVERIFY(h.isfinite().all().item<bool>());
            QVERIFY(h.to(at::kDouble).abs().max().item<double>() <= privacy::kGaussianBoundFloat);
        }
        QVERIFY(train::detail::secureGaussian(rng, {10}, at::kDouble).scalar_type() == at::kDouble);
    }

    void seededNoiseRepeatsSecretNoiseDoesNot() {
        const auto seeded = RandomnessSource::seeded(1, "x");
        for (at::ScalarType dtype : {at::kFloat, at::kDouble}) {
            MechanismRng a(seeded, "noise"), b(seeded, "noise");
            QVERIFY(at::equal(train::detail::secureGaussian(a, {4097}, dtype),
                              train::detail::secureGaussian(b, {4097}, dtype)));
            // And the draw after it too: the generators moved alike.
            QVERIFY(at::equal(train::detail::secureGaussian(a, {64}, dtype),
                              train::detail::secureGaussian(b, {64}, dtype)));
            MechanismRng c(RandomnessSource::secret(), "noise"), d(RandomnessSource::secret(), "noise");
            QVERIFY(!at::equal(train::detail::secureGaussian(c, {64}, dtype),
                               train::detail::secureGaussian(d, {64}, dtype)));
            // Successive draws of one generator differ (no key stream replayed).
            QVERIFY(!at::equal(train::detail::secureGaussian(c, {64}, dtype),
                               train::detail::secureGaussian(c, {64}, dtype)));
        }
    }

    void smallNoiseMultipliersGetTheDoubleSampler() {
        // z = noiseStd / sensitivity: below kMinFloatNoiseMultiplier a float32 gradient gets the
        // double sampler's values (bound 17.14), rounded; from it on the float32 sampler's. Same
        // seeded stream on both sides, so the values must be equal, not just alike.
        const auto seeded = RandomnessSource::seeded(7, "privatise");
        const double denominator = 4.0;
        struct Case {
            double noiseStd, sensitivity;
            at::ScalarType sampler;
        };
        const double z = train::detail::kMinFloatNoiseMultiplier;
        for (const Case& c : {Case{0.5 * z, 1.0, at::kDouble}, Case{z, 1.0, at::kFloat}, Case{2.0 * z, 1.0, at::kFloat},
                              Case{3.0, 0.0, at::kDouble}, Case{3.0, INFINITY, at::kDouble}}) {
            at::Tensor w = at::zeros({33, 7}, at::kFloat);
            std::vector<at::Tensor*> params{&w};
            MechanismRng used(seeded, "noise"), reference(seeded, "noise");
            train::detail::privatiseGradients(params, c.noiseStd, c.sensitivity, denominator, used);
            const at::Tensor expected = train::detail::secureGaussian(reference, {33, 7}, c.sampler)
                                            .to(at::kFloat)
                                            .mul(c.noiseStd)
                                            .div(denominator);
            QVERIFY2(w.grad().scalar_type() == at::kFloat, str("noiseStd ", c.noiseStd).c_str());
            QVERIFY2(at::allclose(w.grad(), expected, 1e-6, 0.0),
                     str("noiseStd ", c.noiseStd, ", sensitivity ", c.sensitivity).c_str());
        }
    }
};

QTEST_APPLESS_MAIN(TestSecureNoise)
#include "tst_secure_noise.moc"
