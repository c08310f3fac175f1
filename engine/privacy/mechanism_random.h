#pragma once
// The randomness of a DP mechanism: its Poisson batches, its noise, and any other random choice
// it makes on sensitive data. The guarantee holds only if nobody who sees the release can
// regenerate that randomness, so by default every mechanism invocation draws from its own
// ChaCha20 key stream (libsodium) keyed from the operating system's entropy; the key lives in
// this object only and is wiped when it goes. Seeded mode keys the same generator from
// (seed, invocation, purpose) instead — for tests, teaching and research — and every ledger entry
// of such a run says that the release is not private to anyone who holds the seed.
// docs/PRIVACY.md, "Secret randomness", explains the choices.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace dpmix::privacy {

enum class RandomnessMode {
    Secret,  // OS entropy, never stored: the default for every release
    Seeded,  // derived from a seed the project file stores: reproducible, not a release
};

std::string toString(RandomnessMode mode);  // "secret", "seeded"
bool parseRandomnessMode(const std::string& text, RandomnessMode& out);

/// Where one mechanism invocation's randomness comes from.
struct RandomnessSource {
    RandomnessMode mode = RandomnessMode::Secret;
    std::uint64_t seed = 0;   // seeded mode only
    std::string invocation;   // seeded mode only: the release's identity, e.g. "mixture/task=t1/eps=1"

    static RandomnessSource secret() { return {}; }
    /// Seeded randomness. Two invocations with the same seed but different `invocation`
    /// strings get unrelated streams, so no two stored releases share a noise draw.
    static RandomnessSource seeded(std::uint64_t seed, std::string invocation = {});

    bool isSecret() const { return mode == RandomnessMode::Secret; }
    /// The source of a part of this invocation (one run of an audit, one sweep point): secret
    /// stays secret (fresh keys anyway), seeded appends "/part" to the identity.
    RandomnessSource child(std::string_view part) const;
};

/// A cryptographically secure random bit generator for one purpose ("sampling", "noise", ...)
/// of one invocation. Satisfies UniformRandomBitGenerator. Not copyable: a copy would replay
/// the same stream.
class MechanismRng {
public:
    using result_type = std::uint64_t;

    MechanismRng(const RandomnessSource& source, std::string_view purpose);
    ~MechanismRng();
    MechanismRng(const MechanismRng&) = delete;
    MechanismRng& operator=(const MechanismRng&) = delete;
    MechanismRng(MechanismRng&& other) noexcept;
    MechanismRng& operator=(MechanismRng&& other) noexcept;

    static constexpr result_type min() { return 0; }
    static constexpr result_type max() { return ~result_type{0}; }
    result_type operator()();

    RandomnessMode mode() const { return mode_; }

    /// Uniform on the grid {0, 2^-53, ..., 1 - 2^-53}.
    double uniform01() { return static_cast<double>((*this)() >> 11) * 0x1.0p-53; }

    /// One standard normal by the hardened sampler: the mean of four Box–Muller draws times 2
    /// (see kGaussianBound and docs/PRIVACY.md).
    double gaussian();
    /// out[i] = stddev · gaussian(), in bulk.
    void fillGaussian(std::span<double> out, double stddev);
    void fillGaussian(std::span<float> out, double stddev);

    /// A Gamma(shape, 1) draw (Marsaglia–Tsang; shape < 1 by the boost U^{1/shape}), shape > 0.
    double gamma(double shape);

private:
    double boxMuller();  // one plain N(0,1) draw (the pair's second value is kept)
    void refill();
    void wipe() noexcept;

    RandomnessMode mode_ = RandomnessMode::Secret;
    std::array<unsigned char, 32> key_{};
    std::uint64_t blockCounter_ = 0;
    std::array<unsigned char, 4096> buffer_{};
    std::size_t used_ = 4096;
    double spare_ = 0.0;
    bool hasSpare_ = false;
};

/// Largest |value| the hardened Gaussian sampler can return: a Box–Muller radius is at most
/// sqrt(-2 ln 2^-53) since its uniform is never below 2^-53, and four of them are summed and
/// halved. Nothing outside [-kGaussianBound, kGaussianBound] is ever produced.
inline constexpr double kGaussianBound = 2.0 * 8.571674348652905;  // 2 · sqrt(106 · ln 2)

}  // namespace dpmix::privacy
