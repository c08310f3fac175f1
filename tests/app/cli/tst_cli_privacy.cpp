#include "cli_runner.h"

#include <QTemporaryDir>

#include <sys/stat.h>
#include "tests/support/test_support.h"

#include <QtTest>

#include <cmath>

class TestCliPrivacy : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void epsilonJsonPrintsThePublishedExample() {
        const auto r = runDpmix(
            {"privacy", "epsilon", "--q", "0.01", "--sigma", "1.0", "--steps", "1000", "--delta", "1e-6", "--json"});
        QCOMPARE(r.exitCode, 0);
        const auto j = r.json();
        DPMIX_COMPARE_NEAR(j["epsilon"].toDouble(), 2.43669380, 5e-9);
        QCOMPARE(j["order"].toDouble(), 8.0);
        QCOMPARE(j["q"].toDouble(), 0.01);
        QCOMPARE(j["steps"].toInt(), 1000);
    }
    void sigmaJsonMeetsTarget() {
        const auto r = runDpmix(
            {"privacy", "sigma", "--epsilon", "1", "--delta", "1e-5", "--q", "0.2", "--steps", "100", "--json"});
        QCOMPARE(r.exitCode, 0);
        DPMIX_COMPARE_NEAR(r.json()["sigma"].toDouble(), 8.278, 1e-3);  // docs/ALGORITHMS.md A.11
    }
    void thePrvAccountantPrintsItsBracketBesideRdp() {
        // q = 0.001, σ = 0.5, one step: RDP says 2.84; the true ε is about 0.34.
        const auto r = runDpmix({"privacy", "epsilon", "--q", "0.001", "--sigma", "0.5", "--steps", "1", "--delta",
                                 "1e-5", "--accountant", "prv", "--json"});
        QCOMPARE(r.exitCode, 0);
        const auto j = r.json();
        QCOMPARE(j["accountant"].toString(), QStringLiteral("prv"));
        QVERIFY(j["epsilon_lower"].toDouble() <= j["epsilon_upper"].toDouble());
        QVERIFY(j["epsilon_upper"].toDouble() < 0.36 && j["epsilon_lower"].toDouble() > 0.32);
        QCOMPARE(j["epsilon"].toDouble(), std::min(j["epsilon_upper"].toDouble(), j["epsilon_rdp"].toDouble()));
        QCOMPARE(j["epsilon_error"].toDouble(), 0.01);
        DPMIX_COMPARE_NEAR(j["epsilon_rdp"].toDouble(), 2.8356, 1e-3);
        // σ for a target: less noise than RDP, with the saving.
        const auto s = runDpmix({"privacy", "sigma", "--epsilon", "1", "--delta", "1e-5", "--q", "0.2", "--steps",
                                 "100", "--accountant", "prv", "--json"});
        QCOMPARE(s.exitCode, 0);
        const auto k = s.json();
        QVERIFY(k["sigma"].toDouble() < k["sigma_rdp"].toDouble());
        DPMIX_COMPARE_NEAR(k["sigma_rdp"].toDouble(), 8.278, 1e-3);
        QVERIFY(k["epsilon_achieved"].toDouble() <= 1.0);
        QVERIFY(k["saving_percent"].toDouble() > 3.0);
        // The default stays RDP, and an unknown accountant is refused.
        QCOMPARE(runDpmix({"privacy", "epsilon", "--q", "0.01", "--sigma", "1", "--steps", "10", "--delta", "1e-5",
                           "--json"})
                     .json()["accountant"]
                     .toString(),
                 QStringLiteral("rdp"));
        const auto bad = runDpmix({"privacy", "epsilon", "--q", "0.01", "--sigma", "1", "--steps", "10", "--delta",
                                   "1e-5", "--accountant", "moments"});
        QVERIFY(bad.exitCode != 0);
        QVERIFY2(bad.err.contains("--accountant"), qPrintable(bad.err));
    }
    void csvWithThePrvAccountant() {
        QTemporaryDir dir;
        QFile f(dir.filePath("grid.csv"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("q,sigma,steps,delta\n0.01,1.0,1000,1e-6\n1,2,100,1e-5\n");
        f.close();
        const auto r = runDpmix({"privacy", "epsilon", "--csv", f.fileName(), "--accountant", "prv"});
        QCOMPARE(r.exitCode, 0);
        const QStringList lines = r.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 3);
        QCOMPARE(lines[0], QStringLiteral("q,sigma,steps,delta,accountant,epsilon,epsilon_upper,epsilon_lower,"
                                          "epsilon_error,epsilon_rdp"));
        QVERIFY(lines[1].contains(",prv,"));
    }
    void dirichletJsonReproducesTable7() {
        const auto r = runDpmix({"privacy", "dirichlet-r", "--epsilon", "2", "--delta", "1e-5", "--alpha", "3", "--q",
                                 QString::number(250.0 / 60000.0, 'g', 17), "--steps", "9600", "--json"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(std::fabs(r.json()["r_star"].toDouble() - 0.472) <= 0.002);
    }
    void auditBoundJson() {
        const auto r = runDpmix({"privacy", "audit-bound", "--fp", "0", "--fn", "0", "--negatives", "1000",
                                 "--positives", "1000", "--delta", "1e-5", "--json"});
        QCOMPARE(r.exitCode, 0);
        DPMIX_COMPARE_NEAR(r.json()["epsilon_lb"].toDouble(), 5.6006, 5e-5);
    }
    void badInputNamesArgumentValueAndRange_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("expected");
        QTest::newRow("q>1") << QStringList{"epsilon", "--q", "1.5", "--sigma", "1", "--steps", "10", "--delta", "1e-5"}
                             << "--q = 1.5 is out of range: expected a sampling rate in (0, 1]";
        QTest::newRow("sigma<=0") << QStringList{"epsilon", "--q", "0.1",     "--sigma", "0",
                                                 "--steps", "10",  "--delta", "1e-5"}
                                  << "--sigma = 0 is out of range";
        QTest::newRow("delta") << QStringList{"sigma", "--epsilon", "1", "--delta", "2", "--q", "0.1", "--steps", "10"}
                               << "--delta = 2 is out of range: expected a probability in (0, 1)";
        QTest::newRow("eps<=0") << QStringList{"sigma", "--epsilon", "-1",      "--delta", "1e-5",
                                               "--q",   "0.1",       "--steps", "10"}
                                << "--epsilon = -1 is out of range";
        QTest::newRow("T<1") << QStringList{"epsilon", "--q", "0.1", "--sigma", "1", "--steps", "0", "--delta", "1e-5"}
                             << "--steps = 0 is out of range";
        QTest::newRow("r>=alpha") << QStringList{"dirichlet-r", "--epsilon", "1",   "--delta", "1e-5", "--alpha",
                                                 "-3",          "--q",       "0.1", "--steps", "10"}
                                  << "--alpha = -3 is out of range";
        QTest::newRow("text") << QStringList{"epsilon", "--q", "abc",     "--sigma", "1",
                                             "--steps", "10",  "--delta", "1e-5"}
                              << "--q = 'abc' is not a number";
        QTest::newRow("hex float") << QStringList{"epsilon", "--q", "0x1p-7",  "--sigma", "1",
                                                  "--steps", "10",  "--delta", "1e-5"}
                                   << "--q = '0x1p-7' is not a number";
        QTest::newRow("blank first") << QStringList{"epsilon", "--q", " 0.01",   "--sigma", "1",
                                                    "--steps", "10",  "--delta", "1e-5"}
                                     << "is not a number";
        QTest::newRow("missing") << QStringList{"epsilon", "--sigma", "1", "--steps", "10", "--delta", "1e-5"}
                                 << "missing --q";
        QTest::newRow("fp>N0") << QStringList{"audit-bound", "--fp",        "5", "--fn",    "0",   "--negatives",
                                              "4",           "--positives", "4", "--delta", "1e-5"}
                               << "--fp = 5 is out of range: expected at most negatives = 4";
    }
    void badInputNamesArgumentValueAndRange() {
        QFETCH(QStringList, args);
        QFETCH(QString, expected);
        const auto r = runDpmix(QStringList{"privacy"} + args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(expected), qPrintable(r.err));
        QVERIFY(r.out.isEmpty());
        QCOMPARE(r.err.count('\n'), 1);  // one line
    }
    void inputsTheAccountantCannotEvaluateAreAnErrorNotACrash() {
        // alpha = 1e-200 overflows trigamma in the Dirichlet bound (an uncaught exception before).
        const auto r = runDpmix({"privacy", "dirichlet-r", "--epsilon", "1", "--delta", "1e-5", "--alpha", "1e-200",
                                 "--q", "0.1", "--steps", "10"});
        QVERIFY2(r.exitCode == 2, qPrintable(QString::number(r.exitCode) + r.err));
        QVERIFY2(r.err.contains("outside what the accountant can evaluate"), qPrintable(r.err));
        QVERIFY(r.err.contains("alpha = 1e-200"));
        QVERIFY2(r.err.startsWith("dpmix privacy dirichlet-r: these inputs"), qPrintable(r.err));  // no flag dashes
    }

    void aBudgetNoNoiseCanMeetIsAClearRefusal() {
        const auto r =
            runDpmix({"privacy", "sigma", "--epsilon", "1e-9", "--delta", "1e-12", "--q", "1", "--steps", "100000"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.startsWith("dpmix privacy sigma: no noise multiplier up to 1e6 reaches epsilon 1e-09"),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains("the privacy budget is too small"), qPrintable(r.err));
    }

    void csvTabulatesAGridAndSkipsBadRows() {
        QTemporaryDir dir;
        QFile f(dir.filePath("grid.csv"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("q,sigma,steps,delta\n0.01,1.0,1000,1e-6\n0.02,abc,10,1e-5\n1,2,10,1e-5\n");
        f.close();
        const auto r = runDpmix({"privacy", "epsilon", "--csv", f.fileName()});
        QCOMPARE(r.exitCode, 2);
        const QStringList lines = r.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 3);  // header + two good rows; nothing for the bad one
        QCOMPARE(lines[0], QString("q,sigma,steps,delta,accountant,epsilon,order"));
        QVERIFY(lines[1].startsWith("0.01,1,1000,1e-06,rdp,2.43669380"));
        QVERIFY(r.err.contains("row 3, column sigma = 'abc' is not a number"));
        // q = 1: closed form, optimum over the grid computed here.
        double best = INFINITY;
        for (int x = 1; x < 100; ++x) {
            const double a = 1 + x / 10.0;
            best = std::min(best, 10 * a / 8 + std::log((a - 1) / a) - (std::log(1e-5) + std::log(a)) / (a - 1));
        }
        for (int a = 12; a < 64; ++a)
            best = std::min(best,
                            10.0 * a / 8 + std::log((a - 1.0) / a) - (std::log(1e-5) + std::log(double(a))) / (a - 1));
        DPMIX_COMPARE_NEAR(lines[2].split(QLatin1Char(','))[5].toDouble(), best,
                           1e-8 * best);  // after the accountant column
    }
    void csvJsonAndMissingColumn() {
        QTemporaryDir dir;
        QFile f(dir.filePath("grid.csv"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("epsilon,delta,q,steps\n1,1e-5,0.2,100\n2,1e-5,0.2,100\n");
        f.close();
        const auto r = runDpmix({"privacy", "sigma", "--csv", f.fileName(), "--json"});
        QCOMPARE(r.exitCode, 0);
        const QStringList lines = r.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 2);
        const double s1 = QJsonDocument::fromJson(lines[0].toUtf8()).object()["sigma"].toDouble();
        const double s2 = QJsonDocument::fromJson(lines[1].toUtf8()).object()["sigma"].toDouble();
        QVERIFY(s1 > s2);  // a larger budget needs less noise
        QFile g(dir.filePath("bad.csv"));
        QVERIFY(g.open(QIODevice::WriteOnly));
        g.write("epsilon,q,steps\n1,0.2,100\n");
        g.close();
        const auto bad = runDpmix({"privacy", "sigma", "--csv", g.fileName()});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY(bad.err.contains("missing column 'delta'"));
        QVERIFY(bad.out.isEmpty());
    }
    void csvColumnsAndFlagsAreStrict_data() {
        QTest::addColumn<QByteArray>("csv");
        QTest::addColumn<QStringList>("extra");
        QTest::addColumn<QString>("message");
        const QByteArray good = "q,sigma,steps,delta\n0.01,1.0,1000,1e-6\n";
        QTest::newRow("unknown column") << QByteArray("q,sigma,steps,delta,epsilon\n0.01,1,1000,1e-6,3\n")
                                        << QStringList()
                                        << "column 5 of the header is 'epsilon', not a flag of `privacy epsilon`";
        QTest::newRow("column named twice") << QByteArray("q,sigma,steps,delta,q\n0.01,1,1000,1e-6,0.5\n")
                                            << QStringList() << "column 'q' is named twice";
        QTest::newRow("header only") << QByteArray("q,sigma,steps,delta\n") << QStringList()
                                     << "only a header, no row to compute";
        QTest::newRow("row longer than the header") << QByteArray("q,sigma,steps,delta\n0.01,1,1000,1e-6,7\n")
                                                    << QStringList() << "row 2 has 5 cells, the header 4 columns";
        QTest::newRow("flag beside --csv") << good << QStringList{"--sigma", "2"}
                                           << "--sigma and --csv: give the values either as flags or as columns";
    }
    void csvColumnsAndFlagsAreStrict() {
        QFETCH(QByteArray, csv);
        QFETCH(QStringList, extra);
        QFETCH(QString, message);
        QTemporaryDir dir;
        QFile f(dir.filePath("in.csv"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(csv);
        f.close();
        const auto r = runDpmix(QStringList{"privacy", "epsilon", "--csv", f.fileName()} + extra);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        if (QString(QTest::currentDataTag()) != "row longer than the header") QVERIFY(r.out.isEmpty());
    }
    // A byte-order mark and quoted header cells (what spreadsheets write) are read as the plain header; a FIFO or
    // /dev/zero as --csv is refused, not read forever (docs/RELIABILITY.md, "one door to the file system").
    void csvFromASpreadsheetIsRead_data() {
        QTest::addColumn<QByteArray>("csv");
        QTest::newRow("byte-order mark") << QByteArray("\xEF\xBB\xBFq,sigma,steps,delta\n0.01,1.0,1000,1e-6\n");
        QTest::newRow("quoted header") << QByteArray("\"q\",\"sigma\",\"steps\",\"delta\"\r\n0.01,1.0,1000,1e-6\r\n");
        QTest::newRow("both, quoted cells")
            << QByteArray("\xEF\xBB\xBF\"q\", \"sigma\" ,steps,\"delta\"\n\"0.01\",1.0,\"1000\",1e-6\n");
    }
    void csvFromASpreadsheetIsRead() {
        QFETCH(QByteArray, csv);
        QTemporaryDir dir;
        QFile f(dir.filePath("sheet.csv"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(csv);
        f.close();
        const auto r = runDpmix({"privacy", "epsilon", "--csv", f.fileName()});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QStringList lines = r.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 2);
        QVERIFY2(lines[1].startsWith("0.01,1,1000,1e-06,rdp,2.43669380"), qPrintable(lines[1]));
    }
    void csvThatIsNotAFileIsRefused() {
        QTemporaryDir dir;
        const QString fifo = dir.filePath("grid.csv");
        QCOMPARE(::mkfifo(fifo.toUtf8().constData(), 0600), 0);
        for (const QString& path : {fifo, QString("/dev/zero")}) {
            const auto r = runDpmix({"privacy", "epsilon", "--csv", path});
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.contains("is not a regular file"), qPrintable(r.err));
            QCOMPARE(r.err.count('\n'), 1);
        }
        const auto big =
            runDpmix({"privacy", "sigma", "--epsilon", "1e7", "--delta", "1e-5", "--q", "0.1", "--steps", "10"});
        QCOMPARE(big.exitCode, 2);
        QVERIFY2(big.err.contains("--epsilon = 1e7 is out of range: expected ε in (0, 1e6]"), qPrintable(big.err));
    }
    void doctorReportsTheRuntime() {
        const auto r = runDpmix({"doctor", "--json"});
        QCOMPARE(r.exitCode, 0);
        const auto j = r.json();
        QVERIFY(j["torch"].toString().startsWith("1."));
        QVERIFY(!j["blas"].toString().isEmpty());
        QVERIFY(j["threads"].toInt() >= 1);
        QVERIFY(j.contains("cuda_available"));
    }
    void dpmixRestartsItselfWithQuietBlasThreadsUnlessTheUserChose() {
        // OpenBLAS reads OPENBLAS_THREAD_TIMEOUT only when it is loaded: dpmix sets it and restarts
        // itself where it is unset (docs/DEVELOPING.md, "BLAS and malloc"), and keeps a user's value.
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("OPENBLAS_THREAD_TIMEOUT"));
        const auto unset = runDpmix({"doctor", "--json"}, {}, env);
        QCOMPARE(unset.exitCode, 0);
        QCOMPARE(unset.json()["blas_thread_timeout"].toString(), QStringLiteral("4"));
        env.insert(QStringLiteral("OPENBLAS_THREAD_TIMEOUT"), QStringLiteral("12"));
        const auto chosen = runDpmix({"doctor", "--json"}, {}, env);
        QCOMPARE(chosen.exitCode, 0);
        QCOMPARE(chosen.json()["blas_thread_timeout"].toString(), QStringLiteral("12"));
        QVERIFY2(chosen.err.isEmpty(), qPrintable(chosen.err));
    }
};

QTEST_GUILESS_MAIN(TestCliPrivacy)
#include "tst_cli_privacy.moc"
