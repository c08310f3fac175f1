#include "app/workbench/study/source_preview_widget.h"

#include <QFontDatabase>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QPixmap>
#include <QRegularExpression>
#include <QScrollBar>
#include <QStackedWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include <utility>

namespace dpmix::workbench {

namespace {
constexpr int kThumbnailSide = 56;  // 28×28 MNIST-sized images at 2×

QString joined(const std::vector<std::string>& names, int shown) {
    QStringList list;
    for (std::size_t i = 0; i < names.size() && static_cast<int>(i) < shown; ++i)
        list << QString::fromStdString(names[i]);
    if (static_cast<int>(names.size()) > shown) list << QStringLiteral("… (%1 in all)").arg(names.size());
    return list.join(QStringLiteral(", "));
}

// The users' noun from the column that names them: "Patient" or "patient_id" → patient/patients;
// "users" when there is no column name or it is not a plain word.
std::pair<QString, QString> userNouns(const QString& column) {
    static const QRegularExpression idSuffix(QStringLiteral("[ _-]?id$"), QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression word(QStringLiteral("^[a-z]+$"));
    QString noun = column.trimmed().toLower();
    noun.remove(idSuffix);
    if (!word.match(noun).hasMatch() || noun.size() < 2) return {QObject::tr("user"), QObject::tr("users")};
    return {noun, noun.endsWith(QLatin1Char('s')) ? noun : noun + QLatin1Char('s')};
}
}  // namespace

SourcePreviewWidget::SourcePreviewWidget(QWidget* parent)
    : QWidget(parent),
      status_(new QLabel),
      labels_(new QLabel),
      hash_(new QLabel),
      dicom_(new QLabel),
      examples_(new QStackedWidget),
      thumbnails_(new QListWidget),
      snippets_(new QTableWidget(0, 3)) {
    status_->setObjectName("previewStatus");
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    labels_->setObjectName("previewLabels");
    labels_->setWordWrap(true);
    hash_->setObjectName("previewHash");
    QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    mono.setPointSizeF(mono.pointSizeF() * 0.9);
    hash_->setFont(mono);
    hash_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    hash_->setToolTip(
        tr("SHA-256 over the decoded examples: the project file records it, so a reviewer can tell "
           "whether the data changed."));

    dicom_->setObjectName("previewDicom");
    dicom_->setWordWrap(true);
    dicom_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    dicom_->setVisible(false);
    thumbnails_->setObjectName("previewThumbnails");
    thumbnails_->setViewMode(QListView::IconMode);
    thumbnails_->setIconSize(QSize(kThumbnailSide, kThumbnailSide));
    thumbnails_->setGridSize(QSize(kThumbnailSide + 44, kThumbnailSide + 34));
    thumbnails_->setResizeMode(QListView::Adjust);
    thumbnails_->setMovement(QListView::Static);
    thumbnails_->setWordWrap(true);
    thumbnails_->setSelectionMode(QAbstractItemView::NoSelection);

    snippets_->setObjectName("previewSnippets");
    snippets_->setHorizontalHeaderLabels({tr("Domain"), tr("User"), tr("Text")});
    snippets_->horizontalHeader()->setStretchLastSection(true);
    snippets_->verticalHeader()->setVisible(false);
    snippets_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    snippets_->setWordWrap(false);

    examples_->addWidget(thumbnails_);
    examples_->addWidget(snippets_);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(status_);
    layout->addWidget(labels_);
    layout->addWidget(hash_);
    layout->addWidget(dicom_);
    layout->addWidget(examples_, 1);
    clear(tr("Choose a loader and a path to see a preview."));
}

void SourcePreviewWidget::clear(const QString& hint) {
    status_->setText(hint);
    status_->setStyleSheet({});
    labels_->clear();
    hash_->clear();
    dicom_->clear();
    dicom_->setVisible(false);
    thumbnails_->clear();
    snippets_->setRowCount(0);
}

void SourcePreviewWidget::showLoading(const QString& what) { clear(tr("Loading %1…").arg(what)); }

void SourcePreviewWidget::showError(const QString& message) {
    clear(message);
    status_->setStyleSheet(QStringLiteral("color: #b00020;"));  // the palette has no "error" role
}

void SourcePreviewWidget::showPreview(const SourcePreview& preview) {
    clear({});
    const project::SourceFacts& f = preview.facts;
    const bool images = f.kind == data::SourceKind::Images;
    QString status = countOf(f.examples, tr("example"), tr("examples"));
    if (images) status += tr(" · %1×%2×%3 images").arg(f.channels).arg(f.height).arg(f.width);
    if (f.users > 0) {
        const auto [one, many] = userNouns(preview.userColumn);
        status += QStringLiteral(" · ") + countOf(f.users, one, many);
    }
    status_->setText(status);
    if (images)
        labels_->setText(countOf(static_cast<long long>(f.labelNames.size()), tr("label"), tr("labels")) + ": " +
                         joined(f.labelNames, 20));
    else
        labels_->setText(countOf(static_cast<long long>(f.domains.size()), tr("domain"), tr("domains")) + ": " +
                         joined(f.domains, 20));
    hash_->setText(tr("Content hash: %1").arg(QString::fromStdString(f.contentHash)));
    showDicomOverview(preview);

    examples_->setCurrentWidget(images ? static_cast<QWidget*>(thumbnails_) : snippets_);
    for (int i = 0; i < preview.thumbnails.size(); ++i) {
        const QPixmap pixmap = QPixmap::fromImage(
            preview.thumbnails[i].scaled(kThumbnailSide, kThumbnailSide, Qt::KeepAspectRatio, Qt::FastTransformation));
        const QString label = i < preview.thumbnailLabels.size() ? preview.thumbnailLabels[i] : QString();
        auto* item = new QListWidgetItem(QIcon(pixmap), label, thumbnails_);
        item->setToolTip(tr("example %1: %2").arg(i).arg(label));
    }
    snippets_->setRowCount(static_cast<int>(preview.snippets.size()));
    for (int r = 0; r < preview.snippets.size(); ++r) {
        const TextSnippet& s = preview.snippets[r];
        snippets_->setItem(r, 0, new QTableWidgetItem(s.domain));
        snippets_->setItem(r, 1, new QTableWidgetItem(s.user.isEmpty() ? QStringLiteral("—") : s.user));
        auto* text = new QTableWidgetItem(s.text);
        text->setToolTip(s.text);
        snippets_->setItem(r, 2, text);
    }
    snippets_->resizeColumnToContents(0);
    snippets_->resizeColumnToContents(1);
    // The grid starts at the first examples: laid out now, scrolled to the top (a delayed
    // layout would otherwise keep the previous preview's position).
    thumbnails_->doItemsLayout();
    thumbnails_->scrollToTop();
    snippets_->scrollToTop();
}

// A DICOM folder: its counts and tags, each unreadable file in red, and, when the source cannot
// load yet, why (the status line says it; the thumbnails are the survey's windowed images).
void SourcePreviewWidget::showDicomOverview(const SourcePreview& preview) {
    if (preview.dicomOverview.isEmpty()) return;
    QStringList html;
    for (const auto& line : preview.dicomOverview) html << line.toHtmlEscaped();
    const int shownErrors = 8;
    for (int i = 0; i < preview.dicomErrors.size() && i < shownErrors; ++i)
        html << QStringLiteral("<span style=\"color:#b00020\">%1</span>").arg(preview.dicomErrors[i].toHtmlEscaped());
    if (preview.dicomErrors.size() > shownErrors)
        html << tr("… and %1 more unreadable files").arg(preview.dicomErrors.size() - shownErrors);
    dicom_->setText(html.join(QStringLiteral("<br>")));
    dicom_->setVisible(true);
    if (preview.loadError.isEmpty()) return;
    status_->setText(tr("Not registrable yet: %1").arg(preview.loadError));
    status_->setStyleSheet(QStringLiteral("color: #b00020;"));
    labels_->clear();
    hash_->clear();
}

}  // namespace dpmix::workbench
