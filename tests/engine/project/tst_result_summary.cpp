// The results table: macro over tasks within a seed, then mean ± sample std over seeds, with
// hand-computed expectations; and which stored runs feed it.
#include "engine/project/result_summary.h"

#include "project_fixture.h"

#include "tests/support/unit_test.h"

#include <cmath>

using namespace dpmix;
using namespace dpmix::project;
using dpmix::test_support::TempDir;

class TestResultSummary : public QObject {
    Q_OBJECT
    TempDir dir_;

private Q_SLOTS:
    void macroThenAcrossSeedsByHand() {
        // dp-mixmin ε 1: seed 0 tasks (0.90, 0.80) → 0.85; seed 1 (0.70, 0.80) → 0.75;
        //   mean 0.80, sample std |0.85 − 0.75|/√2 = 0.070711.
        // uniform ε 1, seed 0 only: 0.60 (a re-run 0.70 of the same task averages to 0.65) → 0.65, std 0.
        // dp-mixmin ε 0.5 sorts first.
        std::vector<ResultObservation> obs{
            {"dp-mixmin", "a", 0, 1.0, 0.90, 1}, {"dp-mixmin", "b", 0, 1.0, 0.80, 2},
            {"uniform", "a", 0, 1.0, 0.60, 3},   {"uniform", "a", 0, 1.0, 0.70, 4},
            {"dp-mixmin", "a", 1, 1.0, 0.70, 5}, {"dp-mixmin", "b", 1, 1.0, 0.80, 6},
            {"dp-mixmin", "a", 0, 0.5, 0.50, 7},
        };
        const auto rows = summarizeResults(obs);
        QCOMPARE(rows.size(), std::size_t(3));
        QCOMPARE(rows[0].epsilon, 0.5);
        QCOMPARE(rows[0].method, std::string("dp-mixmin"));
        QCOMPARE(rows[1].method, std::string("dp-mixmin"));
        DPMIX_COMPARE_NEAR(rows[1].mean, 0.80, 1e-12);
        DPMIX_COMPARE_NEAR(rows[1].std, 0.1 / std::sqrt(2.0), 1e-12);
        QCOMPARE(rows[1].seeds, 2);
        QCOMPARE(rows[1].tasks, 2);
        QCOMPARE(rows[1].fewestTasksInASeed, 2);
        QCOMPARE(rows[0].fewestTasksInASeed, 1);
        QCOMPARE(rows[2].method, std::string("uniform"));
        DPMIX_COMPARE_NEAR(rows[2].mean, 0.65, 1e-12);
        QCOMPARE(rows[2].std, 0.0);
        QCOMPARE(rows[2].seeds, 1);
        QVERIFY(summarizeResults({}).empty());
        // A seed that lacks a task is flagged: seed 1 has task a only.
        const auto partial =
            summarizeResults({{"m", "a", 0, 1.0, 0.5, 1}, {"m", "b", 0, 1.0, 0.7, 2}, {"m", "a", 1, 1.0, 0.9, 3}});
        QCOMPARE(partial[0].tasks, 2);
        QCOMPARE(partial[0].fewestTasksInASeed, 1);
        DPMIX_COMPARE_NEAR(partial[0].mean, (0.6 + 0.9) / 2, 1e-12);
    }

    void storedResultsTakeFinishedRunsWithTheMetric() {
        QVERIFY(dir_.isValid());
        auto created = ProjectFile::create(dir_.filePath("r.dpmix"), testing::tinySpec(), testing::tinyFacts());
        QVERIFY(created);
        ProjectFile project = std::move(created).value();
        ProjectFile* p = &project;
        auto addRun = [&](const std::string& method, std::optional<double> eps, RunStatus status, double auc) {
            auto id = p->addRun({method, "ac", eps, 3, "{}"});
            QVERIFY(id);
            QVERIFY(p->addMetrics({{*id, "test-auc", "ac", auc}, {*id, "finetune-noise", "", 9.0}}));
            if (status != RunStatus::Queued) {
                QVERIFY(p->setRunStatus(*id, RunStatus::Running));
                QVERIFY(p->setRunStatus(*id, status));
            }
        };
        addRun("dp-mixmin", 1.0, RunStatus::Done, 0.91);
        addRun("uniform", 1.0, RunStatus::Failed, 0.50);         // not finished: left out
        addRun("uniform", std::nullopt, RunStatus::Done, 0.50);  // no ε (a mixture-only run): left out
        addRun("random-init", 2.0, RunStatus::Done, 0.88);
        auto obs = storedResults(project, "test-auc");
        QVERIFY(obs);
        QCOMPARE(obs->size(), std::size_t(2));
        QCOMPARE((*obs)[0].method, std::string("dp-mixmin"));
        QCOMPARE((*obs)[0].value, 0.91);
        QCOMPARE((*obs)[0].seed, 3LL);
        QCOMPARE((*obs)[1].epsilon, 2.0);
        auto none = storedResults(project, "test-perplexity");
        QVERIFY(none && none->empty());
    }
};

QTEST_APPLESS_MAIN(TestResultSummary)
#include "tst_result_summary.moc"
