#pragma once
// The Private set tab (docs/PSG.md, "Workbench"): a PSG run's synthetic set S as an image grid
// (rows = classes; hover names class and index), the accuracy of networks trained on it beside
// the two references (a random real subset of the same size, direct DP-SGD at the same ε), the
// privacy it spent, and exports of the grid (PNG) and of the set (a data source). While a PSG
// job runs, the grid follows S live.
#include "app/workbench/project/project_snapshot.h"
#include "app/workbench/runs/private_set_images.h"

#include <QWidget>

#include <optional>
#include <vector>

class QComboBox;
class QLabel;
class QPushButton;
class QTableWidget;

namespace dpmix::widgets {
class ImageGridWidget;
}

namespace dpmix::workbench {

/// The finished PSG runs of a project that stored a set, newest first.
std::vector<const RunResults*> privateSetRuns(const ProjectSnapshot& project);

/// A PSG run's stored set with its shape and class names (from the run's configuration); empty
/// (and `error` set) when the configuration or the stored values do not fit together.
PrivateSetImages privateSetImagesOf(const RunResults& run, QString* error = nullptr);

/// One row of a PSG run's accuracy table: what the networks were trained on, which network, the
/// test accuracies of its trainings.
struct PsgAccuracyLine {
    QString trainedOn, network;
    std::vector<double> values;
};
/// The run's own rows (S with ConvNet and MLP, the untrained noise S) and the references made for
/// it (random real subset, direct DP-SGD: the newest finished run of each whose config names it).
std::vector<PsgAccuracyLine> psgAccuracyLines(const ProjectSnapshot& project, const RunResults& psgRun);
/// "75.0% ± 7.1" (one value: "75.0%"; none: "—").
QString accuracyText(const std::vector<double>& values);

/// Rows of QImages, one row per class (pixels clamped to [0, 1], 8 bits).
QList<QList<QImage>> imageRowsOf(const PrivateSetImages& set);

class PrivateSetView : public QWidget {
    Q_OBJECT

public:
    explicit PrivateSetView(ProjectSnapshot project, QWidget* parent = nullptr);

    /// S of a running job: the grid follows it until the project is reread.
    void showLive(const PrivateSetImages& set);

    /// Writes the grid as drawn to a PNG file; returns "" or the reason it failed.
    QString exportGridPng(const QString& path) const;
    /// Writes the shown run's set into a new folder as "idx" or "png-csv"; returns "" or why not.
    QString exportSet(const QString& folder, const QString& format) const;

    QComboBox* runSelector() const { return runs_; }
    widgets::ImageGridWidget* grid() const { return grid_; }
    QTableWidget* accuracyTable() const { return table_; }
    QLabel* privacyLine() const { return privacy_; }
    QLabel* emptyState() const { return empty_; }
    std::optional<long long> shownRunId() const;

Q_SIGNALS:
    /// A status message after an export (where it went, or why not).
    void exported(const QString& message);

private:
    void showRun(int index);
    void fillTable(const RunResults& run);
    void exportGridWithDialog();
    void exportSetWithDialog();

    ProjectSnapshot project_;
    std::vector<const RunResults*> psgRuns_;
    QComboBox* runs_;
    QLabel* privacy_;
    QLabel* empty_;
    widgets::ImageGridWidget* grid_;
    QTableWidget* table_;
    QPushButton* exportGrid_;
    QPushButton* exportSet_;
    PrivateSetImages shown_;
};

}  // namespace dpmix::workbench
