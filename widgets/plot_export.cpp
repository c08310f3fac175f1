#include "widgets/plot_export.h"

#include "widgets/qcp.h"

#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QSvgGenerator>

namespace dpmix::widgets {

bool exportFormatFromPath(const QString& path, ExportFormat& out) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == "png") out = ExportFormat::Png;
    else if (suffix == "pdf") out = ExportFormat::Pdf;
    else if (suffix == "svg") out = ExportFormat::Svg;
    else if (suffix == "csv") out = ExportFormat::Csv;
    else return false;
    return true;
}

QString withFormatSuffix(const QString& path, ExportFormat format) {
    ExportFormat asked{};
    if (exportFormatFromPath(path, asked) && asked == format) return path;
    static const char* const suffixes[] = {"png", "pdf", "svg", "csv"};
    return path + QLatin1Char('.') + QLatin1String(suffixes[static_cast<int>(format)]);
}

QString exportFilter(ExportFormat format) {
    switch (format) {
    case ExportFormat::Png: return QStringLiteral("PNG image, 2x (*.png)");
    case ExportFormat::Pdf: return QStringLiteral("PDF document (*.pdf)");
    case ExportFormat::Svg: return QStringLiteral("SVG drawing (*.svg)");
    case ExportFormat::Csv: return QStringLiteral("CSV of the plotted numbers (*.csv)");
    }
    return {};
}

namespace {

QString writeCsv(const PlotTable& table, const QString& path) {
    // QSaveFile: a failed export never leaves a half-written file behind.
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text))
        return QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
    file.write(table.toCsv().toUtf8());
    if (!file.commit()) return QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
    return {};
}

QString writeSvg(QCustomPlot& plot, const QString& path, const ExportSize& size) {
    // QCustomPlot 2.1 has no saveSvg: paint it into a QSvgGenerator (docs/DEVELOPING.md,
    // "SVG export of plots").
    QSvgGenerator generator;
    generator.setFileName(path);
    generator.setSize(QSize(size.width, size.height));
    generator.setViewBox(QRect(0, 0, size.width, size.height));
    generator.setTitle(QStringLiteral("dpmix plot"));
    QCPPainter painter;
    if (!painter.begin(&generator)) return QStringLiteral("cannot write %1").arg(path);
    plot.toPainter(&painter, size.width, size.height);
    painter.end();
    if (!QFileInfo::exists(path)) return QStringLiteral("cannot write %1").arg(path);
    return {};
}

}  // namespace

QString exportPlot(QCustomPlot& plot, const PlotTable& table, const QString& path, ExportFormat format,
                   const ExportSize& size) {
    bool ok = true;
    switch (format) {
    case ExportFormat::Csv: return writeCsv(table, path);
    case ExportFormat::Svg: return writeSvg(plot, path, size);
    case ExportFormat::Png: ok = plot.savePng(path, size.width, size.height, size.pngScale); break;
    case ExportFormat::Pdf: ok = plot.savePdf(path, size.width, size.height); break;
    }
    return ok ? QString() : QStringLiteral("cannot write %1").arg(path);
}

}  // namespace dpmix::widgets
