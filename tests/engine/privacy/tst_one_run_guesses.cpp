// The one-run audit's guess rule on hand-made scores (top k+ in, bottom k- out, ties by index),
// the count of correct guesses, and the inclusion coins (seeded: reproducible and fair).
#include "engine/privacy/one_run_guesses.h"

#include "tests/support/unit_test.h"

#include <limits>
#include <stdexcept>

using namespace dpmix::privacy;
using G = MembershipGuess;

class TestOneRunGuesses : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void topInBottomOutRestAbstain() {
        const std::vector<double> scores{0.3, -2.0, 5.0, 1.0, -0.5, 4.0};
        const auto g = guessMembership(scores, 2, 1);
        const std::vector<G> expected{G::Abstain, G::Out, G::In, G::Abstain, G::Abstain, G::In};
        QVERIFY(g.guess == expected);
        QCOMPARE(g.in, 2LL);
        QCOMPARE(g.out, 1LL);
        QCOMPARE(g.made(), 3LL);
    }

    void tiesGoByIndex() {
        // Order: index 0, 1, 2, 3 (all 1.0) then 4 (0.0). In: 0, 1. Out: the last two, 3 and 4.
        const std::vector<double> scores{1.0, 1.0, 1.0, 1.0, 0.0};
        const auto g = guessMembership(scores, 2, 2);
        const std::vector<G> expected{G::In, G::In, G::Abstain, G::Out, G::Out};
        QVERIFY(g.guess == expected);
        const double inf = std::numeric_limits<double>::infinity();
        const auto h = guessMembership(std::vector<double>{-inf, inf, 0.0}, 1, 1);  // infinite losses order too
        QVERIFY((h.guess == std::vector<G>{G::Out, G::In, G::Abstain}));
    }

    void everyCanaryCanBeGuessed() {
        const auto g = guessMembership(std::vector<double>{2.0, 1.0, 3.0}, 1, 2);
        QVERIFY((g.guess == std::vector<G>{G::Out, G::Out, G::In}));
        const auto none = guessMembership(std::vector<double>{2.0, 1.0}, 0, 0);
        QVERIFY((none.guess == std::vector<G>{G::Abstain, G::Abstain}));
    }

    void countsCorrectGuesses() {
        const std::vector<double> scores{0.3, -2.0, 5.0, 1.0, -0.5, 4.0};
        const auto g = guessMembership(scores, 2, 2);  // in: 2, 5; out: 1, 4
        const std::vector<std::uint8_t> included{1, 0, 1, 1, 1, 0};
        // 2 in (right), 5 in (wrong), 1 out (right), 4 out (wrong); 0 and 3 abstain.
        QCOMPARE(countCorrectGuesses(g, included), 2LL);
        const std::vector<std::uint8_t> allOut(6, 0);
        QCOMPARE(countCorrectGuesses(g, allOut), 2LL);
    }

    void badArgumentsThrow() {
        const std::vector<double> scores{1.0, 2.0, 3.0};
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, guessMembership(scores, 2, 2));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, guessMembership(scores, -1, 0));
        const std::vector<double> nan{1.0, std::numeric_limits<double>::quiet_NaN()};
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, guessMembership(nan, 1, 0));
        const std::vector<std::uint8_t> two{1, 0};
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, countCorrectGuesses(guessMembership(scores, 1, 1), two));
    }

    void inclusionIsSeededAndFair() {
        const auto source = RandomnessSource::seeded(7, "one-run-test");
        MechanismRng a(source, "inclusion"), b(source, "inclusion"), other(source, "other");
        const auto x = drawInclusion(20000, a), y = drawInclusion(20000, b), z = drawInclusion(20000, other);
        QVERIFY(x == y);
        QVERIFY(x != z);
        long long ones = 0;
        for (auto bit : x) {
            QVERIFY(bit == 0 || bit == 1);
            ones += bit;
        }
        // Binomial(20000, 1/2): standard deviation 70.7; 5 of them is 354.
        QVERIFY2(std::abs(ones - 10000) < 354, dpmix::test_support::str(ones, " of 20000").c_str());
        QVERIFY(drawInclusion(0, a).empty());
    }
};

QTEST_APPLESS_MAIN(TestOneRunGuesses)
#include "tst_one_run_guesses.moc"
