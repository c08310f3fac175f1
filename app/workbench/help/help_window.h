#pragma once
// Help ▸ Manual (F1) and Help ▸ Glossary: the bundled docs read as Markdown in a browser window,
// opened at the section that explains the current view. Links between the documents work; the
// documents list switches between them.
#include "app/workbench/help/help_topics.h"

#include <QWidget>

class QListWidget;
class QTextBrowser;

namespace dpmix::workbench {

class HelpWindow : public QWidget {
    Q_OBJECT

public:
    explicit HelpWindow(QWidget* parent = nullptr);

    /// Shows `topic` (loads its document, scrolls to its heading) and raises the window. Returns
    /// false when the document or the heading is not in the manual (it then shows the top).
    bool showTopic(const HelpTopic& topic);

    QString currentDocument() const { return document_; }
    /// The text of the block the view was scrolled to (the heading, when found).
    QString currentHeading() const;
    QTextBrowser* browser() const { return browser_; }

private:
    bool scrollToHeading(const QString& heading);
    QListWidget* documents_;
    QTextBrowser* browser_;
    QString document_;
};

}  // namespace dpmix::workbench
