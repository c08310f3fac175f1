// The generator behind every DP mechanism's randomness (engine/privacy/mechanism_random):
// seeded streams are reproducible and keyed by (seed, invocation, purpose); secret streams are
// fresh per object; the output grid and the hardened Gaussian's hard bound hold. Its key streams
// (engine/privacy/key_stream) are checked against published test vectors: RFC 8439 A.1 for
// ChaCha20 (whose first blocks, with a zero nonce, are those of the original 64-bit-nonce
// variant), NIST SP 800-38A F.5.5 for AES-256-CTR and FIPS-197 C.3 for the AES-256 block.
#include "engine/data/poisson_sampler.h"
#include "engine/privacy/mechanism_random.h"

#include "tests/support/unit_test.h"

#include <openssl/evp.h>
#include <sodium.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

using namespace dpmix::privacy;

namespace {

using Bytes = std::vector<unsigned char>;

Bytes hex(std::string_view text) {
    Bytes out;
    for (std::size_t i = 0; i + 1 < text.size(); i += 2)
        out.push_back(static_cast<unsigned char>(std::stoi(std::string(text.substr(i, 2)), nullptr, 16)));
    return out;
}

Bytes xorOf(const Bytes& a, const Bytes& b) {
    Bytes out(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) out[i] = a[i] ^ b[i];
    return out;
}

// AES-256 of single 16-byte blocks (ECB), to build counter mode by hand.
Bytes aes256Blocks(const Bytes& key, const Bytes& blocks) {
    std::unique_ptr<EVP_CIPHER_CTX, void (*)(EVP_CIPHER_CTX*)> ctx(EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_free);
    Bytes out(blocks.size() + 16);
    int n = 0, tail = 0;
    if (EVP_EncryptInit_ex(ctx.get(), EVP_aes_256_ecb(), nullptr, key.data(), nullptr) != 1 ||
        EVP_CIPHER_CTX_set_padding(ctx.get(), 0) != 1 ||
        EVP_EncryptUpdate(ctx.get(), out.data(), &n, blocks.data(), static_cast<int>(blocks.size())) != 1 ||
        EVP_EncryptFinal_ex(ctx.get(), out.data() + n, &tail) != 1)
        throw std::runtime_error("AES-256-ECB failed");
    out.resize(static_cast<std::size_t>(n + tail));
    return out;
}

// The 128-bit big-endian counter blocks hi·2^64 + lo, +1, ... (`count` of them).
Bytes counterBlocks(std::uint64_t hi, std::uint64_t lo, int count) {
    Bytes out;
    for (int k = 0; k < count; ++k) {
        for (int i = 7; i >= 0; --i) out.push_back(static_cast<unsigned char>(hi >> (8 * i)));
        for (int i = 7; i >= 0; --i) out.push_back(static_cast<unsigned char>(lo >> (8 * i)));
        if (++lo == 0) ++hi;
    }
    return out;
}

std::uint64_t le64(const unsigned char* p) {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(p[i]) << (8 * i);
    return v;
}

std::vector<std::uint64_t> draws(MechanismRng& rng, int n) {
    std::vector<std::uint64_t> v;
    for (int i = 0; i < n; ++i) v.push_back(rng());
    return v;
}

std::vector<std::uint64_t> draws(const RandomnessSource& s, const char* purpose, int n = 600) {
    MechanismRng rng(s, purpose);
    return draws(rng, n);  // 600 draws cross the 4096-byte buffer refill
}

}  // namespace

class TestMechanismRandom : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void seededStreamsAreReproducible() {
        const auto s = RandomnessSource::seeded(7, "mixture/dp-mixmin/task=t/eps=1/seed=7");
        QCOMPARE(draws(s, "noise"), draws(s, "noise"));
        QVERIFY(!s.isSecret());
    }

    void everyPartOfTheKeyChangesTheStream() {
        const auto base = draws(RandomnessSource::seeded(7, "inv"), "noise");
        QVERIFY(draws(RandomnessSource::seeded(8, "inv"), "noise") != base);
        QVERIFY(draws(RandomnessSource::seeded(7, "inv2"), "noise") != base);
        QVERIFY(draws(RandomnessSource::seeded(7, "inv"), "sampling") != base);
        // Length-prefixed key material: moving a character between the fields is another key.
        QVERIFY(draws(RandomnessSource::seeded(7, "in"), "vnoise") != base);
        QCOMPARE(RandomnessSource::seeded(7, "inv").child("run 3").invocation, std::string("inv/run 3"));
        QVERIFY(draws(RandomnessSource::seeded(7, "inv").child("run 3"), "noise") != base);
    }

    void secretStreamsAreFreshEveryTime() {
        const auto secret = RandomnessSource::secret();
        QVERIFY(secret.isSecret());
        QVERIFY(secret.child("part").isSecret());
        const auto a = draws(secret, "noise"), b = draws(secret, "noise");
        QVERIFY(a != b);
        // No seed reproduces a secret stream (the key is not derived from anything stored).
        QVERIFY(a != draws(RandomnessSource::seeded(0, ""), "noise"));
        QVERIFY(a != draws(RandomnessSource::seeded(0, {}), "noise"));
    }

    void movingHandsOverTheStreamAndWipesTheSource() {
        MechanismRng a(RandomnessSource::seeded(3, "x"), "noise");
        MechanismRng reference(RandomnessSource::seeded(3, "x"), "noise");
        (void)a();
        (void)reference();
        MechanismRng b(std::move(a));
        QCOMPARE(draws(b, 100), draws(reference, 100));
    }

    void uniformsLieOnTheTwoToTheMinus53Grid() {
        MechanismRng rng(RandomnessSource::secret(), "u");
        for (int i = 0; i < 10000; ++i) {
            const double u = rng.uniform01();
            QVERIFY(u >= 0.0 && u < 1.0);
            const double scaled = u * 0x1.0p53;
            QCOMPARE(scaled, std::floor(scaled));
        }
    }

    void bulkUniformsAreTheSameStreamAsSingleDraws() {
        // fillUniform writes whole blocks straight to the output: it must still be the stream
        // draw-by-draw calls give, across buffer boundaries and odd lengths.
        const auto s = RandomnessSource::seeded(5, "bulk");
        MechanismRng bulk(s, "u"), single(s, "u");
        (void)bulk();
        (void)single();
        std::vector<double> a(5003), b(7), c(40000);
        bulk.fillUniform(a, false);
        bulk.fillUniform(b, true);
        bulk.fillUniform(c, false);
        for (double v : a) QCOMPARE(v, single.uniform01());
        for (double v : b) QCOMPARE(v, static_cast<double>((single() >> 11) + 1) * 0x1.0p-53);
        for (double v : c) QCOMPARE(v, single.uniform01());
        QCOMPARE(bulk(), single());
    }

    void gaussianBoundIsTheBoxMullerMaximum() {
        // Independent value: the largest Box–Muller radius from a uniform >= 2^-53, four summed, halved.
        const double radius = std::sqrt(-2.0 * std::log(0x1.0p-53));
        DPMIX_COMPARE_NEAR(kGaussianBound, 2.0 * radius, 1e-12);
        MechanismRng rng(RandomnessSource::secret(), "noise");
        std::vector<double> out(200000);
        rng.fillGaussian(out, 1.0);
        for (double v : out) QVERIFY(std::isfinite(v) && std::fabs(v) <= kGaussianBound);
        std::vector<float> f(1000);
        rng.fillGaussian(f, 3.0);
        for (float v : f) QVERIFY(std::isfinite(v) && std::fabs(v) <= 3.0 * kGaussianBound);
    }

    void chacha20MatchesRfc8439Vectors() {
        // RFC 8439, Appendix A.1, test vectors #1 and #2 (all-zero key and nonce, blocks 0 and 1)
        // and #3 (key 00..01, block 1). The nonce is zero, so the 96-bit-nonce blocks are those
        // of the original variant (64-bit counter, 64-bit nonce) libsodium implements.
        const Bytes zeroKey(32, 0), nonce(8, 0);
        const Bytes block0 =
            hex("76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7"
                "da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586");
        const Bytes block1 =
            hex("9f07e7be5551387a98ba977c732d080dcb0f29a048e3656912c6533e32ee7aed"
                "29b721769ce64e43d57133b074d839d531ed1f28510afb45ace10a1f4b794d6f");
        Bytes out(128);
        chacha20KeyStream(zeroKey.data(), nonce.data(), 0, out.data(), out.size());
        QVERIFY(Bytes(out.begin(), out.begin() + 64) == block0);
        QVERIFY(Bytes(out.begin() + 64, out.end()) == block1);
        // The generator's block numbering: block b of the stream is ChaCha20 block b.
        Bytes viaBlocks(128);
        writeKeyStream(KeyStreamKind::ChaCha20, zeroKey.data(), 0, 2, viaBlocks.data());
        QVERIFY(viaBlocks == out);
        writeKeyStream(KeyStreamKind::ChaCha20, zeroKey.data(), 1, 1, viaBlocks.data());
        QVERIFY(Bytes(viaBlocks.begin(), viaBlocks.begin() + 64) == block1);

        Bytes keyOne(32, 0);
        keyOne[31] = 1;
        writeKeyStream(KeyStreamKind::ChaCha20, keyOne.data(), 1, 1, viaBlocks.data());
        QVERIFY(Bytes(viaBlocks.begin(), viaBlocks.begin() + 64) ==
                hex("3aeb5224ecf849929b9d828db1ced4dd832025e8018b8160b82284f3c949aa5a"
                    "8eca00bbb4a73bdad192b5c42f73f2fd4e273644c8b36125a64addeb006c13a0"));
    }

    void aes256CtrMatchesNistSp800_38a() {
        // NIST SP 800-38A, F.5.5 CTR-AES256.Encrypt: the key stream is ciphertext XOR plaintext.
        const Bytes key = hex("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4");
        const Bytes counter = hex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff");
        const Bytes plaintext =
            hex("6bc1bee22e409f96e93d7e117393172a"
                "ae2d8a571e03ac9c9eb76fac45af8e51"
                "30c81c46a35ce411e5fbc1191a0a52ef"
                "f69f2445df4f9b17ad2b417be66c3710");
        const Bytes ciphertext =
            hex("601ec313775789a5b7a7f504bbf3d228"
                "f443e3ca4d62b59aca84e990cacaf5c5"
                "2b0930daa23de94ce87017ba2d84988d"
                "dfc9c58db67aada613c2dd08457941a6");
        Bytes stream(64);
        aes256CtrKeyStream(key.data(), counter.data(), stream.data(), stream.size());
        QVERIFY(stream == xorOf(ciphertext, plaintext));
        // A length that is not a whole number of blocks is the same stream, cut.
        Bytes partial(37);
        aes256CtrKeyStream(key.data(), counter.data(), partial.data(), partial.size());
        QVERIFY(Bytes(stream.begin(), stream.begin() + 37) == partial);
    }

    void aesBlocksAreTheEncryptedCounters() {
        // FIPS-197 C.3 first, so that the block cipher the check below builds on is AES-256.
        const Bytes fipsKey = hex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
        QVERIFY(aes256Blocks(fipsKey, hex("00112233445566778899aabbccddeeff")) ==
                hex("8ea2b7ca516745bfeafc49904b496089"));
        // 64-byte block b of the generator's AES stream = AES(4b), AES(4b + 1), AES(4b + 2),
        // AES(4b + 3), counters as 128-bit big-endian numbers — built here by hand, including
        // the carries out of the low 32 and 64 bits.
        for (std::uint64_t b : {std::uint64_t{0}, std::uint64_t{5}, (std::uint64_t{1} << 30) - 1,
                                (std::uint64_t{1} << 62) - 1, std::uint64_t{1} << 62, ~std::uint64_t{0}}) {
            Bytes stream(128);
            writeKeyStream(KeyStreamKind::Aes256Ctr, fipsKey.data(), b, 2, stream.data());
            const std::uint64_t hi = b >> 62, lo = b << 2;
            QVERIFY2(stream == aes256Blocks(fipsKey, counterBlocks(hi, lo, 8)), std::to_string(b).c_str());
        }
    }

    void seededStreamIsChaCha20KeyedByBlake2b() {
        // The documented seeded key: BLAKE2b-256 of the tag (with its NUL), the seed (8 bytes,
        // little endian), then each of invocation and purpose as length (8 bytes) and bytes —
        // and the stream is ChaCha20 from block 0 on every machine, whatever its CPU.
        const std::string tag = "dpmix seeded mechanism randomness v1", invocation = "mixture/t", purpose = "noise";
        QVERIFY(sodium_init() >= 0);
        crypto_generichash_state state;
        crypto_generichash_init(&state, nullptr, 0, 32);
        crypto_generichash_update(&state, reinterpret_cast<const unsigned char*>(tag.c_str()), tag.size() + 1);
        auto put64 = [&](std::uint64_t v) {
            unsigned char bytes[8];
            for (int i = 0; i < 8; ++i) bytes[i] = static_cast<unsigned char>(v >> (8 * i));
            crypto_generichash_update(&state, bytes, 8);
        };
        put64(42);
        for (const std::string& part : {invocation, purpose}) {
            put64(part.size());
            crypto_generichash_update(&state, reinterpret_cast<const unsigned char*>(part.data()), part.size());
        }
        Bytes key(32);
        crypto_generichash_final(&state, key.data(), key.size());
        Bytes stream(64 * 300);  // past the generator's 256-block buffer
        const Bytes nonce(8, 0);
        chacha20KeyStream(key.data(), nonce.data(), 0, stream.data(), stream.size());

        MechanismRng rng(RandomnessSource::seeded(42, invocation), purpose);
        QVERIFY(rng.keyStream() == KeyStreamKind::ChaCha20);
        for (std::size_t i = 0; i < stream.size(); i += 8) QCOMPARE(rng(), le64(stream.data() + i));
    }

    void secretStreamsUseHardwareAesWhereThereIsSome() {
        QVERIFY(keyStreamFor(RandomnessMode::Seeded) == KeyStreamKind::ChaCha20);
        const KeyStreamKind expected = hasHardwareAes() ? KeyStreamKind::Aes256Ctr : KeyStreamKind::ChaCha20;
        QVERIFY(keyStreamFor(RandomnessMode::Secret) == expected);
        QVERIFY(MechanismRng(RandomnessSource::secret(), "noise").keyStream() == expected);
        QVERIFY(MechanismRng(RandomnessSource::seeded(1, "x"), "noise").keyStream() == KeyStreamKind::ChaCha20);
        QCOMPARE(toString(KeyStreamKind::Aes256Ctr), std::string("AES-256-CTR"));
        QCOMPARE(toString(KeyStreamKind::ChaCha20), std::string("ChaCha20"));
        QVERIFY(describeKeyStream(RandomnessMode::Secret).find(toString(expected)) == 0);
        QVERIFY(describeKeyStream(RandomnessMode::Seeded).find("ChaCha20") == 0);
        // Both key streams, secret: fresh keys, different streams.
        for (KeyStreamKind kind : {KeyStreamKind::ChaCha20, KeyStreamKind::Aes256Ctr}) {
            MechanismRng a(RandomnessSource::secret(), "noise", kind), b(RandomnessSource::secret(), "noise", kind);
            QVERIFY(a.keyStream() == kind);
            QVERIFY(draws(a, 600) != draws(b, 600));
        }
    }

    void reservedKeyStreamIsNeverDrawnAgain() {
        for (KeyStreamKind kind : {KeyStreamKind::ChaCha20, KeyStreamKind::Aes256Ctr}) {
            // `a` reserves 3 blocks, draws one value, reserves 2 more; `b`, the same stream, draws
            // one by one: the first run is its values 0-23, a's draw is value 24 (the buffer
            // starts after the run), and the second run starts after a's 256-block buffer.
            const auto s = RandomnessSource::seeded(11, "runs");
            MechanismRng a(s, "noise", kind), b(s, "noise", kind);
            const auto first = a.reserveKeyStream(3);
            QCOMPARE(first.blocks(), std::uint64_t{3});
            Bytes bytes(3 * 64);
            // Written in two pieces, out of order: the same bytes.
            first.write(2, 1, bytes.data() + 128);
            first.write(0, 2, bytes.data());
            const std::vector<std::uint64_t> expected = draws(b, 24 + 1 + 2047);
            for (int i = 0; i < 24; ++i) QCOMPARE(le64(bytes.data() + 8 * i), expected[i]);
            QCOMPARE(a(), expected[24]);
            const auto second = a.reserveKeyStream(2);
            Bytes more(2 * 64);
            second.write(0, 2, more.data());
            for (int i = 0; i < 16; ++i) QCOMPARE(le64(more.data() + 8 * i), b());
            QVERIFY_THROWS_EXCEPTION(std::out_of_range, second.write(1, 2, more.data()));
            QVERIFY_THROWS_EXCEPTION(std::out_of_range, second.write(3, 0, more.data()));
        }
    }

    void gammaRefusesBadShapes() {
        MechanismRng rng(RandomnessSource::secret(), "gamma");
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, rng.gamma(0.0));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, rng.gamma(-1.0));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, rng.gamma(std::nan("")));
        QVERIFY(rng.gamma(0.01) >= 0.0);
    }

    void drivesThePoissonSampler() {
        MechanismRng rng(RandomnessSource::seeded(1, "s"), "sampling");
        QVERIFY(dpmix::data::poissonSample(100, 0.0, rng).empty());
        QCOMPARE(dpmix::data::poissonSample(100, 1.0, rng).size(), std::size_t(100));
        MechanismRng again(RandomnessSource::seeded(1, "s"), "sampling");
        (void)dpmix::data::poissonSample(100, 0.0, again);
        (void)dpmix::data::poissonSample(100, 1.0, again);
        QCOMPARE(dpmix::data::poissonSample(1000, 0.3, rng), dpmix::data::poissonSample(1000, 0.3, again));
    }

    void modeNamesRoundTrip() {
        for (auto m : {RandomnessMode::Secret, RandomnessMode::Seeded}) {
            RandomnessMode back{};
            QVERIFY(parseRandomnessMode(toString(m), back));
            QVERIFY(back == m);
        }
        RandomnessMode out{};
        QVERIFY(!parseRandomnessMode("random", out));
    }
};

QTEST_APPLESS_MAIN(TestMechanismRandom)
#include "tst_mechanism_random.moc"
