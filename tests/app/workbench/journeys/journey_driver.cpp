#include "tests/app/workbench/journeys/journey_driver.h"

#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QLineEdit>
#include <QListWidget>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QStyle>
#include <QStyleOptionButton>
#include <QTabBar>
#include <QTabWidget>
#include <QTimer>
#include <QtTest>

namespace dpmix::workbench::journeys {

QString plainText(QString text) {
    text.remove(QLatin1Char('&'));
    text.remove(QChar(0x2026));  // …
    if (text.endsWith(QStringLiteral("..."))) text.chop(3);
    return text.trimmed();
}

ModalScript::ModalScript(QObject* parent) : QObject(parent) {
    auto* timer = new QTimer(this);
    timer->setInterval(20);
    connect(timer, &QTimer::timeout, this, &ModalScript::poll);
    timer->start();
}

void ModalScript::then(Handler handler) { handlers_.push_back(std::move(handler)); }

void ModalScript::poll() {
    if (handlers_.empty()) return;
    QWidget* modal = QApplication::activeModalWidget();
    if (!modal || !modal->isVisible()) return;
    for (const auto& s : seen_)
        if (s == modal) return;  // answered already (its handler may still be running)
    seen_ << modal;
    Handler handler = std::move(handlers_.front());
    handlers_.pop_front();
    ++answered_;
    QTest::qWait(150);  // the dialog lays itself out and paints, as a user would see it
    handler(modal);     // may open and answer further modals: poll() re-enters for those
}

Journey::Journey(QString name, QString shotDir) : name_(std::move(name)), dir_(std::move(shotDir)) {
    if (!dir_.isEmpty()) QDir().mkpath(dir_);
    clock_.start();
}

void Journey::count(const QString& what) {
    ++actions_;
    qInfo("[%s] action %d: %s", qPrintable(name_), actions_, qPrintable(what));
}

void Journey::click(QWidget* widget) { clickAt(widget, widget->rect().center()); }

void Journey::clickAt(QWidget* widget, const QPoint& position) {
    count(QStringLiteral("click %1")
              .arg(widget->objectName().isEmpty() ? QString::fromLatin1(widget->metaObject()->className())
                                                  : widget->objectName()));
    QTest::mouseClick(widget, Qt::LeftButton, Qt::NoModifier, position);
    QTest::qWait(60);
}

void Journey::type(QWidget* field, const QString& text) {
    count(QStringLiteral("type \"%1\"").arg(text));
    QTest::keyClicks(field, text, Qt::NoModifier, 5);
    QTest::qWait(60);
}

void Journey::replaceText(QWidget* field, const QString& text) {
    click(field);
    count(QStringLiteral("select all, type \"%1\"").arg(text));
    QTest::keyClick(field, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(field, text, Qt::NoModifier, 5);
    QTest::qWait(60);
}

void Journey::key(QWidget* widget, int key, Qt::KeyboardModifiers modifiers) {
    count(QStringLiteral("key %1").arg(QKeySequence(key | modifiers).toString()));
    QTest::keyClick(widget, static_cast<Qt::Key>(key), modifiers);
    QTest::qWait(60);
}

bool Journey::pickMenu(QMainWindow* window, const QString& menuTitle, const QString& item) {
    QMenuBar* bar = window->menuBar();
    QMenu* menu = nullptr;
    for (QAction* a : bar->actions())
        if (a->menu() && plainText(a->text()) == menuTitle) menu = a->menu();
    if (!menu) return false;
    QAction* target = nullptr;
    for (QAction* a : menu->actions())
        if (!a->isSeparator() && plainText(a->text()) == item) target = a;
    if (!target || !target->isEnabled()) {
        qWarning("[%s] menu %s ▸ %s: %s", qPrintable(name_), qPrintable(menuTitle), qPrintable(item),
                 target ? "disabled" : "missing");
        return false;
    }
    count(QStringLiteral("menu %1").arg(menuTitle));
    QTest::mouseClick(bar, Qt::LeftButton, Qt::NoModifier, bar->actionGeometry(menu->menuAction()).center());
    if (!QTest::qWaitFor([menu] { return menu->isVisible(); }, 3000)) return false;
    QTest::qWait(80);
    count(QStringLiteral("menu item %1").arg(item));
    // A modal dialog the item opens runs inside this click; the ModalScript answers it.
    QTest::mouseClick(menu, Qt::LeftButton, Qt::NoModifier, menu->actionGeometry(target).center());
    QTest::qWait(60);
    return true;
}

bool Journey::pickCombo(QComboBox* box, const QString& text) {
    int index = -1;
    for (int i = 0; i < box->count(); ++i)
        if (box->itemText(i).startsWith(text)) index = i;
    if (index < 0) return false;
    click(box);  // opens the popup list
    QAbstractItemView* view = box->view();
    if (!QTest::qWaitFor([view] { return view->isVisible(); }, 3000)) return false;
    // The popup ignores a release within a double-click interval of opening (a press-drag-release
    // pick); a user's second click comes later.
    QTest::qWait(QApplication::doubleClickInterval() + 100);
    const QRect rect = view->visualRect(view->model()->index(index, box->modelColumn()));
    count(QStringLiteral("pick \"%1\"").arg(box->itemText(index)));
    QTest::mouseClick(view->viewport(), Qt::LeftButton, Qt::NoModifier, rect.center());
    QTest::qWait(80);
    return box->currentIndex() == index;
}

bool Journey::clickTab(QTabWidget* tabs, const QString& title) {
    for (int i = 0; i < tabs->count(); ++i)
        if (plainText(tabs->tabText(i)) == title) {
            QTabBar* bar = tabs->tabBar();
            count(QStringLiteral("tab %1").arg(title));
            QTest::mouseClick(bar, Qt::LeftButton, Qt::NoModifier, bar->tabRect(i).center());
            QTest::qWait(120);
            return tabs->currentIndex() == i;
        }
    return false;
}

bool Journey::tick(QListWidget* list, const QString& text) {
    for (int i = 0; i < list->count(); ++i) {
        QListWidgetItem* item = list->item(i);
        if (item->text() != text) continue;
        list->scrollToItem(item);
        const Qt::CheckState before = item->checkState();
        // The check box sits at the row's left edge, after the focus-frame margin.
        const QRect row = list->visualItemRect(item);
        const int margin = list->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, list) + 1;
        const int indicator = list->style()->pixelMetric(QStyle::PM_IndicatorWidth, nullptr, list);
        count(QStringLiteral("tick \"%1\"").arg(text));
        QTest::mouseClick(list->viewport(), Qt::LeftButton, Qt::NoModifier,
                          QPoint(row.left() + margin + indicator / 2, row.center().y()));
        QTest::qWait(40);
        return item->checkState() != before;
    }
    return false;
}

void Journey::answerFileDialog(QWidget* dialog, const QString& path) {
    auto* edit = dialog->findChild<QLineEdit*>(QStringLiteral("fileNameEdit"));
    if (!edit) {
        qWarning("[%s] the file dialog has no file-name field", qPrintable(name_));
        return;
    }
    // Save proposes a name (the study's, in the last project folder): replaced as a user would.
    if (!edit->text().isEmpty()) key(edit, Qt::Key_A, Qt::ControlModifier);
    type(edit, path);
    key(edit, Qt::Key_Return);
    // A completion popup that was open takes the first Return; the dialog then needs another.
    if (!QTest::qWaitFor([dialog] { return !dialog->isVisible(); }, 500) && dialog->isVisible())
        key(edit, Qt::Key_Return);
}

void Journey::shot(QWidget* widget, const QString& step) {
    ++shotNumber_;
    if (dir_.isEmpty()) return;
    QTest::qWait(100);  // pending layouts and repaints
    const QString file =
        QStringLiteral("%1/%2-%3-%4.png").arg(dir_, name_).arg(shotNumber_, 2, 10, QLatin1Char('0')).arg(step);
    // A palette of 256 colours keeps a window's picture near 50 KB (the UI has few colours).
    const QImage image =
        widget->grab().toImage().convertToFormat(QImage::Format_Indexed8, Qt::ThresholdDither | Qt::AvoidDither);
    if (!image.save(file, "PNG", 0)) qWarning("cannot write %s", qPrintable(file));
    shots_ << QFileInfo(file).fileName();
}

void Journey::note(const QString& step) {
    steps_ << step;
    qInfo("[%s] step: %s (%d actions so far, %.1f s)", qPrintable(name_), qPrintable(step), actions_, seconds());
}

bool waitFor(Journey& journey, const std::function<bool()>& done, int timeoutMs) {
    QElapsedTimer waited;
    waited.start();
    const bool ok = QTest::qWaitFor(done, timeoutMs);
    journey.addWaited(waited.elapsed());
    return ok;
}

void appendSummary(const QString& dir, const Journey& journey) {
    if (dir.isEmpty()) return;
    // The journey's row replaces its earlier one; the other journeys' rows stay, so walking one
    // journey again (JOURNEYS=clinician) keeps the table whole.
    QFile file(dir + QStringLiteral("/summary.md"));
    QStringList rows;
    if (file.open(QIODevice::ReadOnly | QIODevice::Text)) {
        const QString prefix = QStringLiteral("| ") + journey.name() + QStringLiteral(" |");
        for (const QString& line : QString::fromUtf8(file.readAll()).split('\n', Qt::SkipEmptyParts))
            if (line.startsWith(QStringLiteral("| ")) && !line.startsWith(QStringLiteral("| journey |")) &&
                !line.startsWith(prefix))
                rows << line;
        file.close();
    }
    rows << QStringLiteral("| %1 | %2 | %3 | %4 | %5 |")
                .arg(journey.name())
                .arg(journey.actions())
                .arg(QString::number(journey.seconds(), 'f', 1), QString::number(journey.waitedSeconds(), 'f', 1))
                .arg(journey.screenshots().size());
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Text)) return;
    QTextStream out(&file);
    out << "| journey | user actions | wall time (s) | of which waiting for jobs/previews (s) | screenshots |\n"
           "|---|---|---|---|---|\n";
    for (const QString& row : rows) out << row << '\n';
}

}  // namespace dpmix::workbench::journeys
