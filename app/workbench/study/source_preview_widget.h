#pragma once
// The preview half of the registration dialog: a status line (loading, the loader's error, or
// the example count), label names or domains, the content hash, and the first examples as
// thumbnails with their labels or as text snippets with domain and user.
#include "app/workbench/study/source_preview.h"

#include <QWidget>

class QLabel;
class QListWidget;
class QStackedWidget;
class QTableWidget;

namespace dpmix::workbench {

class SourcePreviewWidget : public QWidget {
    Q_OBJECT

public:
    explicit SourcePreviewWidget(QWidget* parent = nullptr);

    void showLoading(const QString& what);
    void showError(const QString& message);
    void showPreview(const SourcePreview& preview);
    void clear(const QString& hint);

    // For tests and screenshots.
    QLabel* statusLabel() const { return status_; }
    QLabel* labelsLabel() const { return labels_; }
    QLabel* hashLabel() const { return hash_; }
    QLabel* dicomLabel() const { return dicom_; }
    QListWidget* thumbnails() const { return thumbnails_; }
    QTableWidget* snippets() const { return snippets_; }

private:
    void showDicomOverview(const SourcePreview& preview);

    QLabel* status_;
    QLabel* labels_;
    QLabel* hash_;
    QLabel* dicom_;  // a DICOM folder's counts, tags and file errors
    QStackedWidget* examples_;
    QListWidget* thumbnails_;
    QTableWidget* snippets_;
};

}  // namespace dpmix::workbench
