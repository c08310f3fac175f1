// The canary audit with a canary *user* (several identical max-clip images), on the user-level
// mechanism (Algorithm 2) and on the example-level one (Algorithm 1) at the same ε = 1. At user
// level the canary user is one unit, clipped once: the audit must stay below ε. At example level
// each of its images is a unit of its own, so the user moves λ by up to (images)·C and the audit
// finds more than ε — the leak a user-level label on an example-level mechanism would hide.
// Split A: 2000 examples of 250 users (8 each), k = 5, C = 40, T = 100, q = 0.1 at both levels,
// a canary user of 8 images, 1000 runs per world. Measured: user level ε_LB 0 for every seed,
// example level 1.33–2.08. Statistical: several audit seeds each, never one tuned seed.
#include "engine/audit/canary_audit.h"
#include "engine/mixmin/params.h"
#include "engine/mixmin/user_groups.h"

#include "audit_fixtures.h"

#include "tests/support/unit_test.h"

#include <cmath>

using namespace dpmix;
using namespace dpmix::audit;
using dpmix::test_support::str;

namespace {

constexpr int kN = 2000;     // examples of split A
constexpr int kPerUser = 8;  // 250 users of 8 examples
constexpr int kK = 5;
constexpr long long kCanaryImages = 8;
constexpr long long kRuns = 1000;

struct Fixture {
    testing::BinaryData data = testing::rareFindingData(kN, kK, 2027);
    mixmin::MixtureObjective splitA = testing::objectiveOf(data);
    mixmin::UserGroups users = [] {
        std::vector<long long> ids;
        for (int j = 0; j < kN; ++j) ids.push_back(j / kPerUser);
        return mixmin::makeUserGroupsFromIds(ids).value();
    }();
};

const Fixture& fixture() {
    static const Fixture f;
    return f;
}

// The same expected share of the data per step (q = 0.1) at both levels, C = 40, T = 100.
mixmin::DpMixMinParams params(bool userLevel) {
    auto b = mixmin::DpMixMinParamsBuilder().epsilon(1.0).delta(1e-5).clipNorm(40.0).stepSize(1.0).steps(100);
    if (userLevel)
        return b.expectedBatch(25)
            .maxExamplesPerUser(kPerUser)
            .build(kN / kPerUser, privacy::PrivacyUnit::User)
            .value();
    return b.expectedBatch(200).build(kN).value();
}

CanaryAuditResult runAudit(bool userLevel, std::uint64_t seed) {
    CanaryAuditOptions o;
    o.canary = CanaryKind::MaxClip;
    o.runsPerWorld = kRuns;
    o.seed = seed;
    o.canaryExamples = kCanaryImages;
    if (userLevel) o.users = fixture().users;
    return runCanaryAudit(fixture().splitA, params(userLevel), o).value();
}

}  // namespace

class TestCanaryUserAudit : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void userLevelMechanismHidesTheCanaryUser() {
        for (std::uint64_t seed : {31, 32, 33}) {
            const auto r = runAudit(true, seed);
            qInfo("user level, seed %d: eps_LB %.3f (FPR %.3f, FNR %.3f)", int(seed), r.epsilonLB, r.fpr, r.fnr);
            QVERIFY2(r.epsilonLB <= 1.0, str("seed ", seed, ": eps_LB ", r.epsilonLB).c_str());
            QVERIFY(r.unit == privacy::PrivacyUnit::User);
            QCOMPARE(r.canaryExamples, kCanaryImages);
            // The canary user was sampled about q·T = 10 times per in-run (once per step at most).
            QVERIFY(r.meanCanarySamples > 8.0 && r.meanCanarySamples < 12.0);
        }
    }

    void exampleLevelMechanismLeaksTheCanaryUser() {
        for (std::uint64_t seed : {31, 32, 33}) {
            const auto user = runAudit(true, seed);
            const auto example = runAudit(false, seed);
            qInfo("example level, seed %d: eps_LB %.3f (FPR %.3f, FNR %.3f) vs user level %.3f", int(seed),
                  example.epsilonLB, example.fpr, example.fnr, user.epsilonLB);
            QVERIFY(example.unit == privacy::PrivacyUnit::Example);
            QVERIFY2(example.epsilonLB > 1.0, str("seed ", seed, ": eps_LB ", example.epsilonLB).c_str());
            QVERIFY(example.epsilonLB > user.epsilonLB);
        }
    }

    void aUserLevelAuditNeedsUserLevelParameters() {
        CanaryAuditOptions o;
        o.users = fixture().users;
        auto r = runCanaryAudit(fixture().splitA, params(false), o);
        QVERIFY(!r.ok());
        QVERIFY2(r.error().message.find("users") != std::string::npos, r.error().message.c_str());
        o.users.reset();
        o.canaryExamples = 0;
        QVERIFY(!runCanaryAudit(fixture().splitA, params(false), o).ok());
    }
};

QTEST_APPLESS_MAIN(TestCanaryUserAudit)
#include "tst_canary_user_audit.moc"
