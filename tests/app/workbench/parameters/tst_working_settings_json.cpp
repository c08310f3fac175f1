// The panel's values as a project's working settings: every field but n round-trips through the
// JSON File ▸ Save stores; a key this version does not know, or a value of the wrong type, is
// skipped and named, and the spec's value stays.
#include "app/workbench/parameters/working_settings.h"

#include <QJsonArray>
#include <QtTest>

using namespace dpmix::workbench;
using dpmix::widgets::AccountantChoice;
using dpmix::widgets::CompositionMode;
using dpmix::widgets::RunParameters;

class TstWorkingSettingsJson : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void everyFieldButNRoundTrips() {
        RunParameters edited;
        edited.epsilon = 0.75;
        edited.delta = "1e-6";
        edited.sensitiveCount = 1234;
        edited.rho = 0.3;
        edited.seeds = "7, 8";
        edited.composition = CompositionMode::Sequential;
        edited.accountant = AccountantChoice::Rdp;
        edited.reproducible = true;
        edited.clipNorm = 5.5;
        edited.batchSize = 77;
        edited.learningRate = 0.5;
        edited.steps = 42;
        edited.pretrainBatch = 64;
        edited.pretrainLearningRate = 0.05;
        edited.pretrainSteps = 300;
        edited.finetuneClip = 1.5;
        edited.finetuneBatch = 32;
        edited.finetuneLearningRate = 2e-4;
        edited.finetuneSteps = 250;
        const QJsonObject json = workingSettingsJson(edited);
        QVERIFY(!json.contains("n"));
        QCOMPARE(json.value("finetune-batch").toInt(), 32);
        QCOMPARE(json.value("delta").toString(), QString("1e-6"));

        RunParameters base;  // the spec's values, n from the data
        base.sensitiveCount = 99;
        QStringList ignored;
        RunParameters restored = withWorkingSettings(base, json, &ignored);
        QVERIFY2(ignored.isEmpty(), qPrintable(ignored.join(", ")));
        QCOMPARE(restored.sensitiveCount, qint64(99));
        restored.sensitiveCount = edited.sensitiveCount;
        QVERIFY(restored == edited);
    }

    void unknownKeysAndWrongTypesAreSkippedAndNamed() {
        QJsonObject json;
        json.insert("epsilon", 4.0);
        json.insert("steps", "many");         // a string where a whole number belongs
        json.insert("finetune-batch", 12.5);  // not whole
        json.insert("reproducible", 1);       // a number where true/false belongs
        json.insert("from-a-newer-dpmix", QJsonArray{1, 2});
        QStringList ignored;
        const RunParameters base;
        const RunParameters restored = withWorkingSettings(base, json, &ignored);
        QCOMPARE(restored.epsilon, 4.0);
        QCOMPARE(restored.steps, base.steps);
        QCOMPARE(restored.finetuneBatch, base.finetuneBatch);
        QCOMPARE(restored.reproducible, base.reproducible);
        ignored.sort();
        QCOMPARE(ignored, QStringList({"finetune-batch", "from-a-newer-dpmix", "reproducible", "steps"}));
    }
};

QTEST_GUILESS_MAIN(TstWorkingSettingsJson)
#include "tst_working_settings_json.moc"
