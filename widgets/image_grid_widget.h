#pragma once
// A grid of small images with a label per row — the private set S of PSG by class (rows =
// classes, columns = the images of a class). Images are drawn magnified without smoothing, so
// each pixel shows as it is; hovering an image names its row and index. Plain Qt values only.
#include <QImage>
#include <QList>
#include <QString>
#include <QStringList>
#include <QWidget>

namespace dpmix::widgets {

class ImageGridWidget : public QWidget {
    Q_OBJECT

public:
    explicit ImageGridWidget(QWidget* parent = nullptr);

    /// rows[r][c]: image c of row r (rows may differ in length); one label per row; the caption
    /// is drawn above the grid (e.g. "after 3 of 3 iterations").
    void setImages(const QList<QList<QImage>>& rows, const QStringList& rowLabels, const QString& caption = {});
    /// No images: `text` in their place.
    void clearImages(const QString& text);

    int rowCount() const { return static_cast<int>(rows_.size()); }
    int columnCount() const;
    QString caption() const { return caption_; }
    /// What clearImages() shows instead of images.
    QString emptyText() const { return emptyText_; }
    /// "<row label>, image <c + 1> of <n>" for the image under `pos` (widget coordinates), or "".
    QString toolTipAt(const QPoint& pos) const;
    /// Where image (row, column) is drawn, in widget coordinates (for tests and hovering).
    QRect cellRect(int row, int column) const;
    /// The grid as drawn (caption, labels, images) on a white background, for export to PNG.
    QImage renderImage() const;

    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;

private:
    int scale() const;
    int labelWidth() const;
    int captionHeight() const;
    void draw(QPainter& painter) const;

    QList<QList<QImage>> rows_;
    QStringList labels_;
    QString caption_;
    QString emptyText_;
};

}  // namespace dpmix::widgets
