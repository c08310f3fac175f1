#pragma once
// File ▸ Export report…: one self-contained HTML file (plots inlined as base64 PNG) and,
// optionally, a PDF of the same document next to it, for a reviewer: the study's spec, its
// data sources with their content hashes, every run with its metrics, its privacy ledger and
// the Verify result (every ε recomputed, the hash chain rechecked), the plots, and the
// software versions. A bad output path is refused before anything is written.
#include "app/workbench/help/about_info.h"
#include "app/workbench/project/project_snapshot.h"

#include <QImage>
#include <QList>
#include <QString>

namespace dpmix::workbench {

struct ReportPlot {
    QString title;
    QImage image;
};

struct ReportInput {
    ProjectSnapshot project;
    AboutInfo versions;
    QList<ReportPlot> plots;
    QString generatedAt;  // UTC ISO 8601; filled in by writeReport when empty
};

/// How the HTML refers to the plots: inlined data URIs (the .html file), or resource names
/// "plot-N.png" that the PDF's QTextDocument is given.
enum class PlotImages { Inline, Resources };

/// The report as HTML (the ledger checks and the hash chain are run here).
QString reportHtml(const ReportInput& input, PlotImages images = PlotImages::Inline);

/// The PDF written next to `htmlPath` (same name, .pdf).
QString pdfPathFor(const QString& htmlPath);

/// Checks the output path (an .html/.htm file in an existing, writable folder, not a folder
/// itself); the message names the path and what is expected. Empty when it is fine.
QString checkReportPath(const QString& htmlPath);

/// Writes the HTML (and the PDF when `withPdf`); returns an empty string, or the reason
/// nothing was written (the files are replaced only when everything succeeded).
QString writeReport(const ReportInput& input, const QString& htmlPath, bool withPdf);

}  // namespace dpmix::workbench
