#include "engine/privacy/mechanism_random.h"

#include <sodium.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

namespace dpmix::privacy {
namespace {

void ensureSodium() {
    // sodium_init is idempotent and thread-safe; < 0 means no usable entropy source.
    static const int status = sodium_init();
    if (status < 0) throw std::runtime_error("libsodium could not be initialised: no secure random source");
}

// Seeded keys: BLAKE2b-256 of a domain tag, the seed (little endian), the invocation and the
// purpose, each length-prefixed so that ("ab","c") and ("a","bc") differ.
void deriveSeededKey(std::uint64_t seed, std::string_view invocation, std::string_view purpose,
                     std::array<unsigned char, 32>& key) {
    crypto_generichash_state state;
    crypto_generichash_init(&state, nullptr, 0, key.size());
    static constexpr char kTag[] = "dpmix seeded mechanism randomness v1";
    crypto_generichash_update(&state, reinterpret_cast<const unsigned char*>(kTag), sizeof kTag);
    auto putLength = [&](std::uint64_t v) {
        unsigned char bytes[8];
        for (int i = 0; i < 8; ++i) bytes[i] = static_cast<unsigned char>(v >> (8 * i));
        crypto_generichash_update(&state, bytes, sizeof bytes);
    };
    putLength(seed);
    for (std::string_view part : {invocation, purpose}) {
        putLength(part.size());
        crypto_generichash_update(&state, reinterpret_cast<const unsigned char*>(part.data()), part.size());
    }
    crypto_generichash_final(&state, key.data(), key.size());
}

std::uint64_t load64le(const unsigned char* p) {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(p[i]) << (8 * i);
    return v;
}

}  // namespace

std::string toString(RandomnessMode mode) { return mode == RandomnessMode::Secret ? "secret" : "seeded"; }

bool parseRandomnessMode(const std::string& text, RandomnessMode& out) {
    if (text == "secret") {
        out = RandomnessMode::Secret;
        return true;
    }
    if (text == "seeded") {
        out = RandomnessMode::Seeded;
        return true;
    }
    return false;
}

RandomnessSource RandomnessSource::seeded(std::uint64_t seed, std::string invocation) {
    RandomnessSource s;
    s.mode = RandomnessMode::Seeded;
    s.seed = seed;
    s.invocation = std::move(invocation);
    return s;
}

RandomnessSource RandomnessSource::child(std::string_view part) const {
    RandomnessSource s = *this;
    if (s.mode == RandomnessMode::Seeded) s.invocation += "/" + std::string(part);
    return s;
}

MechanismRng::MechanismRng(const RandomnessSource& source, std::string_view purpose)
    : MechanismRng(source, purpose, keyStreamFor(source.mode)) {}

MechanismRng::MechanismRng(const RandomnessSource& source, std::string_view purpose, KeyStreamKind stream)
    : mode_(source.mode), stream_(stream) {
    ensureSodium();
    if (mode_ == RandomnessMode::Secret)
        randombytes_buf(key_.data(), key_.size());  // getrandom(2) on Linux
    else
        deriveSeededKey(source.seed, source.invocation, purpose, key_);
}

MechanismRng::~MechanismRng() { wipe(); }

MechanismRng::MechanismRng(MechanismRng&& other) noexcept
    : mode_(other.mode_),
      stream_(other.stream_),
      key_(other.key_),
      blockCounter_(other.blockCounter_),
      buffer_(other.buffer_),
      used_(other.used_),
      spare_(other.spare_),
      hasSpare_(other.hasSpare_) {
    other.wipe();
}

MechanismRng& MechanismRng::operator=(MechanismRng&& other) noexcept {
    if (this != &other) {
        wipe();
        mode_ = other.mode_;
        stream_ = other.stream_;
        key_ = other.key_;
        blockCounter_ = other.blockCounter_;
        buffer_ = other.buffer_;
        used_ = other.used_;
        spare_ = other.spare_;
        hasSpare_ = other.hasSpare_;
        other.wipe();
    }
    return *this;
}

void MechanismRng::wipe() noexcept {
    sodium_memzero(key_.data(), key_.size());
    sodium_memzero(buffer_.data(), buffer_.size());
    spare_ = 0.0;
    hasSpare_ = false;
    used_ = buffer_.size();
}

void MechanismRng::refill() {
    writeKeyStream(stream_, key_.data(), blockCounter_, buffer_.size() / kKeyStreamBlockBytes, buffer_.data());
    blockCounter_ += buffer_.size() / kKeyStreamBlockBytes;
    used_ = 0;
}

MechanismRng::KeyStreamRun MechanismRng::reserveKeyStream(std::uint64_t blocks) {
    const KeyStreamRun run(*this, blockCounter_, blocks);
    blockCounter_ += blocks;
    return run;
}

void MechanismRng::KeyStreamRun::write(std::uint64_t from, std::size_t count, unsigned char* out) const {
    if (from > count_ || count > count_ - from)
        throw std::out_of_range("key stream run: blocks beyond the reservation");
    writeKeyStream(rng_->stream_, rng_->key_.data(), first_ + from, count, out);
}

MechanismRng::result_type MechanismRng::operator()() {
    if (used_ + 8 > buffer_.size()) refill();
    const std::uint64_t v = load64le(buffer_.data() + used_);
    used_ += 8;
    return v;
}

void MechanismRng::fillUniform(std::span<double> out, bool positive) {
    const std::uint64_t offset = positive ? 1 : 0;
    auto toUniform = [offset](std::uint64_t r) { return static_cast<double>((r >> 11) + offset) * 0x1.0p-53; };
    std::size_t i = 0;
    while (i < out.size() && used_ + 8 <= buffer_.size()) out[i++] = toUniform((*this)());  // what is buffered
    // Then whole blocks straight into the output — the same key stream, in the same order, as
    // draw-by-draw calls would give (the buffer is empty here, and the counter is past it).
    if (const std::size_t blocks = (out.size() - i) / 8; blocks > 0) {
        // Block b of the run is key-stream block blockCounter_ + b wherever it is computed, so the
        // run can be cut into slices generated on several threads (a DP-SGD step's noise is
        // millions of values); the result is the same as on one thread.
        double* base = out.data() + i;
        const std::uint64_t firstBlock = blockCounter_;
        auto slice = [&](std::size_t from, std::size_t to) {
            auto* bytes = reinterpret_cast<unsigned char*>(base + 8 * from);
            writeKeyStream(stream_, key_.data(), firstBlock + from, to - from, bytes);
            for (std::size_t j = 0; j < (to - from) * 8; ++j) base[8 * from + j] = toUniform(load64le(bytes + 8 * j));
        };
        constexpr std::size_t kBlocksPerThread = 1 << 14;  // 1 MiB of key stream
        const std::size_t threads = std::min<std::size_t>(
            {4, std::max(1u, std::thread::hardware_concurrency()), blocks / kBlocksPerThread + 1});
        std::vector<std::thread> workers;
        for (std::size_t t = 1; t < threads; ++t)
            workers.emplace_back(slice, blocks * t / threads, blocks * (t + 1) / threads);
        slice(0, blocks / threads);
        for (auto& w : workers) w.join();
        blockCounter_ += blocks;
        i += blocks * 8;
    }
    while (i < out.size()) out[i++] = toUniform((*this)());
}

double MechanismRng::boxMuller() {
    if (hasSpare_) {
        hasSpare_ = false;
        return spare_;
    }
    // u1 in (0, 1] on the 2^-53 grid (never 0, so the log is finite), u2 in [0, 1).
    const double u1 = static_cast<double>(((*this)() >> 11) + 1) * 0x1.0p-53;
    const double u2 = uniform01();
    const double radius = std::sqrt(-2.0 * std::log(u1));
    const double angle = 2.0 * std::numbers::pi * u2;
    spare_ = radius * std::sin(angle);
    hasSpare_ = true;
    return radius * std::cos(angle);
}

double MechanismRng::gaussian() {
    // A single floating-point Gaussian draw leaks through the gaps and clustering of the values it
    // can take (Mironov 2012 for Laplace, Holohan & Braghin 2021 for Box–Muller and the polar
    // method); the sum of several independent draws does not show them. Four, as Opacus's secure
    // mode: (z1 + z2 + z3 + z4) / 2 ~ N(0, 1).
    const double sum = boxMuller() + boxMuller() + boxMuller() + boxMuller();
    return 0.5 * sum;
}

void MechanismRng::fillGaussian(std::span<double> out, double stddev) {
    for (double& v : out) v = stddev * gaussian();
}

void MechanismRng::fillGaussian(std::span<float> out, double stddev) {
    for (float& v : out) v = static_cast<float>(stddev * gaussian());
}

double MechanismRng::gamma(double shape) {
    if (!(shape > 0.0) || !std::isfinite(shape))
        throw std::invalid_argument("Gamma shape must be a positive finite number");
    if (shape < 1.0) {
        // Gamma(a) = Gamma(a + 1) · U^{1/a}, U in (0, 1].
        const double u = static_cast<double>(((*this)() >> 11) + 1) * 0x1.0p-53;
        return gamma(shape + 1.0) * std::pow(u, 1.0 / shape);
    }
    // Marsaglia & Tsang (2000).
    const double d = shape - 1.0 / 3.0;
    const double c = 1.0 / std::sqrt(9.0 * d);
    while (true) {
        double x, v;
        do {
            x = boxMuller();
            v = 1.0 + c * x;
        } while (v <= 0.0);
        v = v * v * v;
        const double u = static_cast<double>(((*this)() >> 11) + 1) * 0x1.0p-53;
        if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
    }
}

}  // namespace dpmix::privacy
