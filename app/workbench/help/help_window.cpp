#include "app/workbench/help/help_window.h"

#include <QAbstractTextDocumentLayout>
#include <QFile>
#include <QHBoxLayout>
#include <QListWidget>
#include <QScrollBar>
#include <QShortcut>
#include <QSplitter>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTextDocument>
#include <QTimer>
#include <QUrl>

namespace dpmix::workbench {

HelpWindow::HelpWindow(QWidget* parent)
    : QWidget(parent, Qt::Window), documents_(new QListWidget), browser_(new QTextBrowser) {
    setObjectName("helpWindow");
    setWindowTitle(tr("dpmix manual"));
    resize(900, 700);
    for (const HelpDocument& d : manualDocuments()) {
        auto* item = new QListWidgetItem(d.title, documents_);
        item->setData(Qt::UserRole, d.file);
    }
    browser_->setOpenLinks(true);
    browser_->setOpenExternalLinks(true);
    auto* splitter = new QSplitter(this);
    splitter->addWidget(documents_);
    splitter->addWidget(browser_);
    splitter->setSizes({180, 720});
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter);
    // Closed as any document window is: Esc or Ctrl+W (Cmd+W).
    for (const QKeySequence& keys : {QKeySequence(QKeySequence::Close), QKeySequence(Qt::Key_Escape)}) {
        auto* close = new QShortcut(keys, this);
        close->setContext(Qt::WindowShortcut);
        connect(close, &QShortcut::activated, this, &QWidget::close);
    }
    connect(documents_, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
        showTopic({item->data(Qt::UserRole).toString(), {}});
    });
    connect(documents_, &QListWidget::itemClicked, this, [this](QListWidgetItem* item) {
        showTopic({item->data(Qt::UserRole).toString(), {}});
    });
}

bool HelpWindow::showTopic(const HelpTopic& topic) {
    const bool known = QFile::exists(QStringLiteral(":/dpmix/manual/") + topic.document);
    document_ = known ? topic.document : QStringLiteral("MANUAL.md");
    browser_->setSource(QUrl(manualUrl(document_)), QTextDocument::MarkdownResource);
    for (int i = 0; i < documents_->count(); ++i)
        if (documents_->item(i)->data(Qt::UserRole).toString() == document_) documents_->setCurrentRow(i);
    const bool found = known && (topic.heading.isEmpty() || scrollToHeading(topic.heading));
    if (!found || topic.heading.isEmpty()) browser_->verticalScrollBar()->setValue(0);
    show();
    raise();
    activateWindow();
    return found;
}

bool HelpWindow::scrollToHeading(const QString& heading) {
    // Markdown headings become blocks with a heading level: find the first whose text starts
    // with the heading (a section's heading may go on in parentheses or after a colon).
    for (QTextBlock block = browser_->document()->begin(); block.isValid(); block = block.next()) {
        if (block.blockFormat().headingLevel() == 0 || !block.text().startsWith(heading)) continue;
        browser_->setTextCursor(QTextCursor(block));
        // The heading at the top of the view, not just somewhere visible: once the browser has
        // laid the document out for its width (after the window is shown).
        QTimer::singleShot(0, browser_, [browser = browser_, number = block.blockNumber()] {
            const QTextBlock target = browser->document()->findBlockByNumber(number);
            const QRectF at = browser->document()->documentLayout()->blockBoundingRect(target);
            browser->verticalScrollBar()->setValue(static_cast<int>(at.top()));
        });
        return true;
    }
    return false;
}

QString HelpWindow::currentHeading() const { return browser_->textCursor().block().text(); }

}  // namespace dpmix::workbench
