#pragma once
// Writing a chart to disk: PNG (2x for hi-DPI), PDF and SVG (vector), CSV (the plotted numbers).
#include "widgets/plot_table.h"

#include <QString>

class QCustomPlot;

namespace dpmix::widgets {

enum class ExportFormat { Png, Pdf, Svg, Csv };

/// The format a file name asks for by its suffix (case-insensitive); false if none matches.
bool exportFormatFromPath(const QString& path, ExportFormat& out);

/// `path` with the format's suffix appended unless it already ends in it (case-insensitive):
/// "lambda" → "lambda.png", "a.PNG" stays, "plot.v2" → "plot.v2.png".
QString withFormatSuffix(const QString& path, ExportFormat format);

/// File-dialog filter for one format, e.g. "PNG image (*.png)".
QString exportFilter(ExportFormat format);

struct ExportSize {
    int width = 800;  // logical pixels / points
    int height = 500;
    double pngScale = 2.0;
};

/// Writes `plot` (or `table`, for CSV) to `path`. Returns an empty string on success, else
/// a message naming the file and what went wrong. A non-empty `trustLabel` — which side of the
/// trust boundary the numbers are on, e.g. "Keep inside the trust boundary: analyst-only results
/// (not a DP release)" — travels with the file: the CSV's first line ("# trust boundary: …"), a
/// line of text under the image (PNG, PDF, SVG) and the SVG's description, so an exported figure
/// never looks like a release it is not (docs/PRIVACY.md, "Trust boundary").
QString exportPlot(QCustomPlot& plot, const PlotTable& table, const QString& path, ExportFormat format,
                   const ExportSize& size = {}, const QString& trustLabel = {});

/// The CSV an export writes: `table`'s CSV, after the trust-boundary line when a label is given.
QString csvWithTrustLabel(const PlotTable& table, const QString& trustLabel);

/// The window property a chart reads its export's trust label from (set by the workbench).
inline constexpr const char* kTrustLabelProperty = "dpmixTrustLabel";

}  // namespace dpmix::widgets
