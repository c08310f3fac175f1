// The cluster job kinds' table (engine/executor/cluster_job_kind.h): every kind's stored
// spelling (job.json's "kind", the start of a job id) round-trips and is the one job folders were
// written with, an unknown one is refused with the accepted ones, and the kinds a merge stores as
// one run are the audit, the k-scaling and the AdaMix-R experiment (docs/CLUSTER.md).
#include "engine/executor/cluster_job_kind.h"

#include "tests/support/kind_table_checks.h"
#include "tests/support/unit_test.h"

#include <set>

using namespace dpmix;
using executor::cluster::JobKind;

class TestClusterJobKind : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyKindRoundTrips() {
        std::set<std::string> names;
        testing::checkSpellingsRoundTrip(
            executor::cluster::allJobKinds(), &executor::cluster::JobKindTraits::kind,
            [](auto k) { return executor::cluster::nameOf(k); },
            [](const std::string& n) { return executor::cluster::parseJobKind(n); }, names);
        QVERIFY(names == (std::set<std::string>{"audit", "run", "sweep", "kscaling", "adamix"}));
    }

    void theStoredSpellingsAndTheMergeRules() {
        const std::vector<std::tuple<JobKind, std::string, bool>> expected = {{JobKind::Audit, "audit", true},
                                                                              {JobKind::Run, "run", false},
                                                                              {JobKind::Sweep, "sweep", false},
                                                                              {JobKind::KScaling, "kscaling", true},
                                                                              {JobKind::Adamix, "adamix", true}};
        for (const auto& [kind, name, oneRun] : expected) {
            QCOMPARE(executor::cluster::nameOf(kind), name);
            QCOMPARE(executor::cluster::isStoredAsOneRun(kind), oneRun);
        }
        QCOMPARE(std::string(executor::cluster::traitsOf(JobKind::Run).units), std::string("seed(s)"));
        QCOMPARE(std::string(executor::cluster::traitsOf(JobKind::Sweep).units), std::string("sweep point(s)"));
    }

    void anUnknownKindIsRefused() {
        for (const std::string name : {"psg", "", "Run", "k-scaling"}) {
            const auto parsed = executor::cluster::parseJobKind(name);
            QVERIFY2(!parsed, name.c_str());
            QCOMPARE(parsed.error().message,
                     "job kind '" + name + "' is not one of audit, run, sweep, kscaling or adamix");
        }
    }
};

QTEST_APPLESS_MAIN(TestClusterJobKind)
#include "tst_cluster_job_kind.moc"
