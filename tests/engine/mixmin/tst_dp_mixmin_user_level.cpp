// DP-MixMin Algorithm 2 (user level): the per-user cap G_ULS, sampling without replacement,
// convergence to the user-weighted λ* without noise, and the user-level ledger entry.
#include "engine/mixmin/dp_mixmin.h"
#include "engine/mixmin/nonprivate_mixmin.h"
#include "synthetic_proxies.h"
#include "tests/support/unit_test.h"

#include <map>
#include <set>

using namespace dpmix::mixmin;
namespace privacy = dpmix::privacy;
using namespace dpmix::test_support;

namespace {

// 40 users with 1..40 examples each (820 examples), user u owning a contiguous block.
std::vector<std::vector<Index>> blocks(int users) {
    std::vector<std::vector<Index>> out;
    Index next = 0;
    for (int u = 0; u < users; ++u) {
        out.emplace_back();
        for (int e = 0; e <= u; ++e) out.back().push_back(next++);
    }
    return out;
}

}  // namespace

class TestDpMixminUserLevel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void respectsThePerUserCap() {
        const auto groups = blocks(40);
        const auto users = makeUserGroups(groups, 820).value();
        const auto d = testing::randomBinaryData(820, 3, 6);
        const auto o = makeBinaryObjective(d.p, d.y).value();
        const long long G = 15;
        const auto p = DpMixMinParamsBuilder::languageDefaults(true)
                           .epsilon(2)
                           .expectedBatch(20)
                           .steps(60)
                           .maxExamplesPerUser(G)
                           .build(40, privacy::PrivacyUnit::User)
                           .value();
        long long calls = 0;
        bool allOk = true;
        std::map<Index, std::set<Index>> seen;  // examples of user 39 used over the run
        UserStepObserver observer{[&](long long, Index u, std::span<const Index> used) {
            ++calls;
            const auto& own = groups[static_cast<std::size_t>(u)];
            const std::set<Index> distinct(used.begin(), used.end());
            const std::size_t expected = std::min<std::size_t>(own.size(), static_cast<std::size_t>(G));
            if (used.size() != expected || distinct.size() != used.size()) allOk = false;
            for (Index j : used)
                if (std::find(own.begin(), own.end(), j) == own.end()) allOk = false;  // another user's example
            seen[u].insert(used.begin(), used.end());
        }};
        const auto r = runUserLevelDpMixMin(o, users, p, nullptr, {}, {}, &observer);
        QVERIFY(r.ok());
        QVERIFY(allOk);
        // About q·m·T = 0.5·40·60 = 1200 user visits; far from 0, far below "every user every step".
        QVERIFY(calls > 900 && calls < 1500);
        // Users above the cap see different subsets across steps (sampling, not a fixed prefix).
        QCOMPARE(seen[39].size(), std::size_t(40));
    }

    void withoutNoiseConvergesToTheUserWeightedOptimum() {
        const auto groups = blocks(12);  // 78 examples
        const auto users = makeUserGroups(groups, 78).value();
        const auto d = testing::randomBinaryData(78, 3, 9);
        const auto o = makeBinaryObjective(d.p, d.y).value();
        const auto star = solveNonPrivateMixMin(o, {.gapTolerance = 1e-10}, users.userMeanWeights()).value();
        DpMixMinParamsBuilder b;
        b.epsilon(1)
            .delta(1e-5)
            .samplingRate(1.0)
            .clipNorm(1e9)
            .stepSize(1.0)
            .steps(3000)
            .maxExamplesPerUser(100)
            .noise(NoiseMode::None);
        const auto r = runUserLevelDpMixMin(o, users, b.build(12, privacy::PrivacyUnit::User).value()).value();
        QVERIFY2((r.lambdaLast - star.lambda).cwiseAbs().maxCoeff() < 1e-4,
                 str("max error ", (r.lambdaLast - star.lambda).cwiseAbs().maxCoeff()).c_str());
        // ... which is not the example-weighted optimum (the weighting matters here).
        const auto byExample = solveNonPrivateMixMin(o).value();
        QVERIFY((byExample.lambda - star.lambda).cwiseAbs().maxCoeff() > 1e-3);
    }

    void ledgerEntryIsPerUser() {
        const auto users = makeUserGroups(blocks(10), 55).value();
        const auto d = testing::randomBinaryData(55, 3, 2);
        const auto o = makeBinaryObjective(d.p, d.y).value();
        const auto p = DpMixMinParamsBuilder::languageDefaults(true)
                           .epsilon(1)
                           .expectedBatch(4)
                           .maxExamplesPerUser(5)
                           .build(10, privacy::PrivacyUnit::User)
                           .value();
        privacy::Ledger ledger;
        const auto r = runUserLevelDpMixMin(o, users, p, &ledger).value();
        const auto& e = ledger.entries().at(0);
        QVERIFY(e.unit == privacy::PrivacyUnit::User);
        QCOMPARE(e.q, 0.4);
        QVERIFY(e.epsilon <= 1.0 && e.epsilon > 1.0 - 1e-6);
        QVERIFY(ledger.verify().ok);
    }

    void mismatchesAreRefused() {
        const auto users = makeUserGroups(blocks(10), 55).value();
        const auto d = testing::randomBinaryData(55, 3, 2);
        const auto o = makeBinaryObjective(d.p, d.y).value();
        const auto exampleLevel =
            DpMixMinParamsBuilder::imagingDefaults().epsilon(1).expectedBatch(5).build(55).value();
        QVERIFY(contains(runUserLevelDpMixMin(o, users, exampleLevel).error().message,
                         "parameters were built for example-level"));
        QVERIFY(contains(makeUserGroups({{0, 1}, {1}}, 3).error().message, "example 1 belongs to user 0 and user 1"));
        QVERIFY(contains(makeUserGroups({{0, 7}}, 3).error().message, "lists example 7"));
        QVERIFY(contains(makeUserGroups({{0}, {}}, 3).error().message, "user 1 has no examples"));
        const auto fromIds = makeUserGroupsFromIds({5, 9, 5, 2}).value();
        QCOMPARE(fromIds.users(), Index(3));
        QCOMPARE(fromIds.examplesOf(0), (std::vector<Index>{0, 2}));
    }
};

QTEST_APPLESS_MAIN(TestDpMixminUserLevel)
#include "tst_dp_mixmin_user_level.moc"
