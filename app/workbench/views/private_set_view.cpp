#include "app/workbench/views/private_set_view.h"

#include "app/workbench/help/view_help.h"
#include "engine/core/mean_std.h"
#include "engine/privacy/ledger_json.h"
#include "engine/psg_set/set_export.h"
#include "widgets/image_grid_widget.h"

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QTableWidget>
#include <QVBoxLayout>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace dpmix::workbench {
namespace {

// The accuracy rows a PSG run and its references store, in the table's order.
struct AccuracyKind {
    const char* method;
    const char* metric;
    const char* trainedOn;
    const char* network;
};
constexpr AccuracyKind kRows[] = {
    {"psg", "accuracy-convnet", "S (PSG)", "ConvNet"},
    {"psg", "accuracy-mlp", "S (PSG)", "MLP"},
    {"psg", "accuracy-noise-convnet", "untrained noise S (where S starts)", "ConvNet"},
    {"psg-real-subset", "accuracy-convnet", "random real subset, same size (non-private)", "ConvNet"},
    {"psg-dp-sgd", "accuracy-convnet", "all real training images by DP-SGD, same ε", "ConvNet"},
};

nlohmann::json configOf(const RunResults& run) {
    try {
        return nlohmann::json::parse(run.run.configJson);
    } catch (const nlohmann::json::exception&) {
        return {};
    }
}

QString meanStdText(const std::vector<double>& v) {
    if (v.empty()) return QStringLiteral("—");
    const MeanStd m = meanStd(v);
    if (v.size() == 1) return QStringLiteral("%1%").arg(100 * m.mean, 0, 'f', 1);
    return QStringLiteral("%1% ± %2").arg(100 * m.mean, 0, 'f', 1).arg(100 * m.std, 0, 'f', 1);
}

}  // namespace

QString accuracyText(const std::vector<double>& values) { return meanStdText(values); }

std::vector<PsgAccuracyLine> psgAccuracyLines(const ProjectSnapshot& project, const RunResults& psgRun) {
    std::vector<PsgAccuracyLine> out;
    for (const AccuracyKind& kind : kRows) {
        const RunResults* source = nullptr;
        if (std::string(kind.method) == "psg") {
            source = &psgRun;
        } else {
            for (const auto& r : project.runs)  // the newest reference made for this PSG run
                if (r.run.method == kind.method && r.done() && configOf(r).value("psg_run", 0LL) == psgRun.run.id)
                    source = &r;
        }
        if (!source) continue;
        std::vector<double> values;
        for (const auto& m : source->metrics)
            if (m.name == kind.metric) values.push_back(m.value);
        if (!values.empty()) out.push_back({QObject::tr(kind.trainedOn), QObject::tr(kind.network), values});
    }
    return out;
}

std::vector<const RunResults*> privateSetRuns(const ProjectSnapshot& project) {
    std::vector<const RunResults*> out;
    for (const auto& r : project.runs)
        if (r.run.method == "psg" && r.done() && !r.privateSet.empty()) out.push_back(&r);
    std::reverse(out.begin(), out.end());
    return out;
}

PrivateSetImages privateSetImagesOf(const RunResults& run, QString* error) {
    PrivateSetImages set;
    const nlohmann::json c = configOf(run);
    try {
        for (const auto& name : c.at("classes")) set.classNames << QString::fromStdString(name.get<std::string>());
        set.classes = static_cast<int>(set.classNames.size());
        set.imagesPerClass = c.at("images_per_class").get<int>();
        set.channels = c.at("channels").get<int>();
        set.height = c.at("height").get<int>();
        set.width = c.at("width").get<int>();
        set.iterations = c.at("iterations").get<int>();
        set.iteration = set.iterations;
    } catch (const nlohmann::json::exception&) {
        if (error) *error = QObject::tr("run %1: its configuration lacks the set's shape").arg(run.run.id);
        return {};
    }
    set.pixels = run.privateSet;
    if (!set.consistent()) {
        if (error) *error = QObject::tr("run %1: the stored set does not match its configuration").arg(run.run.id);
        return {};
    }
    return set;
}

QList<QList<QImage>> imageRowsOf(const PrivateSetImages& set) {
    QList<QList<QImage>> rows;
    if (!set.consistent()) return rows;
    const std::size_t plane = static_cast<std::size_t>(set.height) * set.width;
    const std::size_t imageSize = plane * set.channels;
    auto byte = [](float x) {
        return static_cast<uchar>(std::lround(std::clamp(std::isfinite(x) ? x : 0.0f, 0.0f, 1.0f) * 255));
    };
    for (int c = 0; c < set.classes; ++c) {
        QList<QImage> row;
        for (int i = 0; i < set.imagesPerClass; ++i) {
            const float* px = set.pixels.data() + (static_cast<std::size_t>(c) * set.imagesPerClass + i) * imageSize;
            QImage image(set.width, set.height, set.channels == 1 ? QImage::Format_Grayscale8 : QImage::Format_RGB888);
            for (int y = 0; y < set.height; ++y) {
                uchar* line = image.scanLine(y);
                for (int x = 0; x < set.width; ++x) {
                    const std::size_t p = static_cast<std::size_t>(y) * set.width + x;
                    if (set.channels == 1)
                        line[x] = byte(px[p]);
                    else
                        for (int ch = 0; ch < 3; ++ch) line[3 * x + ch] = byte(px[ch * plane + p]);
                }
            }
            row << image;
        }
        rows << row;
    }
    return rows;
}

PrivateSetView::PrivateSetView(ProjectSnapshot project, QWidget* parent)
    : QWidget(parent), project_(std::move(project)), psgRuns_(privateSetRuns(project_)) {
    auto* layout = new QVBoxLayout(this);
    auto* top = new QHBoxLayout;
    runs_ = new QComboBox(this);
    runs_->setObjectName("psgRunSelector");
    for (const RunResults* r : psgRuns_) {
        const nlohmann::json c = configOf(*r);
        runs_->addItem(tr("run %1: %2 per class, ε = %3, %4 iterations")
                           .arg(r->run.id)
                           .arg(c.value("images_per_class", 0))
                           .arg(r->run.epsilon ? QString::number(*r->run.epsilon) : QStringLiteral("?"))
                           .arg(c.value("iterations", 0)));
    }
    auto* runLabel = new QLabel(tr("&Private set:"), this);
    runLabel->setBuddy(runs_);
    exportGrid_ = new QPushButton(tr("Export grid as PNG…"), this);
    exportSet_ = new QPushButton(tr("Export set…"), this);
    exportSet_->setToolTip(
        tr("Write S as a data source (IDX or PNG + CSV) that another study can register as public "
           "data: S is differentially private, so using it is post-processing"));
    top->addWidget(runLabel);
    top->addWidget(runs_, 1);
    top->addWidget(exportGrid_);
    top->addWidget(exportSet_);
    layout->addLayout(top);
    privacy_ = new QLabel(this);
    privacy_->setWordWrap(true);
    privacy_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(privacy_);
    empty_ = new QLabel(tr("No private set yet. Run ▸ Generate private set (PSG)… learns a few synthetic images per "
                           "class from the sensitive images under differential privacy; they appear here, and evolve "
                           "live while it runs."),
                        this);
    empty_->setWordWrap(true);
    empty_->setAlignment(Qt::AlignCenter);
    layout->addWidget(empty_);
    grid_ = new widgets::ImageGridWidget(this);
    grid_->setObjectName("privateSetGrid");
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(grid_);
    scroll->setWidgetResizable(false);
    scroll->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    layout->addWidget(scroll, 3);
    table_ = new QTableWidget(0, 4, this);
    table_->setObjectName("psgAccuracyTable");
    table_->setHorizontalHeaderLabels({tr("Trained on"), tr("Network"), tr("Test accuracy"), tr("Trainings")});
    table_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    table_->verticalHeader()->setVisible(false);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    layout->addWidget(table_, 2);

    connect(runs_, &QComboBox::currentIndexChanged, this, &PrivateSetView::showRun);
    connect(exportGrid_, &QPushButton::clicked, this, &PrivateSetView::exportGridWithDialog);
    connect(exportSet_, &QPushButton::clicked, this, &PrivateSetView::exportSetWithDialog);
    setWhatsThis(viewWhatsThis(ResultView::PrivateSet));
    const bool any = !psgRuns_.empty();
    for (QWidget* w :
         std::initializer_list<QWidget*>{runs_, runLabel, exportGrid_, exportSet_, scroll, table_, privacy_})
        w->setVisible(any);
    empty_->setVisible(!any);
    if (any) showRun(0);
}

std::optional<long long> PrivateSetView::shownRunId() const {
    const int i = runs_->currentIndex();
    if (i < 0 || i >= static_cast<int>(psgRuns_.size())) return std::nullopt;
    return psgRuns_[static_cast<std::size_t>(i)]->run.id;
}

void PrivateSetView::showRun(int index) {
    if (index < 0 || index >= static_cast<int>(psgRuns_.size())) return;
    const RunResults& run = *psgRuns_[static_cast<std::size_t>(index)];
    QString error;
    shown_ = privateSetImagesOf(run, &error);
    if (shown_.empty())
        grid_->clearImages(error);
    else
        grid_->setImages(imageRowsOf(shown_), shown_.classNames,
                         tr("S after %1 iterations: %2 images per class (rows: classes)")
                             .arg(shown_.iterations)
                             .arg(shown_.imagesPerClass));
    grid_->resize(grid_->sizeHint());
    QString line;
    for (const auto& record : run.ledgers)
        if (auto ledger = privacy::ledgerFromJson(record.ledgerJson); ledger && !ledger->entries().empty()) {
            const auto& e = ledger->entries().front();
            line = tr("Privacy: ε = %1 at δ = %2 (%3 accountant): %4 DP gradient steps of the sensitive training "
                      "images, each a Poisson sample at q = %5, clipped to C = %6, with Gaussian noise σ = %7. Only S "
                      "is released: training on it or sharing it is post-processing of this ε.")
                       .arg(e.epsilon, 0, 'g', 4)
                       .arg(e.delta, 0, 'g', 3)
                       .arg(QString::fromStdString(privacy::toString(e.accounting)).toUpper())
                       .arg(e.steps)
                       .arg(e.q, 0, 'g', 3)
                       .arg(e.clipNorm)
                       .arg(e.sigma, 0, 'g', 4);
            if (e.randomness == privacy::RandomnessMode::Seeded)
                line += tr(" Seeded randomness (reproducible): not a release.");
        }
    privacy_->setText(line);
    fillTable(run);
    exportSet_->setEnabled(!shown_.empty());
    exportGrid_->setEnabled(!shown_.empty());
}

void PrivateSetView::fillTable(const RunResults& run) {
    table_->setRowCount(0);
    for (const PsgAccuracyLine& line : psgAccuracyLines(project_, run)) {
        const int row = table_->rowCount();
        table_->insertRow(row);
        table_->setItem(row, 0, new QTableWidgetItem(line.trainedOn));
        table_->setItem(row, 1, new QTableWidgetItem(line.network));
        auto* acc = new QTableWidgetItem(accuracyText(line.values));
        acc->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        table_->setItem(row, 2, acc);
        table_->setItem(row, 3, new QTableWidgetItem(QString::number(line.values.size())));
    }
    table_->resizeColumnsToContents();
    table_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
}

void PrivateSetView::showLive(const PrivateSetImages& set) {
    if (!set.consistent()) return;
    for (QWidget* w : findChildren<QWidget*>()) w->setVisible(true);
    empty_->setVisible(false);
    grid_->setImages(imageRowsOf(set), set.classNames,
                     set.iterations > 0
                         ? tr("Generating (live): S after %1 of %2 iterations").arg(set.iteration).arg(set.iterations)
                         : tr("Generating (live): S after %1 iterations").arg(set.iteration));
    grid_->resize(grid_->sizeHint());
    privacy_->setText(tr("A PSG job is running: the table and the exports fill in when it finishes."));
    exportSet_->setEnabled(false);
}

QString PrivateSetView::exportGridPng(const QString& path) const {
    if (grid_->rowCount() == 0) return tr("There is no private set to export.");
    if (!grid_->renderImage().save(path, "PNG")) return tr("Could not write %1.").arg(path);
    return {};
}

QString PrivateSetView::exportSet(const QString& folder, const QString& format) const {
    if (shown_.empty()) return tr("There is no finished private set to export.");
    psg::SetExportFormat f;
    if (!psg::parseSetExportFormat(format.toStdString(), f))
        return tr("Unknown format %1: expected idx or png-csv.").arg(format);
    psg::PrivateSet set;
    set.classes = shown_.classes;
    set.imagesPerClass = shown_.imagesPerClass;
    set.channels = shown_.channels;
    set.height = shown_.height;
    set.width = shown_.width;
    set.pixels = shown_.pixels;
    for (int c = 0; c < set.classes; ++c)
        set.labels.insert(set.labels.end(), static_cast<std::size_t>(set.imagesPerClass), c);
    std::vector<std::string> names;
    for (const QString& n : shown_.classNames) names.push_back(n.toStdString());
    const auto id = shownRunId();
    auto done = psg::exportPrivateSet(set, names, f, folder.toStdString(), "psg-run-" + std::to_string(id.value_or(0)));
    if (!done) return QString::fromStdString(done.error().message);
    return {};
}

void PrivateSetView::exportGridWithDialog() {
    const QString name = QFileInfo(project_.path).completeBaseName() + QStringLiteral("-private-set.png");
    const QString path = QFileDialog::getSaveFileName(this, tr("Export grid as PNG"), name, tr("PNG image (*.png)"));
    if (path.isEmpty()) return;
    const QString error = exportGridPng(path);
    Q_EMIT exported(error.isEmpty() ? tr("Grid saved to %1").arg(path) : error);
}

void PrivateSetView::exportSetWithDialog() {
    bool ok = false;
    const QStringList formats{tr("idx (grey images, loader idx)"),
                              tr("png-csv (PNG files + manifest.csv, loader csv-images)")};
    const QString choice =
        QInputDialog::getItem(this, tr("Export set"), tr("Format:"), formats, shown_.channels == 1 ? 0 : 1, false, &ok);
    if (!ok) return;
    const QString parent = QFileDialog::getExistingDirectory(this, tr("Export set: folder to create it in"));
    if (parent.isEmpty()) return;
    const QString folder = QDir(parent).filePath(QStringLiteral("psg-run-%1").arg(shownRunId().value_or(0)));
    const QString error =
        exportSet(folder, choice.startsWith("idx") ? QStringLiteral("idx") : QStringLiteral("png-csv"));
    Q_EMIT exported(error.isEmpty() ? tr("Set written to %1 (source.json there registers it as a source)").arg(folder)
                                    : error);
}

}  // namespace dpmix::workbench
