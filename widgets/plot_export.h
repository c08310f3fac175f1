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
    int width = 800;    // logical pixels / points
    int height = 500;
    double pngScale = 2.0;
};

/// Writes `plot` (or `table`, for CSV) to `path`. Returns an empty string on success, else
/// a message naming the file and what went wrong.
QString exportPlot(QCustomPlot& plot, const PlotTable& table, const QString& path, ExportFormat format,
                   const ExportSize& size = {});

}  // namespace dpmix::widgets
