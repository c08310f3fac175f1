// The project's privacy budget: which stored runs count (DP releases, also cancelled or
// interrupted ones after their mechanism started), which do not (non-private baselines, audits),
// how runs on one ρ split compose (privacy::composeBudget, checked against a sequential ledger
// of the same entries), and the cap's refusal with its figures.
#include "engine/project/project_budget.h"

#include "engine/privacy/ledger.h"
#include "engine/privacy/parameters.h"
#include "project_fixture.h"

#include "tests/support/unit_test.h"

#include <cmath>

using namespace dpmix;
using namespace dpmix::project;
using dpmix::test_support::TempDir;

namespace {

privacy::LedgerEntry mixtureEntry(double sigma) {
    return privacy::gaussianEntry("mixture", "A", privacy::PrivacyUnit::Example, 0.05, sigma, 100, 1e-5, 13.0);
}

long long storeRun(ProjectFile& p, const std::string& method, std::optional<double> eps, long long seed,
                   RunStatus status, const std::vector<privacy::LedgerEntry>& entries) {
    const long long id = p.addRun({method, "ac", eps, seed, R"({"stage":"mixture","rho":0.1})"}).value();
    privacy::Ledger ledger;
    for (const auto& e : entries) ledger.record(e);
    if (!entries.empty()) (void)p.recordLedger(id, ledger).value();
    (void)p.setRunStatus(id, RunStatus::Running).value();
    if (status != RunStatus::Running) (void)p.setRunStatus(id, status).value();
    return id;
}

}  // namespace

class TestProjectBudget : public QObject {
    Q_OBJECT
    TempDir dir_;

    ProjectFile fresh(const std::string& name, std::optional<double> cap) {
        auto spec = testing::tinySpec();
        spec.privacy.budget = cap;
        return ProjectFile::create(dir_.filePath(name), spec, testing::tinyFacts()).value();
    }

private Q_SLOTS:
    void fourRunsOnOneSplitComposeByTheAccountant() {
        auto p = fresh("four.dpmix", std::nullopt);
        const double sigmas[] = {2.0, 2.0, 1.5, 1.5};
        privacy::Ledger sameData(privacy::Composition::Sequential);
        double sum = 0.0;
        for (double s : sigmas) {
            storeRun(p, "dp-mixmin", 1.0, 0, RunStatus::Done, {mixtureEntry(s)});
            sameData.record(mixtureEntry(s));
            sum += mixtureEntry(s).epsilon;
        }
        // Not counted: a non-private baseline and an audit; nothing for a run without a ledger.
        storeRun(p, "non-private-mixmin", std::nullopt, 0, RunStatus::Done,
                 {privacy::nonPrivateEntry("mixture", "A", "baseline")});
        storeRun(p, "audit", 1.0, 0, RunStatus::Done, {privacy::nonPrivateEntry("audit", "A", "audit")});
        storeRun(p, "uniform", std::nullopt, 0, RunStatus::Done, {});
        const auto b = projectBudget(p).value();
        QCOMPARE(b.total.releases, 4LL);
        QCOMPARE(b.releases.size(), std::size_t(4));
        QCOMPARE(b.uncounted.size(), std::size_t(2));
        DPMIX_COMPARE_NEAR(b.total.epsilon, sameData.total().epsilon, 1e-12);
        QVERIFY(b.total.epsilon < sum);
        QCOMPARE(b.unit, std::string("examples"));
        QVERIFY(describeBudget(b).find("4 DP release(s)") != std::string::npos);
    }

    void cancelledAndInterruptedRunsCountFailedWithoutLedgerDoNot() {
        auto p = fresh("stopped.dpmix", std::nullopt);
        storeRun(p, "dp-mixmin", 1.0, 0, RunStatus::Cancelled, {mixtureEntry(2.0)});
        storeRun(p, "dp-mixmin", 1.0, 0, RunStatus::Failed, {});
        const auto b = projectBudget(p).value();
        QCOMPARE(b.total.releases, 1LL);
        QCOMPARE(b.total.epsilon, mixtureEntry(2.0).epsilon);
    }

    void splitsOfOneSeedAreDisjointOtherSeedsAdd() {
        auto p = fresh("seeds.dpmix", std::nullopt);
        auto fine = privacy::gaussianEntry("finetune", "B", privacy::PrivacyUnit::Example, 0.01, 1.0, 100, 1e-5, 1.0);
        storeRun(p, "dp-mixmin", 1.0, 0, RunStatus::Done, {mixtureEntry(2.0), fine});
        const double oneSeed = projectBudget(p).value().total.epsilon;
        // A and B of one run are different people: at least the larger side, less than both added.
        privacy::Ledger both(privacy::Composition::Sequential);
        both.record(mixtureEntry(2.0));
        both.record(fine);
        QVERIFY(oneSeed >= std::max(mixtureEntry(2.0).epsilon, fine.epsilon) - 1e-12);
        QVERIFY(oneSeed < both.total().epsilon - 1e-6);
        storeRun(p, "dp-mixmin", 1.0, 1, RunStatus::Done, {mixtureEntry(2.0), fine});
        QVERIFY(projectBudget(p).value().total.epsilon > oneSeed * 1.2);  // seed 1 cuts the data differently
    }

    void theCapRefusesWithTheFigures() {
        auto p = fresh("cap.dpmix", 3.0);
        storeRun(p, "dp-mixmin", 1.0, 0, RunStatus::Done, {mixtureEntry(4.0)});
        const auto b = projectBudget(p).value();
        QVERIFY(b.total.epsilon < 3.0);
        const privacy::BudgetRelease small{0, "planned", privacy::rhoPartition(0, 0.1), mixtureEntry(8.0)};
        QVERIFY(!refuseOverBudget(b, {small}));
        const privacy::BudgetRelease big{0, "planned", privacy::rhoPartition(0, 0.1), mixtureEntry(0.6)};
        auto refusal = refuseOverBudget(b, {big});
        QVERIFY(refusal);
        QVERIFY2(refusal->message.find("privacy.budget = 3") != std::string::npos, refusal->message.c_str());
        QVERIFY(refusal->message.find(privacy::formatNumber(b.total.epsilon)) != std::string::npos);
        const auto f = forecastBudget(b, {big});
        QCOMPARE(f.before, b.total.epsilon);
        QVERIFY(f.after > 3.0);
    }
};

QTEST_APPLESS_MAIN(TestProjectBudget)
#include "tst_project_budget.moc"
