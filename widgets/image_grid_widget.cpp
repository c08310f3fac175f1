#include "widgets/image_grid_widget.h"

#include <QEvent>
#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>

namespace dpmix::widgets {
namespace {
constexpr int kSpacing = 2;
constexpr int kMargin = 6;
constexpr int kTargetCell = 56;  // about this many screen pixels per image side
}  // namespace

ImageGridWidget::ImageGridWidget(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
}

void ImageGridWidget::setImages(const QList<QList<QImage>>& rows, const QStringList& rowLabels,
                                const QString& caption) {
    rows_ = rows;
    labels_ = rowLabels;
    caption_ = caption;
    emptyText_.clear();
    updateGeometry();
    update();
}

void ImageGridWidget::clearImages(const QString& text) {
    rows_.clear();
    labels_.clear();
    caption_.clear();
    emptyText_ = text;
    updateGeometry();
    update();
}

int ImageGridWidget::columnCount() const {
    int n = 0;
    for (const auto& row : rows_) n = std::max(n, static_cast<int>(row.size()));
    return n;
}

int ImageGridWidget::scale() const {
    int side = 1;
    for (const auto& row : rows_)
        for (const auto& image : row) side = std::max({side, image.width(), image.height()});
    return std::max(1, kTargetCell / side);
}

int ImageGridWidget::labelWidth() const {
    int w = 0;
    for (const auto& label : labels_) w = std::max(w, fontMetrics().horizontalAdvance(label));
    return w + 2 * kMargin;
}

int ImageGridWidget::captionHeight() const { return caption_.isEmpty() ? 0 : fontMetrics().height() + kMargin; }

QRect ImageGridWidget::cellRect(int row, int column) const {
    if (row < 0 || row >= rowCount() || column < 0 || column >= rows_[row].size()) return {};
    const QImage& image = rows_[row][column];
    const int s = scale();
    int cellW = 0, cellH = 0;
    for (const auto& r : rows_)
        for (const auto& i : r) {
            cellW = std::max(cellW, i.width() * s);
            cellH = std::max(cellH, i.height() * s);
        }
    const int x = labelWidth() + column * (cellW + kSpacing);
    const int y = kMargin + captionHeight() + row * (cellH + kSpacing);
    return {x, y, image.width() * s, image.height() * s};
}

QSize ImageGridWidget::sizeHint() const {
    if (rows_.isEmpty()) return {320, 120};
    const QRect last = cellRect(rowCount() - 1, 0);
    const QRect lastColumn = cellRect(0, static_cast<int>(rows_[0].size()) - 1);
    int right = lastColumn.right();
    for (int r = 0; r < rowCount(); ++r)
        if (!rows_[r].isEmpty()) right = std::max(right, cellRect(r, static_cast<int>(rows_[r].size()) - 1).right());
    return {std::max(right + kMargin, labelWidth() + fontMetrics().horizontalAdvance(caption_) + kMargin),
            last.bottom() + kMargin};
}

QString ImageGridWidget::toolTipAt(const QPoint& pos) const {
    for (int r = 0; r < rowCount(); ++r)
        for (int c = 0; c < rows_[r].size(); ++c)
            if (cellRect(r, c).contains(pos)) {
                const QString label = r < labels_.size() ? labels_[r] : tr("row %1").arg(r + 1);
                return tr("%1, image %2 of %3").arg(label).arg(c + 1).arg(rows_[r].size());
            }
    return {};
}

void ImageGridWidget::draw(QPainter& painter) const {
    if (rows_.isEmpty()) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect().isEmpty() ? QRect(QPoint(0, 0), sizeHint()) : rect(),
                         Qt::AlignCenter | Qt::TextWordWrap, emptyText_);
        return;
    }
    painter.setRenderHint(QPainter::SmoothPixmapTransform, false);  // pixels as they are
    painter.setPen(palette().color(QPalette::WindowText));
    if (!caption_.isEmpty())
        painter.drawText(QRect(kMargin, kMargin, 4000, fontMetrics().height()), Qt::AlignLeft | Qt::AlignVCenter,
                         caption_);
    for (int r = 0; r < rowCount(); ++r) {
        if (rows_[r].isEmpty()) continue;
        const QRect first = cellRect(r, 0);
        if (r < labels_.size())
            painter.drawText(QRect(kMargin, first.top(), labelWidth() - 2 * kMargin, first.height()),
                             Qt::AlignRight | Qt::AlignVCenter, labels_[r]);
        for (int c = 0; c < rows_[r].size(); ++c) painter.drawImage(cellRect(r, c), rows_[r][c]);
    }
}

void ImageGridWidget::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    draw(painter);
}

bool ImageGridWidget::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = toolTipAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}

QImage ImageGridWidget::renderImage() const {
    const QSize size = sizeHint();
    QImage out(size, QImage::Format_RGB32);
    out.fill(Qt::white);
    QPainter painter(&out);
    painter.setFont(font());
    painter.setPen(Qt::black);
    draw(painter);
    return out;
}

}  // namespace dpmix::widgets
