// The log-scale ε control: slider positions are equal per decade; typing and dragging both
// report user edits; programmatic sets do not.
#include "widgets/log_slider_spin_box.h"

#include <QDoubleSpinBox>
#include <QSignalSpy>
#include <QSlider>
#include <QtTest>

using dpmix::widgets::LogSliderSpinBox;

class TstLogSliderSpinBox : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void positionsAreEqualPerDecade() {
        LogSliderSpinBox box(0.01, 100.0, 3);  // four decades over 1000 steps: 250 per decade
        QCOMPARE(box.positionFor(0.01), 0);
        QCOMPARE(box.positionFor(0.1), 250);
        QCOMPARE(box.positionFor(1.0), 500);
        QCOMPARE(box.positionFor(100.0), 1000);
        QCOMPARE(box.positionFor(1e9), 1000);  // clamped
        QVERIFY(qAbs(box.valueAt(750) - 10.0) < 1e-12);
    }

    void programmaticSetDoesNotEmit() {
        LogSliderSpinBox box(0.01, 100.0, 3);
        QSignalSpy spy(&box, &LogSliderSpinBox::valueEdited);
        box.setValue(5.0);
        QCOMPARE(box.value(), 5.0);
        QCOMPARE(box.slider()->value(), box.positionFor(5.0));
        QCOMPARE(spy.count(), 0);
    }

    void typingAndDraggingEmit() {
        LogSliderSpinBox box(0.01, 100.0, 3);
        box.show();
        QSignalSpy spy(&box, &LogSliderSpinBox::valueEdited);
        box.spinBox()->selectAll();
        QTest::keyClicks(box.spinBox(), "10");
        QVERIFY(spy.count() >= 1);
        QCOMPARE(spy.last().at(0).toDouble(), 10.0);
        QCOMPARE(box.slider()->value(), 750);
        box.slider()->setValue(250);  // as a drag would
        QCOMPARE(spy.last().at(0).toDouble(), 0.1);
        QCOMPARE(box.value(), 0.1);
    }
};

QTEST_MAIN(TstLogSliderSpinBox)
#include "tst_log_slider_spin_box.moc"
