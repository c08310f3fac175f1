// The study report of a fixture project (generated_project.h, numbers chosen by hand): the
// HTML holds the spec, the sources' content hashes, every run's ledger numbers with the
// Verify outcome, the hash-chain check, the plots (inlined PNG that decode to what was given)
// and the software versions; the PDF is written next to it; a tampered ledger shows as a
// discrepancy; a bad output path is refused with a message and leaves the folder untouched. The
// first page holds the study at a glance; each plot starts a page with its heading; ledger
// numbers are not broken across lines; the spec appendix keeps short lists on one line.
#include "app/workbench/runs/budget_reading.h"
#include "app/workbench/views/report_writer.h"
#include "engine/privacy/dirichlet_accountant.h"
#include "engine/privacy/ledger.h"
#include "engine/privacy/ledger_json.h"
#include "engine/project/project_file.h"
#include "tests/app/workbench/generated_project.h"

#include <QAbstractTextDocumentLayout>
#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QtTest>

#include <algorithm>

using namespace dpmix::workbench;

namespace {
AboutInfo versions() { return {"dpmix-test-1.2", "qt-test-6.4", "torch-test-1.13", "schema-test-9"}; }

QImage redSquare() {
    QImage image(40, 30, QImage::Format_RGB32);
    image.fill(QColor(200, 10, 20));
    return image;
}

QString readAll(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QString::fromUtf8(f.readAll());
}
}  // namespace

class TstReportWriter : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    testing::GeneratedProject generated_;

    ReportInput input(const QString& path) {
        auto snapshot = loadProjectSnapshot(path);
        if (!snapshot) qFatal("%s", snapshot.error().message.c_str());
        return ReportInput{*snapshot, versions(), {{"λ by task", redSquare()}}, "2026-01-02T03:04:05Z"};
    }

private Q_SLOTS:
    void initTestCase() { generated_ = testing::generateProject(dir_.path() + "/study.dpmix"); }

    void htmlHoldsSpecSourcesLedgersVerificationAndVersions() {
        const ReportInput in = input(generated_.path);
        // (Cells kept on one line carry a style; the cell contents are compared here.)
        const QString html = reportHtml(in).remove(QStringLiteral(" style='white-space:nowrap'"));
        // Sources with their content hashes (tinyFacts: 64 × 'a' public, 64 × 'b' sensitive).
        QVERIFY(html.contains("public-images"));
        QVERIFY(html.contains("private-images"));
        QVERIFY(html.contains(QString(64, 'a')));
        QVERIFY(html.contains(QString(64, 'b')));
        // The spec (its name and tasks).
        QVERIFY(html.contains("&quot;name&quot;: &quot;tiny&quot;") || html.contains("\"name\": \"tiny\""));
        // The first page states the privacy budget: the DP-MixMin ledgers composed, before the runs.
        const auto budget = budgetReadingOf(in.project).value();
        QVERIFY(budget.releases > 0 && budget.spent > 0.0);
        const int budgetAt = html.indexOf("<h2>Privacy budget</h2>");
        QVERIFY(budgetAt > 0 && budgetAt < html.indexOf("<h2>Runs"));
        QVERIFY(html.contains(QString("ε <b>%1</b>").arg(budget.spent, 0, 'f', 3)));
        // Before it, what sharing the report shares: this project holds λ* and Random Search's choice.
        const int trustAt = html.indexOf("<h2>Trust boundary</h2>");
        QVERIFY(trustAt > 0 && trustAt < budgetAt);
        QVERIFY(html.contains("Keep this file and this report inside the data owner's trust boundary."));
        QVERIFY(html.contains("lambda* (non-private MixMin)"));
        // Every run is listed (9 in the fixture).
        QCOMPARE(html.count(QRegularExpression("<h3[^>]*>Run \\d+: ")), 9);
        // The DP run's ledger as the fixture recorded it: q = 0.25, σ = 1.5, 100 steps, δ = 1e-5,
        // and the ε stored in its ledger (compared with the stored JSON, not recomputed here).
        const RunResults* dp = in.project.findRun(generated_.dpRunEpsilon1Seed0);
        QVERIFY(dp && dp->ledgers.size() == 1);
        const auto ledger = dpmix::privacy::ledgerFromJson(dp->ledgers.front().ledgerJson);
        QVERIFY(ledger);
        const double epsilon = ledger->entries().front().epsilon;
        const QString row = QStringLiteral("<td>0.25</td><td>1.5</td><td>100</td><td>1e-05</td><td>%1</td>")
                                .arg(QString::number(epsilon, 'g', 6));
        QVERIFY2(html.contains(row), qPrintable(row));
        QVERIFY(html.contains(QStringLiteral("ε recorded by the run: %1")
                                  .arg(QString::number(dp->ledgers.front().recordedEpsilon, 'g', 6))));
        // The summary line of that run: its composed ε and the verdict.
        const QString summary =
            QStringLiteral("<tr><td>%1</td><td>DP-MixMin</td><td>ac</td><td>1</td><td>0</td><td>done</td><td>%2</td>")
                .arg(generated_.dpRunEpsilon1Seed0)
                .arg(QString::number(ledger->total().epsilon, 'g', 6));
        QVERIFY2(html.contains(summary), qPrintable(summary));
        QVERIFY(html.contains("✔ verified"));
        // Random Search's non-private step is shown as such.
        QVERIFY(html.contains("∞ (not private)"));
        // Verification: both DP runs and both Random Search runs verify; the chain is intact.
        QCOMPARE(html.count("✔ Verified: 1 ε recomputed"), 4);
        QVERIFY(!html.contains("✘"));
        QVERIFY(html.contains(QRegularExpression("hash chain intact \\(\\d+ rows\\)")));
        // The first page: the verdict (generated study: DP-MixMin at its target ε = 1 has cosine
        // 0.80 ± 0.14 to λ* over two seeds, against uniform's 0.50), the overall verification, then
        // the rest after a page break.
        const int summaryAt = html.indexOf("<h2>Summary</h2>");
        QVERIFY(summaryAt > 0 && summaryAt < trustAt);
        QVERIFY(html.indexOf("At ε = 1 DP-MixMin's mixture is closer to the non-private optimum λ* than uniform "
                             "weights are (cosine 0.80 ± 0.14 vs 0.50)") > summaryAt);
        QVERIFY(
            html.contains("✔ Every ledger verifies (4 ε recomputed from the recorded parameters); hash chain intact"));
        // Page 1 is the summary; the details (trust boundary, budget) fill page 2, the rest follows.
        const int secondPage = html.indexOf("page-break-before: always");
        const int thirdPage = html.indexOf("page-break-before: always", secondPage + 1);
        QVERIFY(secondPage > summaryAt && secondPage < trustAt);
        QVERIFY(thirdPage > budgetAt && thirdPage < html.indexOf("<h2>Software</h2>"));
        // Run settings are "key value" pairs, not one line of JSON that a PDF page would cut.
        QVERIFY(!html.contains("Settings: <code>{"));
        QVERIFY(html.contains("Settings: none recorded."));  // the fixture's runs store "{}"
        // Software versions and the generation time.
        for (const QString& v :
             {"dpmix-test-1.2", "qt-test-6.4", "torch-test-1.13", "schema-test-9", "2026-01-02T03:04:05Z"})
            QVERIFY2(html.contains(v), qPrintable(v));
    }

    void firstPageHoldsTheStudyAtAGlance() {
        const ReportInput in = input(generated_.path);
        const QString html = reportHtml(in);
        const int glance = html.indexOf("<th align='left' style='white-space:nowrap'>Study</th>");
        const int firstBreak = html.indexOf("page-break-before: always");
        QVERIFY(glance > html.indexOf("<h2>Summary</h2>"));
        auto rowOf = [&](const QString& key) {
            const int at = html.indexOf(QStringLiteral("white-space:nowrap'>%1</th><td>").arg(key));
            return at < 0 ? QString() : html.mid(at, html.indexOf("</tr>", at) - at);
        };
        // The study, what one ε protects (an example of the sensitive source, with its size).
        const auto& sensitive = *std::find_if(in.project.sources.begin(), in.project.sources.end(), [](const auto& s) {
            return s.role == dpmix::project::SourceRole::Sensitive;
        });
        QVERIFY2(rowOf("Study").contains("<b>tiny</b>"), qPrintable(rowOf("Study")));
        QVERIFY(rowOf("Unit of privacy")
                    .contains(QStringLiteral("one <b>example</b> of private-images (%1 examples)")
                                  .arg(sensitive.facts.examples)));
        // (ε, δ) per release: the two DP-MixMin releases on split A, each ε as its ledger states it.
        const auto ledger = dpmix::privacy::ledgerFromJson(
            in.project.findRun(generated_.dpRunEpsilon1Seed0)->ledgers.front().ledgerJson);
        const QString perRelease = QStringLiteral("mixture, split A: ε %1 ×2 at δ = 1e-05")
                                       .arg(QString::number(ledger->entries().front().epsilon, 'g', 4));
        QVERIFY2(rowOf("(ε, δ) per release").contains(perRelease), qPrintable(rowOf("(ε, δ) per release")));
        // The total, as the budget meter composes it.
        const auto budget = budgetReadingOf(in.project).value();
        QVERIFY(
            rowOf("Total spent")
                .contains(
                    QStringLiteral("ε = <b>%1</b> at δ = 1e-05 over 2 DP release(s)").arg(budget.spent, 0, 'f', 3)));
        // The chosen mixture: DP-MixMin's λ at the spec's first ε (1), seed 0: (0.7, 0.3).
        QVERIFY2(rowOf("Chosen mixture (DP-MixMin λ)")
                     .contains(QStringLiteral("<b>ac</b> (ε = 1, seed 0, run %1): ab 0.70 · cd 0.30")
                                   .arg(generated_.dpRunEpsilon1Seed0)),
                 qPrintable(rowOf("Chosen mixture (DP-MixMin λ)")));
        QVERIFY(rowOf("Downstream vs baselines").contains("no downstream models yet"));
        QVERIFY(rowOf("Verification").contains("verified ✓</b></span> — every ledger's 4 ε recomputed"));
        // All of it before the first page break and before the trust boundary.
        QVERIFY(html.indexOf("Verification</th>") < firstBreak);
        QVERIFY(html.indexOf("Verification</th>") < html.indexOf("<h2>Trust boundary</h2>"));

        // Laid out on the PDF's page (A4 landscape, 2 cm margins, as QTextDocument::print lays it
        // out), the table ends on page 1.
        QTextDocument document;
        document.setHtml(reportHtml(in, PlotImages::Resources));
        document.setPageSize(QSizeF(841.9 - 2 * 56.7, 595.3 - 2 * 56.7));
        const QTextCursor verification = document.find(QStringLiteral("Verification"));
        QVERIFY(!verification.isNull());
        const QRectF box = document.documentLayout()->blockBoundingRect(verification.block());
        QVERIFY2(box.bottom() < document.pageSize().height(), qPrintable(QString::number(box.bottom())));
    }

    void pagesKeepHeadingsWithPlotsAndNumbersWhole() {
        ReportInput in = input(generated_.path);
        in.plots << ReportPlot{"λ trajectory", redSquare()};
        const QString html = reportHtml(in);
        // Every plot's heading starts a page (the first under the "Plots" heading, which does).
        QVERIFY(html.contains("<h2 style='page-break-before: always'>Plots</h2>\n<h3>λ by task</h3>\n<p><img"));
        QVERIFY(html.contains("<h3 style='page-break-before: always'>λ trajectory</h3>\n<p><img"));
        // A ledger row keeps its identifiers and numbers on one line; the accountant and the
        // assumptions, the same in both DP runs, are printed once as notes the rows cite.
        QVERIFY(html.contains("<td style='white-space:nowrap'>subsampled-gaussian</td>"));
        QVERIFY(html.contains("<td style='white-space:nowrap'>1e-05</td>"));
        QCOMPARE(html.count("add/remove of one example"), 1);
        QVERIFY(html.indexOf("add/remove of one example") > html.indexOf("<b>Ledger notes</b>"));
        // Every ledger row (two DP-MixMin, two Random Search) cites its accountant and assumptions.
        QCOMPARE(html.count(QRegularExpression("<td>\\[\\d+\\] \\[\\d+\\]</td></tr>")), 4);
        // The runs' details follow the runs table, as Appendix A; the spec is Appendix B.
        const int details = html.indexOf("<h2>Appendix A: each run in detail</h2>");
        const int appendix = html.indexOf("<h2>Appendix B: the study's spec</h2>");
        QVERIFY(details > html.indexOf("<h2>Runs") && appendix > details);
        const QRegularExpression task("\\{[^\n{}]*&quot;ac&quot;[^\n{}]*\\[&quot;a&quot;, &quot;c&quot;\\][^\n{}]*\\}");
        QVERIFY2(task.match(html, appendix).hasMatch(), qPrintable(html.mid(appendix, 1500)));
        QVERIFY(html.mid(appendix).count('\n') < 40);  // the tiny spec in fewer than 40 lines
    }

    // A study of a few dozen runs prints each run's details in a few lines, not a page per run
    // (the journeys' reviewer copy, 38 runs, printed 55 pages when each run had its tables).
    void aStudyOfManyRunsPrintsInFewPages() {
        const QString copy = dir_.path() + "/many.dpmix";
        (void)testing::generateProject(copy);
        const int added = 36;
        {
            auto file = dpmix::project::ProjectFile::open(copy.toStdString()).value();
            // What a fine-tuned DP-MixMin run stores: 12 settings, a per-class AUC over 10 classes
            // and 4 whole-task metrics, a ledger of two DP entries.
            const std::string config =
                R"({"accountant":"rdp","batch":1000,"clip":13.0,"delta":1e-05,"lr":1.0,"method":"dp-mixmin",)"
                R"("privacy_unit":"example","randomness":"secret","released_iterate":"last","rho":0.1,)"
                R"("stage":"downstream","steps":100})";
            for (int i = 0; i < added; ++i) {
                const long long run = file.addRun({"dp-mixmin", "ac", 1.0 + i, 0, config}).value();
                (void)file.setRunStatus(run, dpmix::project::RunStatus::Running).value();
                (void)file.setRunStatus(run, dpmix::project::RunStatus::Done).value();
                std::vector<dpmix::project::MetricRecord> metrics;
                for (int c = 0; c < 10; ++c)
                    metrics.push_back({run, "test-auc", "class " + std::to_string(c), 0.9 + 0.001 * c});
                for (const char* name : {"macro-auc", "cosine-to-lambda-star", "l1-to-lambda-star", "sigma"})
                    metrics.push_back({run, name, "", 0.5});
                (void)file.addMetrics(metrics).value();
                dpmix::privacy::Ledger ledger;
                ledger.record(dpmix::privacy::gaussianEntry("mixture", "A", dpmix::privacy::PrivacyUnit::Example, 0.2,
                                                            8.7, 100, 1e-5, 13.0));
                ledger.record(dpmix::privacy::gaussianEntry("finetune", "B", dpmix::privacy::PrivacyUnit::Example, 0.01,
                                                            1.1, 100, 1e-5, 1.0));
                (void)file.recordLedger(run, ledger).value();
            }
        }
        const ReportInput in = input(copy);
        QCOMPARE(static_cast<int>(in.project.runs.size()), 9 + added);
        // The PDF as File ▸ Export report writes it, its pages counted from its page objects:
        // three or four runs a page in the appendix, beside the body, the plot and the runs table
        // (78 pages when each run printed its settings and metrics as tables, 21 now).
        const QString html = dir_.path() + "/many-report.html";
        QCOMPARE(writeReport(in, html, true), QString());
        QFile pdf(pdfPathFor(html));
        QVERIFY(pdf.open(QIODevice::ReadOnly));
        const int pages =
            static_cast<int>(QString::fromLatin1(pdf.readAll()).count(QRegularExpression("/Type\\s*/Page(?!s)")));
        QVERIFY2(pages >= 10 && pages <= 30, qPrintable(QString::number(pages)));
    }

    void plotsAreInlinedAsPng() {
        const QString html = reportHtml(input(generated_.path));
        const QRegularExpression data("src='data:image/png;base64,([A-Za-z0-9+/=]+)'");
        const auto match = data.match(html);
        QVERIFY(match.hasMatch());
        const QImage decoded = QImage::fromData(QByteArray::fromBase64(match.captured(1).toLatin1()), "PNG");
        QCOMPARE(decoded.size(), QSize(40, 30));
        QCOMPARE(decoded.pixelColor(5, 5), QColor(200, 10, 20));
        // The PDF's document refers to the plot as a resource instead.
        QVERIFY(reportHtml(input(generated_.path), PlotImages::Resources).contains("src='plot-0.png'"));
    }

    void writesHtmlAndPdf() {
        const QString html = dir_.path() + "/out/report.html";
        QVERIFY(QDir(dir_.path()).mkpath("out"));
        QCOMPARE(writeReport(input(generated_.path), html, true), QString());
        QVERIFY(readAll(html).contains("✔ Verified"));
        const QString pdf = dir_.path() + "/out/report.pdf";
        QCOMPARE(pdfPathFor(html), pdf);
        QFile file(pdf);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(file.size() > 1000);
        QCOMPARE(file.read(5), QByteArray("%PDF-"));
        QCOMPARE(QDir(dir_.path() + "/out").entryList(QDir::Files), QStringList({"report.html", "report.pdf"}));
    }

    void aTamperedLedgerShowsAsADiscrepancy() {
        const QString copy = dir_.path() + "/tampered.dpmix";
        const auto g = testing::generateProject(copy);
        dpmix::project::testing::rawExec(
            copy.toStdString(),
            "UPDATE ledgers SET ledger_json = replace(ledger_json, '\"sigma\":1.5', '\"sigma\":3.0') WHERE run_id = " +
                std::to_string(g.dpRunEpsilon1Seed0));
        const QString html = reportHtml(input(copy));
        QVERIFY(html.contains("✘ Discrepancy"));
        QVERIFY(html.contains("hash chain broken at table ledgers"));
    }

    void aDirichletClaimRefutedByAStoredAuditSaysSo() {
        const QString copy = dir_.path() + "/dirichlet.dpmix";
        (void)testing::generateProject(copy);
        {
            auto file = dpmix::project::ProjectFile::open(copy.toStdString()).value();
            const double r = dpmix::privacy::calibrateDirichletR(1.0, 1e-5, 3.0, 0.01, 100).value().r;
            const long long run = file.addRun({"uniform", "ac", 1.0, 0, "{}"}).value();
            dpmix::privacy::Ledger ledger;
            ledger.record(dpmix::privacy::dirichletEntry("finetune", "B", 3.0, r, 0.01, 100, 1e-5));
            (void)file.recordLedger(run, ledger).value();
            const long long audit = file.addRun({"audit", "ac", 1.0, 0, "{}"}).value();
            (void)file
                .addAudit({audit,
                           "finetune-dirichlet-large-norm",
                           {0, 0, 500, 500},
                           1e-5,
                           0.95,
                           4.9,
                           R"({"mechanism":"dirichlet","claimed_epsilon":1})"})
                .value();
        }
        const QString html = reportHtml(input(copy));
        QVERIFY2(html.contains("no (claimed); <b>claim refuted by audit (ε_LB = 4.91 &gt; ε = 1; audit run #"),
                 qPrintable(html.mid(html.indexOf("no (claimed)"), 200)));
    }

    void badOutputPathsWriteNothing() {
        QVERIFY(QDir(dir_.path()).mkpath("bad"));
        const QString folder = dir_.path() + "/bad";
        const ReportInput in = input(generated_.path);
        const QString missing = folder + "/no/such/folder/report.html";
        const QString e1 = writeReport(in, missing, true);
        QVERIFY2(e1.contains("does not exist") && e1.contains(folder + "/no/such/folder"), qPrintable(e1));
        const QString e2 = writeReport(in, folder + "/report.txt", true);
        QVERIFY2(e2.contains("report.txt") && e2.contains(".html"), qPrintable(e2));
        const QString e3 = writeReport(in, folder, true);
        QVERIFY2(e3.contains("is a folder"), qPrintable(e3));
        QVERIFY(writeReport(in, "", true).contains("no output file"));
        QCOMPARE(QDir(folder).entryList(QDir::AllEntries | QDir::NoDotAndDotDot), QStringList());
    }
};

QTEST_MAIN(TstReportWriter)
#include "tst_report_writer.moc"
