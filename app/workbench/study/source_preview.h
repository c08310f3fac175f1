#pragma once
// What the registration dialog shows about a source before it is registered, and the seam that
// produces it. The engine adapter (engine_source_preview.h) loads the source with the data
// layer; dialog tests plug in fakes.
#include "engine/core/cancellation.h"
#include "engine/core/result.h"
#include "engine/data/source_spec.h"
#include "engine/project/project_records.h"

#include <QImage>
#include <QList>
#include <QString>

namespace dpmix::workbench {

struct TextSnippet {
    QString domain, user, text;  // text: the start of the document, whitespace collapsed
};

struct SourcePreview {
    project::SourceFacts facts;   // exactly what the project file will record (count, labels, hash)
    QList<QImage> thumbnails;     // images: the first examples (at most kPreviewExamples)
    QStringList thumbnailLabels;  // one per thumbnail: its positive labels, "|"-joined
    QList<TextSnippet> snippets;  // text: the first documents (at most kPreviewExamples)
    QString userColumn;           // the column naming the users ("Patient"), when the spec names one
    // A DICOM folder (loader dicom): what its files hold, read before the source can load — the
    // counts of patients, studies, series and images, the tags found, and each unreadable file
    // with its reason. Never a header value (docs/PRIVACY.md, "DICOM sources").
    QStringList dicomOverview;
    QStringList dicomErrors;  // "path: reason", one per file
    QString loadError;        // the source cannot be registered yet (e.g. no labels chosen): why
};

/// How many examples a preview shows.
inline constexpr int kPreviewExamples = 32;

class SourcePreviewer {
public:
    virtual ~SourcePreviewer() = default;
    /// Loads the source once. Called off the GUI thread (must be thread-safe); polls `cancel`
    /// and returns an error (or throws dpmix::Cancelled) once it is set. Errors name the file,
    /// option and value, as the data layer words them.
    virtual Result<SourcePreview> preview(const data::SourceSpec& spec, const CancellationToken& cancel) const = 0;
};

/// "12 345" style grouping (thin space), for counts in labels.
QString groupedNumber(long long n);
/// "1 class", "10 classes": the grouped count and the right noun.
QString countOf(long long n, const QString& one, const QString& many);

}  // namespace dpmix::workbench
