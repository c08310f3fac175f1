#pragma once
// The two views of the AdaMix-R experiment (docs/ADAMIX.md, "The experiment"):
//  - AdamixView: the error increase over the non-private paragon by method and ε, at one
//    (shots, private per class) setting, with the public-only head as a reference line;
//  - ExamplePrivacyView: who pays for privacy — the histogram of the per-example estimates ε_i
//    of one AdaMix-R run and, for images, the examples with the highest and the lowest ε_i.
//    Every label says "estimate": the guarantee is the dataset-level ε, for every example.
#include "app/workbench/project/project_snapshot.h"
#include "app/workbench/views/adamix_data.h"
#include "app/workbench/views/adamix_results.h"
#include "app/workbench/views/result_page_view.h"

#include <QImage>

#include <functional>
#include <map>
#include <vector>

class QComboBox;

namespace dpmix::widgets {
class BarChartWidget;
class ImageGridWidget;
}  // namespace dpmix::widgets

namespace dpmix::workbench {

class AdamixView : public ResultPageView {
    Q_OBJECT

public:
    AdamixView(std::vector<AdamixExperiment> experiments, QWidget* parent = nullptr);
    QComboBox* runSelector() const { return runs_; }
    QComboBox* settingSelector() const { return settings_; }
    widgets::BarChartWidget* chart() const { return chart_; }
    /// Stored experiments that could not be read ("run 4 (why)"): named in the note.
    void setUnreadableRuns(const QStringList& runs);

private:
    void showRun(int index);
    void showSetting(int index);
    QString unreadableNote() const;
    QStringList unreadable_;
    std::vector<AdamixExperiment> experiments_;
    QComboBox* runs_;
    QComboBox* settings_;
    widgets::BarChartWidget* chart_;
};

/// Loads the images `indices` of the project source called `source` (empty list when it is not
/// an image source or cannot be read; `error` says why).
using ExampleImageLoader =
    std::function<QList<QImage>(const QString& source, const std::vector<long long>& indices, QString& error)>;

/// The loader that reads the project's own data (engine/data) as the snapshot's spec locates it.
ExampleImageLoader projectImageLoader(const ProjectSnapshot& project);

class ExamplePrivacyView : public ResultPageView {
    Q_OBJECT

public:
    /// `examples` reads an experiment's per-example records when it is first shown (unset: the
    /// experiments come with them).
    ExamplePrivacyView(std::vector<AdamixExperiment> experiments, ExampleImageLoader images,
                       AdamixEstimatesLoader examples = {}, QWidget* parent = nullptr);
    QComboBox* runSelector() const { return runs_; }
    QComboBox* estimateSelector() const { return estimates_; }
    widgets::BarChartWidget* chart() const { return chart_; }
    widgets::ImageGridWidget* gallery() const { return gallery_; }
    /// Examples per row of the gallery.
    static constexpr int kGalleryCount = 8;

private:
    void showRun(int index);
    void showEstimates(int index);
    std::vector<AdamixExperiment> experiments_;
    ExampleImageLoader images_;
    AdamixEstimatesLoader examples_;
    QComboBox* runs_;
    QComboBox* estimates_;
    widgets::BarChartWidget* chart_;
    widgets::ImageGridWidget* gallery_;
};

}  // namespace dpmix::workbench
