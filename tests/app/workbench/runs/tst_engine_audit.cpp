// The Audit dialog's fine-tuning audit through the real engine (runAuditWithEngine) on a tiny
// generated image study, without downloaded data: the request reaches the training-audit stage,
// the examples and batch it did not set are chosen on the study, the audit is stored, and the
// log states the verdict on the claim.
#include "app/workbench/project/project_snapshot.h"
#include "app/workbench/runs/engine_study.h"
#include "app/workbench/views/audit_view.h"
#include "engine/project/project_opener.h"
#include "tests/engine/pipeline/tiny_image_study.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace dpmix;
using namespace dpmix::workbench;

class TstEngineAudit : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::string project_;

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        const std::string d = dir_.path().toStdString();
        testing::writeStudyImages(d, "pub", 100, 1);
        testing::writeStudyImages(d, "sens", 300, 2);
        std::ofstream(d + "/tiny.json") << R"({"name": "tiny",
)" + testing::tinyStudyData() + R"(  "privacy": {"epsilon": 1, "delta": 1e-5, "rho": 0.25},
  "stages": {"finetune": {"batch": 32, "lr": 0.05, "steps": 20, "clip": 1.0}},
  "seeds": [0]})";
        project_ = d + "/tiny.dpmix";
        auto created = project::createProjectFromSpecFile(d + "/tiny.json", project_, testing::dataLayerSummarizer());
        QVERIFY2(created.ok(), created.ok() ? "" : created.error().message.c_str());
    }

    void aDirichletAuditRunsFromTheDialogsRequest() {
        auto file = project::ProjectFile::open(project_).value();
        AuditRequest request;
        request.task = "ab";
        request.mechanism = "dirichlet";
        request.trainingCanary = "gradient-aligned";
        request.runs = 3;
        request.epsilon = 1.0;
        std::vector<std::string> log;
        const auto status = runAuditWithEngine(file, request, {}, {}, [&](const std::string& l) { log.push_back(l); });
        QVERIFY2(!status, status ? status->message.c_str() : "");
        QVERIFY(!log.empty());
        QVERIFY2(log.back().rfind("verdict on the claim: claim", 0) == 0, log.back().c_str());

        const auto runs = file.runs().value();
        QCOMPARE(runs.back().method, std::string("audit"));
        const auto record = file.audits(runs.back().id).value().at(0);
        QCOMPARE(record.name, std::string("finetune-dirichlet-gradient-aligned"));
        const auto details = nlohmann::json::parse(record.detailsJson);
        const long long examples = details["examples"].get<long long>();
        QVERIFY2(examples > 100 && examples < 300, qPrintable(QString::number(examples)));  // all of split B (< 1000)
        QCOMPARE(details["q"].get<double>(), double(examples / 10) / double(examples));     // batch |D| / 10
    }

    // The dialog's one-run audit (docs/AUDIT.md, "The one-run audit of a study's fine-tuning") reaches the one-run
    // stage (not the R-run training audit), is stored with its canaries, guesses and correct guesses, and the Audit
    // view names it and says so.
    void aOneRunAuditRunsFromTheDialogsRequest() {
        auto file = project::ProjectFile::open(project_).value();
        AuditRequest request;
        request.task = "ab";
        request.mechanism = "sgd";
        request.trainingCanary = "large-norm";
        request.oneRun = true;
        request.canaries = 40;
        request.device = "cpu";
        std::vector<std::string> log;
        const auto status = runAuditWithEngine(file, request, {}, {}, [&](const std::string& l) { log.push_back(l); });
        QVERIFY2(!status, status ? status->message.c_str() : "");
        QVERIFY2(!log.empty() && log.back().find("one-run audit 'finetune-one-run-sgd-large-norm'") == 0,
                 log.empty() ? "" : log.back().c_str());
        const auto runs = file.runs().value();
        const auto record = file.audits(runs.back().id).value().at(0);
        QCOMPARE(record.name, std::string("finetune-one-run-sgd-large-norm"));
        const auto details = nlohmann::json::parse(record.detailsJson);
        QCOMPARE(details["kind"].get<std::string>(), std::string("one-run"));
        QCOMPARE(details["canaries"].get<long long>(), 40LL);
        QCOMPARE(details["guesses"].get<long long>(), 8LL);  // a tenth in and a tenth out

        auto snapshot = loadProjectSnapshot(QString::fromStdString(project_));
        QVERIFY(snapshot.ok());
        const auto data = auditChartData(*snapshot, std::nullopt);
        bool named = false, detailed = false;
        for (const auto& series : data.series) {
            named |= series.name == QStringLiteral("one-run audit: sgd-large-norm");
            for (const auto& d : series.details)
                detailed |= d.contains("one training of the study's fine-tuning (black-box): 40 canaries");
        }
        QVERIFY(named);
        QVERIFY(detailed);
    }

    void aBadMechanismIsAClearError() {
        auto file = project::ProjectFile::open(project_).value();
        AuditRequest request;
        request.task = "ab";
        request.mechanism = "laplace";
        request.trainingCanary = "large-norm";
        const auto status = runAuditWithEngine(file, request, {}, {}, {});
        QVERIFY(status && status->field == "mechanism");
    }
};

QTEST_GUILESS_MAIN(TstEngineAudit)
#include "tst_engine_audit.moc"
