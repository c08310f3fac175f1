// The canary audit end to end on a synthetic split A (n = 2000, k = 5, C = 40, B = 200, T = 100,
// η = 1, δ = 1e-5; 300 runs per world). Statistical: every property is checked over several
// audit seeds, never one tuned seed. C = 40 (not the paper's 13) so that without noise the canary's
// 10 or so max-clipped steps stand well out of this small task's Poisson-sampling variation
// (measured with bench_audit: scores −1.35 ± 0.19 in vs −0.93 ± 0.06 out; at C = 13 the two
// overlap and a 300-run audit cannot show more than ε_LB ≈ 2).
#include "engine/audit/canary_audit.h"
#include "engine/mixmin/params.h"

#include "audit_fixtures.h"

#include "tests/support/unit_test.h"

#include <chrono>
#include <cmath>
#include <set>
#include <thread>

using namespace dpmix;
using namespace dpmix::audit;
using namespace dpmix::test_support;

namespace {

constexpr int kN = 2000;
constexpr int kK = 5;

struct Fixture {
    testing::BinaryData data = testing::rareFindingData(kN + 1, kK, 2026);
    mixmin::MixtureObjective splitA =
        mixmin::makeBinaryObjective(data.p.topRows(kN), std::vector<int>(data.y.begin(), data.y.begin() + kN)).value();
    // The held-out last example is the natural canary.
    mixmin::MixtureObjective heldOut = makeNaturalCanary(data.p.row(kN).transpose(), data.y[kN]).value();
};

const Fixture& fixture() {
    static const Fixture f;
    return f;
}

mixmin::DpMixMinParams params(bool noNoise) {
    auto b =
        mixmin::DpMixMinParamsBuilder().epsilon(1.0).delta(1e-5).expectedBatch(200).clipNorm(40.0).stepSize(1.0).steps(
            100);
    if (noNoise) b.noise(mixmin::NoiseMode::None);
    return b.build(kN).value();
}

CanaryAuditOptions options(CanaryKind kind, std::uint64_t seed, long long runs = 300) {
    CanaryAuditOptions o;
    o.canary = kind;
    if (kind == CanaryKind::Natural) o.naturalExample = fixture().heldOut;
    o.runsPerWorld = runs;
    o.seed = seed;
    return o;
}

}  // namespace

class TestCanaryAudit : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void noNoiseMaxClipControlDetectsLeakage() {
        for (std::uint64_t seed : {1, 2, 3, 4}) {
            const auto r = runCanaryAudit(fixture().splitA, params(true), options(CanaryKind::MaxClip, seed)).value();
            QVERIFY2(r.epsilonLB > 2.0, str("seed ", seed, ": eps_LB ", r.epsilonLB).c_str());
            QVERIFY(std::isinf(r.claimedEpsilon));
            QCOMPARE(r.sigma, 0.0);
            QVERIFY(r.noise == mixmin::NoiseMode::None);
            QCOMPARE(r.evalIn, 150LL);
            QCOMPARE(r.evalOut, 150LL);
        }
    }

    void privateAuditsStayBelowTheClaimedEpsilon() {
        for (std::uint64_t seed : {11, 12, 13}) {
            for (CanaryKind kind : {CanaryKind::MaxClip, CanaryKind::Natural}) {
                const auto r = runCanaryAudit(fixture().splitA, params(false), options(kind, seed)).value();
                QVERIFY2(r.epsilonLB <= 1.0, str(toString(kind), " seed ", seed, ": eps_LB ", r.epsilonLB).c_str());
                QCOMPARE(r.claimedEpsilon, 1.0);
                QVERIFY(r.sigma > 0.0);
                // The canary was really in: sampled about q·T = 10 times per in-run.
                QVERIFY(r.meanCanarySamples > 8.0 && r.meanCanarySamples < 12.0);
            }
        }
    }

    void selectAndEvalHalvesAreDisjoint() {
        auto o = options(CanaryKind::MaxClip, 5, 101);
        o.keepScores = true;
        const auto r = runCanaryAudit(fixture().splitA, params(true), o).value();
        std::set<long long> select(r.selectRuns.begin(), r.selectRuns.end()),
            eval(r.evalRuns.begin(), r.evalRuns.end());
        QCOMPARE(select.size() + eval.size(), std::size_t(101));
        for (long long i : select) QVERIFY(!eval.count(i));
        QCOMPARE(r.evalIn + 0, static_cast<long long>(eval.size()));
        // τ is what the SELECT runs alone give; the counts are those of the EVAL runs alone.
        auto pick = [&](const std::vector<double>& s, const std::set<long long>& idx) {
            std::vector<double> v;
            for (long long i : idx) v.push_back(s[static_cast<std::size_t>(i)]);
            return v;
        };
        const auto c = selectThreshold(pick(r.scoresIn, select), pick(r.scoresOut, select), 1e-5);
        QCOMPARE(c.threshold, r.threshold);
        QVERIFY(c.direction == r.direction);
        const auto counts = countErrors(pick(r.scoresIn, eval), pick(r.scoresOut, eval), r.threshold, r.direction);
        QCOMPARE(counts.falsePositives, r.falsePositives);
        QCOMPARE(counts.falseNegatives, r.falseNegatives);
        QCOMPARE(privacy::auditEpsilonLowerBound(counts, 1e-5).epsilonLB, r.epsilonLB);
    }

    void resultsDoNotDependOnTheThreadCount() {
        for (CanaryKind kind : {CanaryKind::MaxClip, CanaryKind::Natural}) {
            auto o = options(kind, 77, 40);
            o.keepScores = true;
            o.threads = 1;
            const auto one = runCanaryAudit(fixture().splitA, params(false), o).value();
            o.threads = 2;
            const auto two = runCanaryAudit(fixture().splitA, params(false), o).value();
            QCOMPARE(one.scoresIn, two.scoresIn);
            QCOMPARE(one.scoresOut, two.scoresOut);
            QCOMPARE(one.epsilonLB, two.epsilonLB);
            QCOMPARE(one.threshold, two.threshold);
            // Fresh noise per run: the runs differ from each other.
            QVERIFY(one.scoresOut[0] != one.scoresOut[1]);
        }
    }

    void cancelStopsQuickly() {
        // Cancelled at the audit's first progress report (not after a fixed sleep), so the
        // audit is surely running; it must then stop within seconds.
        CancellationToken token;
        std::chrono::steady_clock::time_point cancelledAt{};
        const ProgressCallback cancelOnFirstReport = [&](const ProgressEvent& e) {
            if (e.done > 0 && !token.isCancelled()) {
                cancelledAt = std::chrono::steady_clock::now();
                token.cancel();
            }
        };
        // 2 × 100,000 runs would take minutes.
        QVERIFY_THROWS_EXCEPTION(
            Cancelled, (void)runCanaryAudit(fixture().splitA, params(false), options(CanaryKind::MaxClip, 1, 100000),
                                            cancelOnFirstReport, token));
        QVERIFY(token.isCancelled());
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - cancelledAt).count();
        QVERIFY2(s < 5.0, str("took ", s, " s after the cancel").c_str());
    }

    void badOptionsNameTheField() {
        auto o = options(CanaryKind::MaxClip, 1, 1);
        auto r = runCanaryAudit(fixture().splitA, params(true), o);
        QVERIFY(!r);
        QVERIFY(contains(r.error().message, "runs-per-world"));
        o = options(CanaryKind::MaxClip, 1);
        o.selectFraction = 1.0;
        r = runCanaryAudit(fixture().splitA, params(true), o);
        QVERIFY(!r && contains(r.error().message, "select-fraction"));
        o = options(CanaryKind::Natural, 1);
        o.naturalExample.reset();
        r = runCanaryAudit(fixture().splitA, params(true), o);
        QVERIFY(!r && contains(r.error().message, "natural-canary"));
        const auto wrongN = mixmin::DpMixMinParamsBuilder()
                                .epsilon(1.0)
                                .delta(1e-5)
                                .expectedBatch(200)
                                .clipNorm(40.0)
                                .stepSize(1.0)
                                .steps(100)
                                .build(kN + 1)
                                .value();
        r = runCanaryAudit(fixture().splitA, wrongN, options(CanaryKind::MaxClip, 1));
        QVERIFY(!r && contains(r.error().message, "2001"));
    }
};

QTEST_APPLESS_MAIN(TestCanaryAudit)
#include "tst_canary_audit.moc"
