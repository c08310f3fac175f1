// Run comparison: the keys whose values differ between the selected runs (identity and the
// stored configuration JSON) are flagged and shown bold, the rest can be hidden; metrics are
// lined up per run (NaN where missing) with the difference to the pinned baseline, which is
// stored per project and put first; curves of every run are overlaid.
#include "app/workbench/project/pinned_baseline.h"
#include "app/workbench/views/run_comparison.h"
#include "app/workbench/views/run_comparison_view.h"
#include "tests/app/workbench/isolated_settings.h"
#include "widgets/bar_chart_widget.h"
#include "widgets/line_chart_widget.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QRegularExpression>
#include <QSettings>
#include <QStandardPaths>
#include <QTableWidget>
#include <QtTest>

#include <cmath>

using namespace dpmix::workbench;

namespace {
RunResults run(long long id, const std::string& method, std::optional<double> epsilon, long long seed,
               const std::string& config, std::vector<dpmix::project::MetricRecord> metrics) {
    RunResults r;
    r.run.id = id;
    r.run.method = method;
    r.run.task = "ac";
    r.run.epsilon = epsilon;
    r.run.seed = seed;
    r.run.configJson = config;
    r.run.status = dpmix::project::RunStatus::Done;
    for (auto& m : metrics) m.runId = id;
    r.metrics = std::move(metrics);
    return r;
}

/// Two DP-MixMin runs that differ in ε and clip only, and a Uniform run; only run 1 has curves.
ProjectSnapshot project(const QString& path) {
    ProjectSnapshot p;
    p.path = path;
    p.runs.push_back(run(1, "dp-mixmin", 1.0, 0, R"({"stage":"mixture","rho":0.1,"clip":13.0,"steps":100})",
                         {{0, "cosine-to-lambda-star", "", 0.9}, {0, "auc", "c", 0.7}}));
    p.runs.push_back(run(2, "dp-mixmin", 2.0, 0, R"({"stage":"mixture","rho":0.1,"clip":5.0,"steps":100})",
                         {{0, "cosine-to-lambda-star", "", 0.95}}));
    p.runs.push_back(run(3, "uniform", std::nullopt, 0, R"({"stage":"mixture","rho":0.1})",
                         {{0, "cosine-to-lambda-star", "", 0.5}}));
    p.runs[0].curves["lambda/ab"] = {{0, 0.5}, {1, 0.6}, {2, 0.7}};
    return p;
}

const ComparedParameter* parameter(const RunComparison& c, const QString& key) {
    for (const auto& p : c.parameters)
        if (p.key == key) return &p;
    return nullptr;
}
}  // namespace

class TstRunComparison : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { dpmix::workbench::test::isolateSettings("tst_run_comparison"); }

    void onlyTheDifferingKeysAreFlagged() {
        const auto c = compareRuns(project("/tmp/a.dpmix"), {1, 2});
        QVERIFY(c);
        QCOMPARE(c->differingKeys(), QStringList({"epsilon", "config.clip"}));
        QCOMPARE(parameter(*c, "config.clip")->values, QStringList({"13", "5"}));
        QCOMPARE(parameter(*c, "config.rho")->values, QStringList({"0.1", "0.1"}));
        QVERIFY(!parameter(*c, "method")->differs);
        QVERIFY(!c->baseline);
    }

    void aMissingKeyCountsAsADifference() {
        const auto c = compareRuns(project("/tmp/a.dpmix"), {1, 3});
        QVERIFY(c);
        QCOMPARE(parameter(*c, "config.clip")->values, QStringList({"13", "—"}));
        QVERIFY(parameter(*c, "config.clip")->differs);
        QCOMPARE(parameter(*c, "epsilon")->values, QStringList({"1", "none (not private)"}));
        QVERIFY(parameter(*c, "method")->differs);
        QVERIFY(!parameter(*c, "config.stage")->differs);
    }

    void metricsLineUpPerRun() {
        const auto c = compareRuns(project("/tmp/a.dpmix"), {1, 2});
        QCOMPARE(c->metrics.size(), std::size_t(2));
        QCOMPARE(c->metrics[0].name, QString("cosine-to-lambda-star"));
        QCOMPARE(c->metrics[0].values, std::vector<double>({0.9, 0.95}));
        QCOMPARE(c->metrics[1].name, QString("auc (class c)"));
        QCOMPARE(c->metrics[1].values[0], 0.7);
        QVERIFY(std::isnan(c->metrics[1].values[1]));
        QCOMPARE(c->curveNames, QStringList({"lambda/ab"}));
    }

    void badSelectionsAreExplained() {
        const auto one = compareRuns(project("/tmp/a.dpmix"), {1});
        QVERIFY(!one && one.error().message.find("two runs or more") != std::string::npos);
        const auto unknown = compareRuns(project("/tmp/a.dpmix"), {1, 42});
        QVERIFY(!unknown && unknown.error().message.find("no run 42") != std::string::npos);
    }

    void thePinnedBaselineIsPerProjectAndComesFirst() {
        const ProjectSnapshot a = project("/tmp/a.dpmix");
        const ProjectSnapshot b = project("/tmp/b.dpmix");
        QVERIFY(!a.pinnedBaselineRunId());
        setPinnedBaselineRunId(a.path, 2);
        QCOMPARE(a.pinnedBaselineRunId(), std::optional<long long>(2));
        QVERIFY(!b.pinnedBaselineRunId());  // another project is not affected
        setPinnedBaselineRunId(b.path, 99);
        QVERIFY(!b.pinnedBaselineRunId());  // a pin to a run the project lacks is ignored
        const auto c = compareRuns(a, {1, 3, 2});
        QCOMPARE(c->runIds, std::vector<long long>({2, 1, 3}));
        QCOMPARE(c->baseline, std::optional<long long>(2));
        QVERIFY(c->runLabels[0].startsWith("#2 "));
        clearPinnedBaseline(a.path);
        QVERIFY(!a.pinnedBaselineRunId());
    }

    void viewShowsDifferencesBoldAndDeltasToTheBaseline() {
        const ProjectSnapshot a = project("/tmp/view.dpmix");
        setPinnedBaselineRunId(a.path, 2);
        RunComparisonView view(a, compareRuns(a, {1, 2}).value());
        QTableWidget* t = view.parameterTable();
        QCOMPARE(t->columnCount(), 2);
        QVERIFY(t->horizontalHeaderItem(0)->text().startsWith("#2 "));
        for (int r = 0; r < t->rowCount(); ++r) {
            const QString key = view.comparison().parameters[r].key;
            const bool differs = key == "epsilon" || key == "config.clip";
            QCOMPARE(t->item(r, 0)->font().bold(), differs);
            QCOMPARE(t->verticalHeaderItem(r)->text().endsWith("≠"), differs);
        }
        view.differencesOnlyBox()->setChecked(true);
        int shown = 0;
        for (int r = 0; r < t->rowCount(); ++r) shown += t->isRowHidden(r) ? 0 : 1;
        QCOMPARE(shown, 2);
        // Cosine: baseline (run 2) 0.95, run 1 0.9 → Δ −0.05.
        QTableWidget* m = view.metricTable();
        QCOMPARE(m->item(0, 0)->text(), QString("0.95"));
        QCOMPARE(m->item(0, 1)->text(), QString("0.9 (Δ -0.05)"));
        QCOMPARE(m->item(1, 1)->text(), QString("0.7"));  // no baseline value for this metric
        // One metric at a time, each on its own axis: bars per run (categories = the runs).
        QCOMPARE(view.metricSelector()->count(), 2);
        QCOMPARE(view.metricChart()->data().series.size(), 1);
        QCOMPARE(view.metricChart()->data().categories, view.comparison().runLabels);
        QCOMPARE(view.metricChart()->data().series[0].values, QVector<double>({0.95, 0.9}));
        view.metricSelector()->setCurrentIndex(1);
        QCOMPARE(view.metricChart()->data().series[0].name, view.comparison().metrics[1].name);
        // Each run is labelled once ("#2 DP-MixMin …", never "#2 #2 …"), and the selectors' labels
        // are mnemonics, not literal ampersands.
        for (const QString& label : view.comparison().runLabels)
            QVERIFY2(!label.contains(QRegularExpression("^#\\d+ #\\d+")), qPrintable(label));
        for (QLabel* label : view.findChildren<QLabel*>())
            if (label->text().contains('&')) QVERIFY2(label->buddy(), qPrintable(label->text()));
        QCOMPARE(view.curveSelector()->currentText(), QString("lambda/ab"));
        QCOMPARE(view.curveChart()->series().size(), 1);  // only run 1 stored this curve
        QCOMPARE(view.curveChart()->series()[0].mean, QVector<double>({0.5, 0.6, 0.7}));
        // Export CSV is tidy: the runs' identity as columns, not their labels as headers.
        const auto bars = view.metricChart()->plottedTable();
        QCOMPARE(bars.columns, (QStringList{"task", "epsilon", "method", "run", "seed", "metric", "value"}));
        QCOMPARE(bars.rows.size(), 1);  // run 2 has no such metric: no bar, no row
        QCOMPARE(bars.rows[0],
                 (QStringList{"ac", "1", "dp-mixmin", "1", "0", view.comparison().metrics[1].name, "0.7"}));
        const auto curve = view.curveChart()->plottedTable();
        QCOMPARE(curve.columns, (QStringList{"task", "epsilon", "method", "run", "seed", "step", "metric", "value"}));
        QCOMPARE(curve.rows[2], (QStringList{"ac", "1", "dp-mixmin", "1", "0", "2", "lambda/ab", "0.7"}));
        clearPinnedBaseline(a.path);
    }
};

QTEST_MAIN(TstRunComparison)
#include "tst_run_comparison.moc"
