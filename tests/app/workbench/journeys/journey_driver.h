#pragma once
// A simulated user for the workbench's journeys: every action goes through QTest's mouse and key
// events on the real widgets, found by their object name or visible text, and is counted (a click,
// one key sequence typed into one field, a key press; a menu pick is its clicks). Modal dialogs
// that block in exec() (file dialogs, message boxes, the ε sweep dialog) are answered by handlers
// queued before the click that opens them. Screenshots (QWidget::grab) go to
// <dir>/<journey>-<NN>-<step>.png when a directory is given.
#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>

#include <deque>
#include <functional>

class QAbstractButton;
class QComboBox;
class QListWidget;
class QMainWindow;
class QTabWidget;
class QWidget;

namespace dpmix::workbench::journeys {

/// Answers the modal dialogs of a journey in order: each queued handler takes the next modal
/// widget that appears (the application's active modal widget, polled every 20 ms).
class ModalScript : public QObject {
    Q_OBJECT

public:
    using Handler = std::function<void(QWidget*)>;
    explicit ModalScript(QObject* parent = nullptr);
    void then(Handler handler);
    bool done() const { return handlers_.empty(); }
    int answered() const { return answered_; }

private:
    void poll();
    std::deque<Handler> handlers_;
    QList<QPointer<QWidget>> seen_;
    int answered_ = 0;
};

/// One journey: its action count, its clock, its screenshots and the steps it took.
class Journey {
public:
    Journey(QString name, QString shotDir);

    // Actions (each counted).
    void click(QWidget* widget);  // the widget's centre
    void clickAt(QWidget* widget, const QPoint& position);
    void type(QWidget* field, const QString& text);         // one key sequence into one field
    void replaceText(QWidget* field, const QString& text);  // click, select all + type (2 actions)
    void key(QWidget* widget, int key, Qt::KeyboardModifiers modifiers = Qt::NoModifier);
    /// Menu bar title, then the item (texts without '&' and '…'); false when either is missing
    /// or disabled. Counts 2 clicks.
    bool pickMenu(QMainWindow* window, const QString& menu, const QString& item);
    /// Opens the combo box and clicks the item whose text starts with `text` (2 clicks).
    bool pickCombo(QComboBox* box, const QString& text);
    /// Clicks the tab titled `title` (1 click); false when there is none.
    bool clickTab(QTabWidget* tabs, const QString& title);
    /// Ticks the checkable row whose text is `text` by clicking its check box (1 click).
    bool tick(QListWidget* list, const QString& text);
    /// A modal file dialog: types the path into its file-name field and presses Enter (2 actions).
    void answerFileDialog(QWidget* dialog, const QString& path);

    /// Saves `widget` as <dir>/<journey>-<NN>-<step>.png (nothing when no directory was given).
    void shot(QWidget* widget, const QString& step);
    /// A step of the journey, as written in docs/WORKBENCH.md's list (also logged).
    void note(const QString& step);

    int actions() const { return actions_; }
    double seconds() const { return clock_.elapsed() / 1000.0; }
    double waitedSeconds() const { return waitedMs_ / 1000.0; }
    /// Adds time spent waiting for jobs or previews (reported next to the total).
    void addWaited(qint64 ms) { waitedMs_ += ms; }
    const QString& name() const { return name_; }
    const QStringList& steps() const { return steps_; }
    const QStringList& screenshots() const { return shots_; }

private:
    void count(const QString& what);
    QString name_;
    QString dir_;
    int actions_ = 0;
    int shotNumber_ = 0;
    qint64 waitedMs_ = 0;
    QElapsedTimer clock_;
    QStringList steps_, shots_;
};

/// Text without mnemonics and trailing ellipsis ("Export &report…" → "Export report").
QString plainText(QString text);

/// Waits until `done` holds (processing events), at most `timeoutMs`; adds the wait to the journey.
bool waitFor(Journey& journey, const std::function<bool()>& done, int timeoutMs);

/// Writes one journey's row of <dir>/summary.md (the table docs/WORKBENCH.md quotes), replacing
/// its earlier row and keeping the other journeys' rows.
void appendSummary(const QString& dir, const Journey& journey);

}  // namespace dpmix::workbench::journeys
