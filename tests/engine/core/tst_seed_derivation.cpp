// Every seed derivation of engine/core/seed_derivation.h against values computed independently
// (Python integers reduced modulo 2^64, and SplitMix64's published first output), so that a
// change to any formula — which would silently change every stored result that depends on it —
// fails here first.
#include "engine/core/seed_derivation.h"

#include "tests/support/unit_test.h"

#include <cstdint>
#include <random>
#include <set>

using namespace dpmix;

class TestSeedDerivation : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void splitMix64MatchesItsPublishedFirstOutput() {
        // SplitMix64 seeded with 0 (Java's new SplittableRandom(0).nextLong() = -2152535657050944081).
        QCOMPARE(seeds::splitMix64(0), std::uint64_t{0xE220A8397B1DCDAFULL});
    }

    void deriveIsSplitMixThreeTimes() {
        QCOMPARE(seeds::derive(42, 1, 7), std::uint64_t{0x1B1863149F1726FAULL});
        QCOMPARE(seeds::derive(0, 0, 0), std::uint64_t{0x238275BC38FCBE91ULL});
        std::set<std::uint64_t> seen;
        for (std::uint64_t stream = 0; stream < 3; ++stream)
            for (std::uint64_t i = 0; i < 5000; ++i) seen.insert(seeds::derive(42, stream, i));
        QCOMPARE(seen.size(), std::size_t(15000));  // neighbouring indices and streams never collide here
        QVERIFY(seeds::derive(42, 1, 7) != seeds::derive(43, 1, 7));
    }

    void mixIsTheFinaliserOfSeedPlusGammaMultiples() {
        QCOMPARE(seeds::mix(7, 3), std::uint64_t{0x953AEB70673E29CBULL});
        const std::uint64_t all = ~std::uint64_t{0};
        QCOMPARE(seeds::mix(all, all), std::uint64_t{0xB4D055FCF2CBBD7BULL});  // wraps modulo 2^64
        QVERIFY(seeds::mix(7, 3) != seeds::mix(7, 4));
    }

    void keptDerivationsAreTheirFormulas() {
        QCOMPARE(seeds::proxyHoldOut(0), std::uint64_t{0x70726F7879ULL});  // the bytes of "proxy"
        QCOMPARE(seeds::proxyHoldOut(0x70726F7879ULL), std::uint64_t{0});
        QCOMPARE(seeds::trainingSubset(0), std::uint64_t{0x5DEECE66DULL});
        QCOMPARE(seeds::textModelInit(2), std::uint64_t{2000017});
        QCOMPARE(seeds::textPretraining(2), std::uint64_t{209461});
        QCOMPARE(seeds::textModelInit(~std::uint64_t{0}), std::uint64_t{0xFFFFFFFFFFF0BDC8ULL});  // modulo 2^64
        const auto words = seeds::randomSearchWords(0x0000000100000002ULL);
        QCOMPARE(words[0], 2u);
        QCOMPARE(words[1], 1u);
        QCOMPARE(words[2], 3u);
        // The seed_seq built from the words is the one random search always built.
        std::seed_seq fromWords(words.begin(), words.end()), literal{2u, 1u, 3u};
        std::mt19937_64 a(fromWords), b(literal);
        QCOMPARE(a(), b());
    }
};

QTEST_APPLESS_MAIN(TestSeedDerivation)
#include "tst_seed_derivation.moc"
