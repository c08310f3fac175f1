// The Run details tab: the configuration as key/value rows (nested keys dotted, stored order),
// the ledger of a DP-MixMin run with its ε, δ, accountant and mechanism parameters, a
// non-private entry as ∞ with its reason, a run without a ledger saying so, λ, metrics, curves
// and stored models (names and sizes), a failed run's message, and the empty state.
#include "app/workbench/views/run_details.h"
#include "app/workbench/views/run_details_view.h"
#include "tests/app/workbench/generated_project.h"

#include <QLabel>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

using namespace dpmix;
using namespace dpmix::workbench;

namespace {

QStringList column(const QTableWidget* table, int c) {
    QStringList out;
    for (int r = 0; r < table->rowCount(); ++r) out << (table->item(r, c) ? table->item(r, c)->text() : QString());
    return out;
}

QString cell(const QTableWidget* table, int r, int c) {
    return table->item(r, c) ? table->item(r, c)->text() : QString();
}

QStringList headers(const QTableWidget* table) {
    QStringList out;
    for (int c = 0; c < table->columnCount(); ++c) out << table->horizontalHeaderItem(c)->text();
    return out;
}

}  // namespace

class TstRunDetails : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    testing::GeneratedProject generated_;
    ProjectSnapshot project_;
    long long configuredRun_ = 0, failedRun_ = 0, unledgeredDpRun_ = 0;

private Q_SLOTS:
    void initTestCase() {
        generated_ = testing::generateProject(dir_.path() + "/study.dpmix");
        auto file = project::ProjectFile::open(generated_.path.toStdString()).value();
        configuredRun_ = file.addRun({"proxy", "", std::nullopt, 0,
                                      R"({"stage":"proxies","model":{"name":"small-cnn","width":64},"lr":0.001,)"
                                      R"("epochs":1,"seeds":[0,1]})"})
                             .value();
        (void)file.setRunStatus(configuredRun_, project::RunStatus::Running).value();
        (void)file.storeModel(configuredRun_, "proxy", std::string(3 * 1024 * 1024 / 2, 'x')).value();
        (void)file.setRunStatus(configuredRun_, project::RunStatus::Done).value();
        failedRun_ = file.addRun({"dp-mixmin", "ac", 4.0, 0, "{}"}).value();
        (void)file.setRunStatus(failedRun_, project::RunStatus::Running).value();
        (void)file.setRunStatus(failedRun_, project::RunStatus::Failed, "batch 64 is larger than split A (4 examples)")
            .value();
        auto snapshot = loadProjectSnapshot(generated_.path);
        QVERIFY(snapshot);
        project_ = std::move(snapshot).value();
        for (const auto& r : project_.runs)
            if (r.run.method == "dp-mixmin" && r.run.epsilon == 2.0) unledgeredDpRun_ = r.run.id;
        QVERIFY(unledgeredDpRun_ > 0);
    }

    void configurationIsKeyValueInStoredOrder() {
        const auto rows = configRows(
            R"({"stage":"mixture","rho":0.15,"model":{"name":"cnn","width":64},"seeds":[0,1],"secret":false})");
        QCOMPARE(rows.size(), std::size_t(6));
        QCOMPARE(rows[0], DetailRow("stage", "mixture"));
        QCOMPARE(rows[1], DetailRow("rho", "0.15"));
        QCOMPARE(rows[2], DetailRow("model.name", "cnn"));
        QCOMPARE(rows[3], DetailRow("model.width", "64"));
        QCOMPARE(rows[4], DetailRow("seeds", "[0,1]"));
        QCOMPARE(rows[5], DetailRow("secret", "false"));
        QVERIFY(configRows("{}").empty());
        const auto bad = configRows("not json");
        QCOMPARE(bad.size(), std::size_t(1));
        QCOMPARE(bad[0].second, QString("not json"));
    }

    void sizesAndDurationsReadPlainly() {
        QCOMPARE(byteSize(512), QString("512 B"));
        QCOMPARE(byteSize(1536), QString("1.5 KiB"));
        QCOMPARE(byteSize(3LL * 1024 * 1024 / 2), QString("1.5 MiB"));
        QCOMPARE(runDuration("2026-01-02T10:00:00.000Z", "2026-01-02T10:03:05.500Z"), QString("took 3 min 5 s"));
        QCOMPARE(runDuration("2026-01-02T10:00:00Z", "2026-01-02T11:02:00Z"), QString("took 1 h 2 min"));
        QCOMPARE(runDuration("", "2026-01-02T11:02:00Z"), QString());
    }

    void aNewPaneAsksForARun() {
        RunDetailsView view;
        QVERIFY(view.showsEmptyState());
        QCOMPARE(view.emptyState()->text(), QString("Select a run in the project tree"));
        QVERIFY(!view.runId());
        QVERIFY(!view.toolTip().isEmpty());
        QVERIFY(view.whatsThis().contains("Run details"));
    }

    void aDpMixMinRunShowsItsLedgerLambdaMetricsAndCurves() {
        RunDetailsView view;
        view.showRun(project_, generated_.dpRunEpsilon1Seed0);
        QVERIFY(!view.showsEmptyState());
        QCOMPARE(view.runId(), std::optional<long long>(generated_.dpRunEpsilon1Seed0));
        QVERIFY2(view.title()->text().contains("DP-MixMin") && view.title()->text().contains("ε = 1"),
                 qPrintable(view.title()->text()));
        QVERIFY2(view.timeline()->text().startsWith("Status: done"), qPrintable(view.timeline()->text()));

        const QTableWidget* ledger = view.table(RunDetailsPart::Ledger);
        QVERIFY(!ledger->isHidden());
        QCOMPARE(ledger->rowCount(), 1);
        const auto entry =
            privacy::gaussianEntry("mixture", "A", privacy::PrivacyUnit::Example, 0.25, 1.5, 100, 1e-5, 13.0);
        const QStringList h = headers(ledger);
        QCOMPARE(cell(ledger, 0, h.indexOf("Stage")), QString("mixture"));
        QCOMPARE(cell(ledger, 0, h.indexOf("Split")), QString("A"));
        QCOMPARE(cell(ledger, 0, h.indexOf("ε")), QString::number(entry.epsilon, 'g', 6));
        QCOMPARE(cell(ledger, 0, h.indexOf("δ")), QString("1e-05"));
        QCOMPARE(cell(ledger, 0, h.indexOf("Accountant")), QString::fromStdString(entry.accountant));
        QCOMPARE(cell(ledger, 0, h.indexOf("Parameters")).replace(QChar(0x00a0), ' '),
                 QString("q = 0.25 · σ = 1.5 · steps = 100 · C = 13"));
        QVERIFY2(view.ledgerTotal()->text().contains(QString("ε = %1").arg(QString::number(entry.epsilon, 'g', 6))),
                 qPrintable(view.ledgerTotal()->text()));

        const QTableWidget* lambda = view.table(RunDetailsPart::Lambdas);
        QCOMPARE(headers(lambda), QStringList({"Component", "private", "non-private"}));
        QCOMPARE(column(lambda, 0), QStringList({"ab", "cd"}));
        QCOMPARE(column(lambda, 1), QStringList({"0.7000", "0.3000"}));
        QCOMPARE(column(lambda, 2), QStringList({"0.8000", "0.2000"}));

        const QTableWidget* metrics = view.table(RunDetailsPart::Metrics);
        QCOMPARE(column(metrics, 0), QStringList({"cosine-to-lambda-star", "l1-to-lambda-star"}));
        QCOMPARE(column(metrics, 1), QStringList({"0.9", "0.2"}));

        const QTableWidget* curves = view.table(RunDetailsPart::Curves);
        QCOMPARE(column(curves, 0), QStringList({"lambda/ab", "lambda/cd"}));
        QCOMPARE(cell(curves, 0, 1), QString("3 points, steps 0–2, last value 0.7"));

        // Its config is "{}": the section says so instead of an empty table.
        QVERIFY(view.table(RunDetailsPart::Config)->isHidden());
        QVERIFY(!view.note(RunDetailsPart::Config)->isHidden());
        QVERIFY(view.table(RunDetailsPart::Models)->isHidden());
        QCOMPARE(view.note(RunDetailsPart::Models)->text(), QString("No models stored."));
    }

    void anotherRunReplacesTheValues() {
        RunDetailsView view;
        view.showRun(project_, generated_.dpRunEpsilon1Seed0);
        view.showRun(project_, generated_.randomSearchRun);
        QCOMPARE(view.runId(), std::optional<long long>(generated_.randomSearchRun));
        QVERIFY(view.title()->text().contains("Random search"));
        const QTableWidget* ledger = view.table(RunDetailsPart::Ledger);
        const QStringList h = headers(ledger);
        QCOMPARE(ledger->rowCount(), 1);
        QCOMPARE(cell(ledger, 0, h.indexOf("Stage")), QString("random-search"));
        QCOMPARE(cell(ledger, 0, h.indexOf("ε")), QString("∞ (not private)"));
        QCOMPARE(cell(ledger, 0, h.indexOf("δ")), QString("—"));
        QCOMPARE(cell(ledger, 0, h.indexOf("Parameters")), QString("best random mixture chosen without DP"));
        QCOMPARE(headers(view.table(RunDetailsPart::Lambdas)), QStringList({"Component", "random-search"}));
        QCOMPARE(column(view.table(RunDetailsPart::Lambdas), 1), QStringList({"0.3000", "0.7000"}));
        QVERIFY(view.table(RunDetailsPart::Curves)->isHidden());  // none stored for this run
    }

    void aRunWithoutLedgerSaysSo() {
        RunDetailsView view;
        view.showRun(project_, generated_.dpRunEpsilon1Seed0);
        view.showRun(project_, unledgeredDpRun_);
        QVERIFY(view.table(RunDetailsPart::Ledger)->isHidden());
        QVERIFY(!view.note(RunDetailsPart::Ledger)->isHidden());
        QVERIFY2(view.note(RunDetailsPart::Ledger)->text().startsWith("No privacy ledger"),
                 qPrintable(view.note(RunDetailsPart::Ledger)->text()));
        QVERIFY(view.ledgerTotal()->isHidden());
    }

    void configurationAndModelsAreRows() {
        RunDetailsView view;
        view.showRun(project_, configuredRun_);
        const QTableWidget* config = view.table(RunDetailsPart::Config);
        QVERIFY(!config->isHidden());
        QCOMPARE(column(config, 0), QStringList({"stage", "model.name", "model.width", "lr", "epochs", "seeds"}));
        QCOMPARE(column(config, 1), QStringList({"proxies", "small-cnn", "64", "0.001", "1", "[0,1]"}));
        const QTableWidget* models = view.table(RunDetailsPart::Models);
        QVERIFY(!models->isHidden());
        QCOMPARE(column(models, 0), QStringList({"proxy"}));
        QVERIFY2(cell(models, 0, 1).startsWith("1.5 MiB · sha256 "), qPrintable(cell(models, 0, 1)));
        QVERIFY(view.table(RunDetailsPart::Ledger)->isHidden());
    }

    void aFailedRunShowsWhy() {
        RunDetailsView view;
        view.showRun(project_, failedRun_);
        QVERIFY(view.timeline()->text().startsWith("Status: failed"));
        QVERIFY(!view.message()->isHidden());
        QCOMPARE(view.message()->text(), QString("batch 64 is larger than split A (4 examples)"));
        view.showRun(project_, generated_.dpRunEpsilon1Seed0);
        QVERIFY(view.message()->isHidden());
    }

    void anUnknownRunShowsTheEmptyState() {
        RunDetailsView view;
        view.showRun(project_, generated_.dpRunEpsilon1Seed0);
        view.showRun(project_, 4242);
        QVERIFY(view.showsEmptyState());
        QVERIFY(!view.runId());
    }
};

QTEST_MAIN(TstRunDetails)
#include "tst_run_details.moc"
