// Undo of parameter edits: one command per change, consecutive edits of one field merged.
#include "app/workbench/parameters/parameter_document.h"

#include <QSignalSpy>
#include <QUndoStack>
#include <QtTest>

using dpmix::widgets::ParameterField;
using dpmix::workbench::ParameterDocument;

class TstParameterDocument : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void consecutiveEditsOfOneFieldAreOneUndoStep() {
        ParameterDocument doc;
        doc.edit(ParameterField::Epsilon, 2.5);
        doc.edit(ParameterField::Epsilon, 3.0);
        QCOMPARE(doc.undoStack()->count(), 1);
        QCOMPARE(doc.values().epsilon, 3.0);
        doc.undoStack()->undo();
        QCOMPARE(doc.values().epsilon, 2.0);
        doc.undoStack()->redo();
        QCOMPARE(doc.values().epsilon, 3.0);
    }

    void differentFieldsAreSeparateSteps() {
        ParameterDocument doc;
        doc.edit(ParameterField::Epsilon, 5.0);
        doc.edit(ParameterField::Delta, QString("1e-6"));
        doc.edit(ParameterField::Epsilon, 1.0);  // not consecutive with the first ε edit
        QCOMPARE(doc.undoStack()->count(), 3);
        doc.undoStack()->undo();
        QCOMPARE(doc.values().epsilon, 5.0);
        doc.undoStack()->undo();
        QCOMPARE(doc.values().delta, QString("1e-5"));
        doc.undoStack()->undo();
        QCOMPARE(doc.values().epsilon, 2.0);
        QVERIFY(doc.undoStack()->isClean());
    }

    void editingBackToTheOldValueLeavesNothingToUndo() {
        ParameterDocument doc;
        doc.edit(ParameterField::Steps, 150);
        doc.edit(ParameterField::Steps, 100);
        QCOMPARE(doc.undoStack()->count(), 0);
        QVERIFY(doc.undoStack()->isClean());
        QCOMPARE(doc.values().steps, 100);
    }

    void unchangedOrMistypedValuesPushNothing() {
        ParameterDocument doc;
        doc.edit(ParameterField::Epsilon, 2.0);
        doc.edit(ParameterField::Composition, 7);  // not a composition mode
        QCOMPARE(doc.undoStack()->count(), 0);
    }

    void theAccountantChoiceIsUndoable() {
        ParameterDocument doc;
        QVERIFY(doc.values().accountant == dpmix::widgets::AccountantChoice::Prv);  // a new study's default
        doc.edit(ParameterField::Accountant, static_cast<int>(dpmix::widgets::AccountantChoice::Rdp));
        QCOMPARE(doc.undoStack()->count(), 1);
        QVERIFY(doc.values().accountant == dpmix::widgets::AccountantChoice::Rdp);
        doc.undoStack()->undo();
        QVERIFY(doc.values().accountant == dpmix::widgets::AccountantChoice::Prv);
        doc.undoStack()->redo();
        QVERIFY(doc.values().accountant == dpmix::widgets::AccountantChoice::Rdp);
        doc.edit(ParameterField::Accountant, 5);  // not an accountant
        QCOMPARE(doc.undoStack()->count(), 1);
    }

    void noMergeAcrossSave() {
        ParameterDocument doc;
        doc.edit(ParameterField::Epsilon, 3.0);
        doc.undoStack()->setClean();
        doc.edit(ParameterField::Epsilon, 4.0);
        QCOMPARE(doc.undoStack()->count(), 2);
        doc.undoStack()->undo();
        QVERIFY(doc.undoStack()->isClean());
        QCOMPARE(doc.values().epsilon, 3.0);
    }

    void resetClearsHistory() {
        ParameterDocument doc;
        QSignalSpy changed(&doc, &ParameterDocument::valuesChanged);
        doc.edit(ParameterField::Rho, 0.3);
        dpmix::widgets::RunParameters v;
        v.rho = 0.2;
        doc.reset(v);
        QCOMPARE(doc.undoStack()->count(), 0);
        QVERIFY(doc.undoStack()->isClean());
        QCOMPARE(doc.values().rho, 0.2);
        QCOMPARE(changed.count(), 2);
    }
};

QTEST_GUILESS_MAIN(TstParameterDocument)
#include "tst_parameter_document.moc"
