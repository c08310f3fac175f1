#include "widgets/plot_export.h"

#include "widgets/qcp.h"

#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QSvgGenerator>

namespace dpmix::widgets {

bool exportFormatFromPath(const QString& path, ExportFormat& out) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == "png")
        out = ExportFormat::Png;
    else if (suffix == "pdf")
        out = ExportFormat::Pdf;
    else if (suffix == "svg")
        out = ExportFormat::Svg;
    else if (suffix == "csv")
        out = ExportFormat::Csv;
    else
        return false;
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

QString writeCsv(const PlotTable& table, const QString& path, const QString& trustLabel) {
    // QSaveFile: a failed export never leaves a half-written file behind.
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text))
        return QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
    file.write(csvWithTrustLabel(table, trustLabel).toUtf8());
    if (!file.commit()) return QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
    return {};
}

QString writeSvg(QCustomPlot& plot, const QString& path, const ExportSize& size, const QString& trustLabel) {
    // QCustomPlot 2.1 has no saveSvg: paint it into a QSvgGenerator (docs/DEVELOPING.md,
    // "SVG export of plots").
    QSvgGenerator generator;
    generator.setFileName(path);
    generator.setSize(QSize(size.width, size.height));
    generator.setViewBox(QRect(0, 0, size.width, size.height));
    generator.setTitle(QStringLiteral("dpmix plot"));
    if (!trustLabel.isEmpty()) generator.setDescription(trustLabel);
    QCPPainter painter;
    if (!painter.begin(&generator)) return QStringLiteral("cannot write %1").arg(path);
    plot.toPainter(&painter, size.width, size.height);
    painter.end();
    if (!QFileInfo::exists(path)) return QStringLiteral("cannot write %1").arg(path);
    return {};
}

// The trust label as a line of text under the plot while it is written, removed afterwards.
class TrustLine {
public:
    TrustLine(QCustomPlot& plot, const QString& label) : plot_(plot) {
        if (label.isEmpty()) return;
        QCPLayoutGrid* layout = plot.plotLayout();
        const int row = layout->rowCount();
        layout->insertRow(row);
        text_ = new QCPTextElement(&plot, label, QFont(plot.font().family(), 8));
        text_->setTextColor(QColor(0x66, 0x4d, 0x03));
        layout->addElement(row, 0, text_);
    }
    ~TrustLine() {
        if (!text_) return;
        plot_.plotLayout()->remove(text_);  // deletes it
        plot_.plotLayout()->simplify();
    }
    TrustLine(const TrustLine&) = delete;
    TrustLine& operator=(const TrustLine&) = delete;

private:
    QCustomPlot& plot_;
    QCPTextElement* text_ = nullptr;
};

}  // namespace

QString csvWithTrustLabel(const PlotTable& table, const QString& trustLabel) {
    if (trustLabel.isEmpty()) return table.toCsv();
    QString line = trustLabel;
    line.replace(QLatin1Char('\n'), QLatin1Char(' '));
    return QStringLiteral("# trust boundary: ") + line + QLatin1Char('\n') + table.toCsv();
}

QString exportPlot(QCustomPlot& plot, const PlotTable& table, const QString& path, ExportFormat format,
                   const ExportSize& size, const QString& trustLabel) {
    if (format == ExportFormat::Csv) return writeCsv(table, path, trustLabel);
    TrustLine line(plot, trustLabel);
    bool ok = true;
    switch (format) {
        case ExportFormat::Csv: break;
        case ExportFormat::Svg: return writeSvg(plot, path, size, trustLabel);
        case ExportFormat::Png: ok = plot.savePng(path, size.width, size.height, size.pngScale); break;
        case ExportFormat::Pdf: ok = plot.savePdf(path, size.width, size.height); break;
    }
    return ok ? QString() : QStringLiteral("cannot write %1").arg(path);
}

}  // namespace dpmix::widgets
