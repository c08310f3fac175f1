#pragma once
// The randomness of a DP mechanism: its Poisson batches, its noise, and any other random choice
// it makes on sensitive data. The guarantee holds only if nobody who sees the release can
// regenerate that randomness, so by default every mechanism invocation draws from its own key
// stream — AES-256-CTR (OpenSSL) where the CPU has AES instructions, else ChaCha20 (libsodium);
// engine/privacy/key_stream.h — keyed from the operating system's entropy; the key lives in this
// object only and is wiped when it goes. Seeded mode keys a ChaCha20 stream from
// (seed, invocation, purpose) instead — the same stream on every machine, for tests, teaching and
// research — and every ledger entry of such a run says that the release is not private to anyone
// who holds the seed. docs/PRIVACY.md, "Secret randomness", explains the choices.
#include "engine/privacy/key_stream.h"
#include "engine/privacy/randomness_source.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace dpmix::privacy {

/// A cryptographically secure random bit generator for one purpose ("sampling", "noise", ...)
/// of one invocation. Satisfies UniformRandomBitGenerator. Not copyable: a copy would replay
/// the same stream.
class MechanismRng {
public:
    using result_type = std::uint64_t;

    MechanismRng(const RandomnessSource& source, std::string_view purpose);
    /// The same with a chosen key stream instead of keyStreamFor(source.mode) — for tests and
    /// benchmarks (a seeded stream is then reproducible only with the same choice).
    MechanismRng(const RandomnessSource& source, std::string_view purpose, KeyStreamKind stream);
    ~MechanismRng();
    MechanismRng(const MechanismRng&) = delete;
    MechanismRng& operator=(const MechanismRng&) = delete;
    MechanismRng(MechanismRng&& other) noexcept;
    MechanismRng& operator=(MechanismRng&& other) noexcept;

    static constexpr result_type min() { return 0; }
    static constexpr result_type max() { return ~result_type{0}; }
    result_type operator()();

    RandomnessMode mode() const { return mode_; }
    KeyStreamKind keyStream() const { return stream_; }

    /// Uniform on the grid {0, 2^-53, ..., 1 - 2^-53}.
    double uniform01() { return static_cast<double>((*this)() >> 11) * 0x1.0p-53; }

    /// One standard normal by the hardened sampler: the mean of four Box–Muller draws times 2
    /// (see kGaussianBound and docs/PRIVACY.md).
    double gaussian();
    /// out[i] = stddev · gaussian(), in bulk.
    void fillGaussian(std::span<double> out, double stddev);
    void fillGaussian(std::span<float> out, double stddev);

    /// Bulk uniforms for vectorised samplers (engine/train's noise): `positive` = false gives
    /// the grid of uniform01(), true the grid {2^-53, 2·2^-53, ..., 1} (never 0, for logs).
    void fillUniform(std::span<double> out, bool positive);

    /// A run of key stream reserved for one bulk draw (a DP-SGD step's noise, train/detail/secure_noise):
    /// its blocks can be generated in any order, on any thread, and are the same wherever they are
    /// computed. Reserving moves the generator past them, so nothing drawn later reuses them. Valid
    /// while the generator lives and is not moved.
    class KeyStreamRun {
    public:
        std::uint64_t blocks() const { return count_; }
        /// Writes blocks [from, from + count) of the run (64 bytes each) to `out`; throws
        /// std::out_of_range beyond the run. Safe to call from several threads at once.
        void write(std::uint64_t from, std::size_t count, unsigned char* out) const;

    private:
        friend class MechanismRng;
        KeyStreamRun(const MechanismRng& rng, std::uint64_t first, std::uint64_t count)
            : rng_(&rng), first_(first), count_(count) {}
        const MechanismRng* rng_;
        std::uint64_t first_, count_;
    };
    /// Reserves the next `blocks` 64-byte blocks of the stream (after whatever is buffered for
    /// single draws, which stays for them).
    KeyStreamRun reserveKeyStream(std::uint64_t blocks);

    /// A Gamma(shape, 1) draw (Marsaglia–Tsang; shape < 1 by the boost U^{1/shape}), shape > 0.
    double gamma(double shape);

private:
    double boxMuller();  // one plain N(0,1) draw (the pair's second value is kept)
    void refill();
    void wipe() noexcept;

    RandomnessMode mode_ = RandomnessMode::Secret;
    KeyStreamKind stream_ = KeyStreamKind::ChaCha20;
    std::array<unsigned char, kKeyStreamKeyBytes> key_{};
    std::uint64_t blockCounter_ = 0;
    std::array<unsigned char, 16384> buffer_{};
    std::size_t used_ = 16384;
    double spare_ = 0.0;
    bool hasSpare_ = false;
};

/// Largest |value| the hardened Gaussian sampler can return: a Box–Muller radius is at most
/// sqrt(-2 ln 2^-53) since its uniform is never below 2^-53, and four of them are summed and
/// halved. Nothing outside [-kGaussianBound, kGaussianBound] is ever produced.
inline constexpr double kGaussianBound = 2.0 * 8.571674348652905;  // 2 · sqrt(106 · ln 2)

/// The same for float32 noise (train/detail/secure_noise), whose Box–Muller uniform u1 is a 32-bit
/// draw on the grid {2^-32, 2·2^-32, ..., 1}: a radius is at most sqrt(-2 ln 2^-32) = sqrt(64 ln 2)
/// ≈ 6.6604, four normals are summed and halved, so no float32 output exceeds 2 · 6.6604 ≈ 13.32.
/// (The two normals of a pair sum to R(cos θ + sin θ), at most √2 R, so the largest output is in
/// fact about √2 · 6.6604 ≈ 9.42: float rounding cannot reach the bound.)
inline constexpr double kGaussianBoundFloat = 2.0 * 6.6604368892615815;  // 2 · sqrt(64 · ln 2)

}  // namespace dpmix::privacy
