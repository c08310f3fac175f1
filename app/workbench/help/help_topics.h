#pragma once
// Which part of the bundled manual answers "what am I looking at?" (F1): the documents compiled
// into the program (resources/workbench.qrc, prefix /dpmix/manual) and, for each view of the
// window, the document and the heading of its section.
#include <QString>
#include <QStringList>

namespace dpmix::workbench {

struct HelpTopic {
    QString document;  // file name in the manual, e.g. "WORKBENCH.md"
    QString heading;   // the section's heading text, e.g. "Result views (central tabs)"; empty: the top

    bool operator==(const HelpTopic&) const = default;
};

/// The manual's documents, in the order Help lists them, with a title for each.
struct HelpDocument {
    QString file;
    QString title;
};
QList<HelpDocument> manualDocuments();

/// "qrc:/dpmix/manual/<document>".
QString manualUrl(const QString& document);

/// The topic for a view by its object name ("privatesetView", "ledgerView", …; the calculator
/// and anything unknown get the window's overview).
HelpTopic helpTopicFor(const QString& viewObjectName);

}  // namespace dpmix::workbench
