// The parameter panel reports edits as (field, value), shows values without echoing them back,
// and shows messages in place.
#include "widgets/log_slider_spin_box.h"
#include "widgets/parameter_panel.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QtTest>

using namespace dpmix::widgets;

class TstParameterPanel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void showsDefaultsOfThePaper() {
        ParameterPanel panel;
        QCOMPARE(panel.epsilonEditor()->value(), 2.0);
        QCOMPARE(panel.deltaEditor()->text(), QString("1e-5"));
        QCOMPARE(panel.rhoEditor()->value(), 0.1);
        QCOMPARE(panel.clipEditor()->value(), 13.0);
        QCOMPARE(panel.batchEditor()->value(), 1000);
        QCOMPARE(panel.learningRateEditor()->value(), 1.0);
        QCOMPARE(panel.stepsEditor()->value(), 100);
    }

    void editsAreReportedAndSetValuesIsSilent() {
        ParameterPanel panel;
        panel.show();
        QSignalSpy spy(&panel, &ParameterPanel::fieldEdited);
        RunParameters v;
        v.epsilon = 5.0;
        v.delta = "1e-6";
        v.steps = 200;
        panel.setValues(v);
        QCOMPARE(spy.count(), 0);
        QCOMPARE(panel.stepsEditor()->value(), 200);

        panel.deltaEditor()->selectAll();
        QTest::keyClicks(panel.deltaEditor(), "0.5");
        QCOMPARE(spy.last().at(0).value<ParameterField>(), ParameterField::Delta);
        QCOMPARE(spy.last().at(1).toString(), QString("0.5"));

        panel.rhoSlider()->setValue(30);
        QCOMPARE(spy.last().at(0).value<ParameterField>(), ParameterField::Rho);
        QCOMPARE(spy.last().at(1).toDouble(), 0.3);
    }

    void aStudyWithoutMixtureHidesItsSettings() {
        ParameterPanel panel;
        QVERIFY(panel.mixtureShown());
        QVERIFY(panel.advancedGroup()->isVisibleTo(&panel) && panel.rhoEditor()->isVisibleTo(&panel));
        panel.setMixtureShown(false);  // a PSG study: no ρ, no mixture stage, no Run DP-MixMin
        QVERIFY(!panel.advancedGroup()->isVisibleTo(&panel));
        QVERIFY(!panel.rhoEditor()->isVisibleTo(&panel));
        QVERIFY(!panel.runButton()->isVisibleTo(&panel));
        QVERIFY(panel.epsilonEditor()->isVisibleTo(&panel) && panel.deltaEditor()->isVisibleTo(&panel));
        panel.setMixtureShown(true);
        QVERIFY(panel.advancedGroup()->isVisibleTo(&panel) && panel.rhoEditor()->isVisibleTo(&panel));
        QVERIFY(panel.runButton()->isVisibleTo(&panel));
    }

    void everyFieldExplainsItselfOnItsLabel() {
        // Pointing at a label (tooltip) or asking What's This gives the plain-language meaning.
        ParameterPanel panel;
        for (int f = static_cast<int>(ParameterField::Epsilon); f <= static_cast<int>(ParameterField::Steps); ++f) {
            QWidget* editor = panel.editorFor(static_cast<ParameterField>(f));
            QVERIFY2(!editor->whatsThis().isEmpty(), qPrintable(QString::number(f)));
            const QLabel* label = nullptr;
            for (QLabel* l : panel.findChildren<QLabel*>())
                if (l->buddy() && (l->buddy() == editor || l->buddy()->isAncestorOf(editor))) label = l;
            QVERIFY2(label, qPrintable(QString::number(f)));
            QCOMPARE(label->whatsThis(), editor->whatsThis());
            QCOMPARE(label->toolTip(), editor->whatsThis());
        }
    }

    void aStaleSummarySaysComputing() {
        ParameterPanel panel;
        auto* note = panel.findChild<QLabel*>("computingNote");
        QVERIFY(note && !note->isVisibleTo(&panel));
        panel.setPrivacySummary("ε = 1", true);
        panel.setComputing(true);
        QVERIFY(panel.isComputing() && note->isVisibleTo(&panel));
        QVERIFY(!panel.findChild<QLabel*>("privacySummary")->isEnabled());  // greyed: it is stale
        panel.setPrivacySummary("ε = 2", true);
        panel.setComputing(false);
        QVERIFY(!panel.isComputing() && !note->isVisibleTo(&panel));
        QVERIFY(panel.findChild<QLabel*>("privacySummary")->isEnabled());
    }

    void advancedFieldsExplainThemselves() {
        ParameterPanel panel;
        // Each advanced hyper-parameter says what it does and the paper's default.
        for (QWidget* w :
             QList<QWidget*>{panel.clipEditor(), panel.batchEditor(), panel.learningRateEditor(), panel.stepsEditor()})
            QVERIFY2(w->toolTip().contains("default", Qt::CaseInsensitive), qPrintable(w->toolTip()));
        QVERIFY(panel.clipEditor()->toolTip().contains("13"));
        QVERIFY(panel.batchEditor()->toolTip().contains("1000"));
    }

    void messagesShowInPlace() {
        ParameterPanel panel;
        panel.setMessages({{ParameterField::Delta, MessageSeverity::Error, "delta = 2 is out of range"},
                           {ParameterField::Delta, MessageSeverity::Warning, "and a warning"}});
        QCOMPARE(panel.messageFor(ParameterField::Delta), QString("delta = 2 is out of range\nand a warning"));
        QCOMPARE(panel.messageFor(ParameterField::Epsilon), QString());
        QVERIFY(panel.editorFor(ParameterField::Delta)->property("invalid").toBool());
        QVERIFY(panel.editorFor(ParameterField::Delta)->palette().color(QPalette::Base) !=
                panel.editorFor(ParameterField::Seeds)->palette().color(QPalette::Base));
        QVERIFY(!panel.editorFor(ParameterField::Seeds)->property("invalid").toBool());
        panel.setMessages({});
        QVERIFY(!panel.editorFor(ParameterField::Delta)->property("invalid").toBool());
        QCOMPARE(panel.messageFor(ParameterField::Delta), QString());
        panel.setRunEnabled(false);
        QVERIFY(!panel.runButton()->isEnabled());
    }
};

QTEST_MAIN(TstParameterPanel)
#include "tst_parameter_panel.moc"
