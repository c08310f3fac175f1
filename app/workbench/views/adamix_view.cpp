#include "app/workbench/views/adamix_view.h"

#include "app/workbench/help/view_help.h"
#include "engine/data/source_loader.h"
#include "widgets/bar_chart_widget.h"
#include "widgets/image_grid_widget.h"

#include <nlohmann/json.hpp>

#include <QApplication>
#include <QComboBox>
#include <QCursor>
#include <QLabel>

#include <algorithm>
#include <memory>

namespace dpmix::workbench {
namespace {

QString runTitle(const AdamixExperiment& e) { return e.title.isEmpty() ? QObject::tr("run %1").arg(e.runId) : e.title; }

QString estimateLabel(const AdamixEstimates& e) {
    return QObject::tr("ε = %1 · %2 · seed %3")
        .arg(QString::number(e.epsilon, 'g', 3), adamixSettingLabel(e.shots, e.perClass))
        .arg(e.seed);
}

// One example as an 8-bit image (grey for one channel, the first three channels as RGB).
QImage exampleImage(const data::ImageDataset& d, std::size_t index) {
    const int w = d.width, h = d.height, c = d.channels;
    const float* px = d.pixels.data() + index * d.imageSize();
    auto byte = [](float x) { return static_cast<int>(std::clamp(x, 0.0f, 1.0f) * 255.0f + 0.5f); };
    QImage image(w, h, c < 3 ? QImage::Format_Grayscale8 : QImage::Format_RGB32);
    const std::size_t plane = static_cast<std::size_t>(w) * h;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const std::size_t at = static_cast<std::size_t>(y) * w + x;
            if (c < 3)
                image.scanLine(y)[x] = static_cast<uchar>(byte(px[at]));
            else
                image.setPixel(x, y, qRgb(byte(px[at]), byte(px[plane + at]), byte(px[2 * plane + at])));
        }
    return image;
}

}  // namespace

AdamixView::AdamixView(std::vector<AdamixExperiment> experiments, QWidget* parent)
    : ResultPageView(parent),
      experiments_(std::move(experiments)),
      runs_(new QComboBox),
      settings_(new QComboBox),
      chart_(new widgets::BarChartWidget) {
    addControl(new QLabel(tr("Experiment:")));
    runs_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    addControl(runs_);
    addControl(new QLabel(tr("Setting:")));
    settings_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    addControl(settings_);
    chart_->setAxisLabels(tr("privacy budget ε"), tr("error increase over the paragon (%)"));
    chart_->setAxisToolTips(glossaryToolTip(GlossaryTerm::Epsilon), glossaryToolTip(GlossaryTerm::AdamixR));
    setWhatsThis(viewWhatsThis(ResultView::Adamix));
    setChart(chart_);
    for (const auto& e : experiments_) runs_->addItem(runTitle(e));
    connect(runs_, &QComboBox::currentIndexChanged, this, &AdamixView::showRun);
    connect(settings_, &QComboBox::currentIndexChanged, this, &AdamixView::showSetting);
    if (experiments_.empty()) {
        showEmptyState(
            tr("No AdaMix-R experiment in this project yet. It compares public-guided private fine-tuning "
               "with DP-GD and a public-only head, by ε (see Help ▸ Manual, \"AdaMix-R\")."));
        return;
    }
    runs_->setCurrentIndex(static_cast<int>(experiments_.size()) - 1);  // the latest
    if (experiments_.size() == 1) showRun(0);
}

void AdamixView::setUnreadableRuns(const QStringList& runs) {
    unreadable_ = runs;
    if (experiments_.empty() && !runs.isEmpty())
        showEmptyState(tr("The AdaMix-R experiments of this project could not be read: %1.").arg(runs.join("; ")));
    else
        setNote(note()->text() + unreadableNote());
}

QString AdamixView::unreadableNote() const {
    return unreadable_.isEmpty() ? QString() : tr(" Not readable: %1.").arg(unreadable_.join("; "));
}

void AdamixView::showRun(int index) {
    if (index < 0 || index >= static_cast<int>(experiments_.size())) return;
    const QSignalBlocker block(settings_);
    settings_->clear();
    for (const auto& [shots, perClass] : adamixSettings(experiments_[static_cast<std::size_t>(index)]))
        settings_->addItem(adamixSettingLabel(shots, perClass), QVariantList{shots, perClass});
    settings_->setCurrentIndex(0);
    showSetting(0);
}

void AdamixView::showSetting(int index) {
    const int run = runs_->currentIndex();
    if (run < 0 || index < 0 || index >= settings_->count()) return;
    const QVariantList setting = settings_->itemData(index).toList();
    const auto& experiment = experiments_[static_cast<std::size_t>(run)];
    const AdamixIncreaseChart data =
        adamixIncreaseChart(experiment, setting.value(0).toLongLong(), setting.value(1).toLongLong());
    chart_->setTitle(tr("Error increase over the non-private paragon\n%1 · %2")
                         .arg(settings_->itemText(index), runTitle(experiment)));
    const QString error = chart_->setData(data.data);
    setNote((error.isEmpty() ? data.note : error) + unreadableNote());
    showChart();
}

ExampleImageLoader projectImageLoader(const ProjectSnapshot& project) {
    // As the project file registered them (paths resolved when it was created), as the engine
    // loads them for a run: the spec read back from a project keeps paths as written.
    std::map<QString, data::SourceSpec> sources;
    for (const project::SourceRecord& record : project.sources) {
        data::SourceSpec spec{record.name, record.loader, record.path, {}};
        const auto options = nlohmann::json::parse(record.optionsJson, nullptr, false);
        if (options.is_object())
            for (const auto& [key, value] : options.items())
                if (value.is_string()) spec.options[key] = value.get<std::string>();
        sources[QString::fromStdString(record.name)] = spec;
    }
    // The data set is read once per view and source: the gallery changes with every selection.
    auto cache = std::make_shared<std::map<QString, data::ImageDataset>>();
    return [sources, cache](const QString& source, const std::vector<long long>& indices, QString& error) {
        QList<QImage> images;
        const auto spec = sources.find(source);
        if (spec == sources.end()) {
            error = QObject::tr("the project has no source called \"%1\"").arg(source);
            return images;
        }
        if (!data::isImageLoader(spec->second.loader)) return images;  // text: no gallery
        auto it = cache->find(source);
        if (it == cache->end()) {
            QApplication::setOverrideCursor(Qt::WaitCursor);
            auto loaded = data::loadImageSource(spec->second);
            QApplication::restoreOverrideCursor();
            if (!loaded) {
                error = QString::fromStdString(loaded.error().message);
                return images;
            }
            it = cache->emplace(source, std::move(loaded).value()).first;
        }
        for (long long i : indices) {
            if (i < 0 || static_cast<std::size_t>(i) >= it->second.size()) {
                error = QObject::tr("example %1 is not in \"%2\" (%3 examples): the data changed since the run")
                            .arg(i)
                            .arg(source)
                            .arg(it->second.size());
                return QList<QImage>{};
            }
            images << exampleImage(it->second, static_cast<std::size_t>(i));
        }
        return images;
    };
}

ExamplePrivacyView::ExamplePrivacyView(std::vector<AdamixExperiment> experiments, ExampleImageLoader images,
                                       AdamixEstimatesLoader examples, QWidget* parent)
    : ResultPageView(parent),
      experiments_(std::move(experiments)),
      images_(std::move(images)),
      examples_(std::move(examples)),
      runs_(new QComboBox),
      estimates_(new QComboBox),
      chart_(new widgets::BarChartWidget),
      gallery_(new widgets::ImageGridWidget) {
    addControl(new QLabel(tr("Experiment:")));
    runs_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    addControl(runs_);
    addControl(new QLabel(tr("AdaMix-R run:")));
    estimates_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    addControl(estimates_);
    chart_->setAxisLabels(tr("per-example privacy loss ε_i (estimate)"), tr("private examples"));
    chart_->setAxisToolTips(glossaryToolTip(GlossaryTerm::ExampleEpsilon),
                            tr("How many private examples have an estimate in this bin."));
    setWhatsThis(viewWhatsThis(ResultView::ExampleEpsilon));
    setChart(chart_, gallery_);
    for (const auto& e : experiments_) runs_->addItem(runTitle(e));
    connect(runs_, &QComboBox::currentIndexChanged, this, &ExamplePrivacyView::showRun);
    connect(estimates_, &QComboBox::currentIndexChanged, this, &ExamplePrivacyView::showEstimates);
    const bool any = std::any_of(experiments_.begin(), experiments_.end(),
                                 [](const AdamixExperiment& e) { return !e.estimates.empty(); });
    if (!any) {
        showEmptyState(
            tr("No per-example privacy estimates yet. A full-batch AdaMix-R run stores one estimate ε_i "
               "per private example (see Help ▸ Manual, \"AdaMix-R\")."));
        return;
    }
    runs_->setCurrentIndex(static_cast<int>(experiments_.size()) - 1);
    if (experiments_.size() == 1) showRun(0);
}

void ExamplePrivacyView::showRun(int index) {
    if (index < 0 || index >= static_cast<int>(experiments_.size())) return;
    const QSignalBlocker block(estimates_);
    estimates_->clear();
    for (const auto& e : experiments_[static_cast<std::size_t>(index)].estimates) estimates_->addItem(estimateLabel(e));
    estimates_->setCurrentIndex(0);
    showEstimates(0);
}

void ExamplePrivacyView::showEstimates(int index) {
    const int run = runs_->currentIndex();
    if (run < 0) return;
    auto& experiment = experiments_[static_cast<std::size_t>(run)];
    if (!experiment.examplesLoaded && examples_) {
        QApplication::setOverrideCursor(Qt::WaitCursor);
        const QString error = examples_(experiment);
        QApplication::restoreOverrideCursor();
        if (!error.isEmpty()) {
            chart_->setData({});
            gallery_->clearImages({});
            setNote(tr("The per-example estimates of this experiment could not be read: %1").arg(error));
            return;
        }
    }
    if (index < 0 || index >= static_cast<int>(experiment.estimates.size())) {
        chart_->setData({});
        gallery_->clearImages(tr("This experiment stored no per-example estimates."));
        setNote({});
        return;
    }
    const AdamixEstimates& estimates = experiment.estimates[static_cast<std::size_t>(index)];
    const AdamixHistogram histogram = adamixEpsilonHistogram(estimates);
    chart_->setTitle(tr("Per-example privacy loss ε_i (estimate) · guarantee ε = %1 for every example\n%2")
                         .arg(QString::number(estimates.epsilon, 'g', 3), estimateLabel(estimates)));
    const QString error = chart_->setData(histogram.data);
    setNote(error.isEmpty() ? histogram.note : error);
    showChart();

    const AdamixExtremes extremes = adamixExtremes(estimates, kGalleryCount);
    std::vector<long long> indices;
    for (const auto* row : {&extremes.highest, &extremes.lowest})
        for (const auto& e : *row) indices.push_back(e.sourceIndex);
    QString loadError;
    const QList<QImage> images = images_ ? images_(experiment.privateSource, indices, loadError) : QList<QImage>{};
    if (images.size() != static_cast<qsizetype>(indices.size())) {
        gallery_->clearImages(loadError.isEmpty() ? tr("No gallery: the private examples are not images.")
                                                  : tr("No gallery: %1.").arg(loadError));
        return;
    }
    auto range = [](const std::vector<AdamixExampleEstimate>& row) {
        if (row.empty()) return QString();
        return QStringLiteral("%1 … %2").arg(QString::number(row.front().epsilon, 'g', 2),
                                             QString::number(row.back().epsilon, 'g', 2));
    };
    const auto high = static_cast<qsizetype>(extremes.highest.size());
    gallery_->setImages({images.mid(0, high), images.mid(high)}, {tr("highest ε_i"), tr("lowest ε_i")},
                        tr("Who pays for privacy (estimates): highest ε_i %1, lowest %2")
                            .arg(range(extremes.highest), range(extremes.lowest)));
}

}  // namespace dpmix::workbench
