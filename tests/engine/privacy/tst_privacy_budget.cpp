// The dataset's privacy budget: releases composed by the RDP accountant, checked against values
// computed independently — the Gaussian's closed-form RDP α/(2σ²) (k releases at σ are one
// release at σ/√k), the conversion minimised on a fine grid of orders in this test, and the
// parallel-composition rule (disjoint sides cost their maximum, not their sum).
#include "engine/privacy/ledger.h"
#include "engine/privacy/privacy_budget.h"

#include "tests/support/unit_test.h"

#include <cmath>
#include <limits>

using namespace dpmix::privacy;
using dpmix::test_support::str;

namespace {

LedgerEntry gaussian(const std::string& split, double sigma, double q = 1.0, long long steps = 1) {
    return gaussianEntry("mixture", split, PrivacyUnit::Example, q, sigma, steps, 1e-5, 1.0);
}

BudgetRelease release(const std::string& partition, LedgerEntry e, long long run = 1) {
    return {run, "test", partition, std::move(e)};
}

// ε of the Gaussian mechanism (q = 1, T = 1) at δ by the Balle et al. conversion,
// ε = min_α α/(2σ²) + log((α−1)/α) − (log δ + log α)/(α−1), minimised over α in (1, 1000] on a
// grid of step 1e-3 — independent of the library's order grid.
double continuousGaussianEpsilon(double sigma, double delta) {
    double best = std::numeric_limits<double>::infinity();
    for (double a = 1.001; a <= 1000.0; a += 1e-3)
        best =
            std::min(best, a / (2 * sigma * sigma) + std::log((a - 1) / a) - (std::log(delta) + std::log(a)) / (a - 1));
    return best;
}

}  // namespace

class TestPrivacyBudget : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void noReleaseSpendsNothing() {
        const auto b = composeBudget({});
        QCOMPARE(b.epsilon, 0.0);
        QCOMPARE(b.releases, 0LL);
    }

    void oneReleaseCostsItsOwnEpsilon() {
        const auto e = gaussian("A", 3.0, 0.01, 500);
        const auto b = composeBudget({release(rhoPartition(0, 0.3), e)});
        QCOMPARE(b.epsilon, recomputeEpsilon(e));
        QCOMPARE(b.releases, 1LL);
    }

    void prvReleasesComposeByPrvForTheWorstPlacedPerson() {
        // Full-batch Gaussians compose exactly as one Gaussian with μ² = Σ 1/σ² (Balle & Wang's
        // closed form is checked in tst_prv_accountant). Two ρ splits, each with an A side (σ = 4)
        // and a B side (σ = 3), plus one whole-set release (σ = 6): the worst-placed person is on
        // both B sides and pays 1/9 + 1/9 + 1/36.
        auto prv = [](const std::string& split, double sigma) {
            return gaussianEntry("m", split, PrivacyUnit::Example, 1.0, sigma, 1, 1e-5, 1.0, Accountant::Prv);
        };
        const std::vector<BudgetRelease> releases{
            release(rhoPartition(0, 0.3), prv("A", 4.0), 1), release(rhoPartition(0, 0.3), prv("B", 3.0), 2),
            release(rhoPartition(1, 0.3), prv("A", 4.0), 3), release(rhoPartition(1, 0.3), prv("B", 3.0), 4),
            release("", prv("train", 6.0), 5)};
        const auto b = composeBudget(releases);
        const double mu = std::sqrt(1.0 / 9 + 1.0 / 9 + 1.0 / 36);
        auto phi = [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); };
        double lo = 0, hi = 100;  // Balle & Wang: δ(ε) = Φ(μ/2 − ε/μ) − e^ε·Φ(−μ/2 − ε/μ)
        for (int i = 0; i < 200; ++i) {
            const double e = 0.5 * (lo + hi);
            (phi(mu / 2 - e / mu) - std::exp(e) * phi(-mu / 2 - e / mu) > 1e-5 ? lo : hi) = e;
        }
        QVERIFY2(hi <= b.epsilon && b.epsilon <= hi + 0.011, str(b.epsilon, " vs exact ", hi).c_str());
        // Tighter than the same releases certified by RDP.
        std::vector<BudgetRelease> rdp = releases;
        for (auto& r : rdp) r.entry.accounting = Accountant::Rdp;
        QVERIFY(composeBudget(rdp).epsilon > b.epsilon);
    }

    void releasesOnOneSplitComposeByRdpNotBySum() {
        // Four Gaussian releases (q = 1) at σ = 4 on split A = one at σ = 2 (RDP α/(2σ²) adds).
        std::vector<BudgetRelease> four;
        for (int i = 0; i < 4; ++i) four.push_back(release(rhoPartition(0, 0.3), gaussian("A", 4.0), i + 1));
        const auto b = composeBudget(four);
        DPMIX_COMPARE_NEAR(b.epsilon, recomputeEpsilon(gaussian("A", 2.0)), 1e-12);
        const double closedForm = continuousGaussianEpsilon(2.0, 1e-5);
        QVERIFY2(b.epsilon >= closedForm - 1e-9 && b.epsilon <= closedForm * 1.02,
                 str(b.epsilon, " vs ", closedForm).c_str());
        const double single = recomputeEpsilon(gaussian("A", 4.0));
        QVERIFY(b.epsilon < 4 * single);  // better than adding the ε's
        QVERIFY(b.epsilon > single);
        QCOMPARE(b.groups.size(), std::size_t(1));
        QCOMPARE(b.groups[0].releases, 4LL);
    }

    void disjointSidesCostTheirMaximum() {
        // A (σ = 1) and B (σ = 2) of one ρ split: a person is on one side; A dominates at every order.
        const auto p = rhoPartition(0, 0.3);
        const auto b = composeBudget({release(p, gaussian("A", 1.0)), release(p, gaussian("B", 2.0))});
        QCOMPARE(b.epsilon, recomputeEpsilon(gaussian("A", 1.0)));
        QCOMPARE(b.groups.size(), std::size_t(2));
    }

    void differentRhoSplitsAndTheWholeSetAdd() {
        // A of seed 0 and A of seed 1 overlap (other cuts of the data), and "train" is everyone:
        // three releases at σ = √3·2 compose like one at σ = 2.
        const double s = 2.0 * std::sqrt(3.0);
        const auto b =
            composeBudget({release(rhoPartition(0, 0.3), gaussian("A", s)),
                           release(rhoPartition(1, 0.3), gaussian("A", s)), release("", gaussian("train", s))});
        DPMIX_COMPARE_NEAR(b.epsilon, recomputeEpsilon(gaussian("A", 2.0)), 1e-9);
        // Without a known ρ split, A and B are not known to be disjoint: they add (conservative).
        const auto unknown = composeBudget({release("", gaussian("A", s)), release("", gaussian("B", s))});
        QVERIFY(unknown.epsilon > recomputeEpsilon(gaussian("A", s)) * 1.1);
    }

    void aNonPrivateEntryMakesTheTotalInfinite() {
        const auto b = composeBudget({release("", gaussian("A", 2.0)), release("", nonPrivateEntry("x", "A", "why"))});
        QVERIFY(std::isinf(b.epsilon));
    }

    void seededAndClaimedReleasesAreFlagged() {
        auto seeded = gaussian("A", 2.0);
        setRandomness(seeded, RandomnessMode::Seeded);
        const auto dirichlet = dirichletEntry("finetune", "B", 3.0, 1.0, 0.01, 100, 1e-5);
        const auto b = composeBudget({release(rhoPartition(0, 0.3), seeded), release(rhoPartition(0, 0.3), dirichlet)});
        QVERIFY(b.seeded);
        QVERIFY(!b.established);
        // Mixed with a Dirichlet entry, integer orders are used: the Gaussian side alone at those
        // orders can only be larger or equal to its value on the finer default grid.
        QVERIFY(b.epsilon >= recomputeEpsilon(dirichlet) - 1e-12);
    }
};

QTEST_APPLESS_MAIN(TestPrivacyBudget)
#include "tst_privacy_budget.moc"
