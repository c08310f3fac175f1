#include "app/workbench/views/regime_map_dialog.h"

#include "app/workbench/parameters/regime_reference.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include <algorithm>

namespace dpmix::workbench {

QString baselineLabel(RegimeBaseline baseline) {
    return baseline == RegimeBaseline::RandomInit ? QObject::tr("Random Init") : QObject::tr("Uniform");
}

QList<widgets::RegimeHeatCell> regimeHeatCells(const experiments::RegimeMap& map, experiments::PoolKind kind,
                                               RegimeBaseline baseline) {
    QList<widgets::RegimeHeatCell> cells;
    for (const auto& c : map.cells) {
        if (c.poolKind != kind) continue;
        const experiments::PairedDifference& d = baseline == RegimeBaseline::RandomInit ? c.vsRandomInit : c.vsUniform;
        // Two pools of one kind measured at the same (n, ε) would be one cell twice: the first stands.
        const bool taken = std::any_of(cells.begin(), cells.end(),
                                       [&](const auto& other) { return other.n == c.n && other.epsilon == c.epsilon; });
        if (!taken) cells << widgets::RegimeHeatCell{c.n, c.epsilon, d.seeds, d.mean, d.low, d.high};
    }
    return cells;
}

RegimeMapDialog::RegimeMapDialog(const Result<experiments::RegimeMap>& map, const QString& origin, QWidget* parent)
    : QDialog(parent),
      poolKind_(new QComboBox),
      baseline_(new QComboBox),
      open_(new QPushButton(tr("Open map…"))),
      origin_(new QLabel),
      note_(new QLabel),
      heatMap_(new widgets::RegimeHeatMapWidget),
      caption_(new QLabel) {
    setObjectName("regimeMapDialog");
    setWindowTitle(tr("Where public data pays (regime map)"));
    for (const auto& kind : experiments::allPoolKinds())
        poolKind_->addItem(QString::fromUtf8(kind.label.data(), static_cast<qsizetype>(kind.label.size())),
                           static_cast<int>(kind.kind));
    baseline_->addItem(tr("Random Init (training from scratch)"), static_cast<int>(RegimeBaseline::RandomInit));
    baseline_->addItem(tr("Uniform (equal weights on the public data)"), static_cast<int>(RegimeBaseline::Uniform));
    open_->setToolTip(tr("Show a map made with `dpmix experiment regime-map … --write-map FILE`"));
    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Public data:")));
    controls->addWidget(poolKind_);
    controls->addWidget(new QLabel(tr("DP-MixMin compared with:")));
    controls->addWidget(baseline_);
    controls->addStretch(1);
    controls->addWidget(open_);
    for (QLabel* label : {origin_, note_, caption_}) {
        label->setWordWrap(true);
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    }
    origin_->setStyleSheet("color: #505860;");
    heatMap_->setMinimumSize(560, 360);
    heatMap_->setAxisLabels(tr("sensitive set size n (examples; one column per measured size)"), tr("ε"));
    heatMap_->setExportName(QStringLiteral("regime-map"));
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addWidget(origin_);
    layout->addWidget(note_);
    layout->addWidget(heatMap_, 1);
    layout->addWidget(caption_);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(poolKind_, &QComboBox::currentIndexChanged, this, [this] { showCells(); });
    connect(baseline_, &QComboBox::currentIndexChanged, this, [this] { showCells(); });
    connect(open_, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open a regime map"), QString(),
                                                          tr("Regime maps (*.json);;All files (*)"));
        if (!path.isEmpty()) openMapFile(path);
    });
    resize(820, 640);
    setMap(map, origin);
}

void RegimeMapDialog::setMap(const Result<experiments::RegimeMap>& map, const QString& origin) {
    map_.reset();
    if (map) map_ = *map;
    origin_->setText(tr("Map: %1").arg(origin));
    if (map_ && !map_->cells.empty()) setPoolKind(map_->cells.front().poolKind);  // the first kind it holds
    note_->setStyleSheet(map ? QString() : QStringLiteral("color: #b00020;"));
    note_->setText(map ? QString() : QString::fromStdString(map.error().message));
    showCells();
}

QString RegimeMapDialog::openMapFile(const QString& path) {
    const auto map = readRegimeMapFile(path);
    if (!map) {  // the map shown stays; the error says why the file was not taken
        note_->setStyleSheet(QStringLiteral("color: #b00020;"));
        note_->setText(QString::fromStdString(map.error().message));
        note_->setVisible(true);
        return note_->text();
    }
    setMap(map, QFileInfo(path).absoluteFilePath());
    return {};
}

void RegimeMapDialog::setPoolKind(experiments::PoolKind kind) {
    poolKind_->setCurrentIndex(poolKind_->findData(static_cast<int>(kind)));
}

void RegimeMapDialog::setBaseline(RegimeBaseline baseline) {
    baseline_->setCurrentIndex(baseline_->findData(static_cast<int>(baseline)));
}

void RegimeMapDialog::showCells() {
    const auto kind = static_cast<experiments::PoolKind>(poolKind_->currentData().toInt());
    const auto baseline = static_cast<RegimeBaseline>(baseline_->currentData().toInt());
    const auto cells = map_ ? regimeHeatCells(*map_, kind, baseline) : QList<widgets::RegimeHeatCell>{};
    heatMap_->setCells(cells, baselineLabel(baseline));
    if (map_ && cells.isEmpty()) {
        note_->setStyleSheet(QStringLiteral("color: #505860;"));
        note_->setText(tr("This map holds no regime with %1.").arg(poolKind_->currentText()));
    } else if (map_) {
        note_->clear();
    }
    note_->setVisible(!note_->text().isEmpty());
    caption_->setText(captionText());
}

QString RegimeMapDialog::captionText() const {
    const auto baseline = static_cast<RegimeBaseline>(baseline_->currentData().toInt());
    const QString green = baseline == RegimeBaseline::RandomInit
                              ? tr("pretraining on privately chosen public data (DP-MixMin) paid off against "
                                   "training from scratch (Random Init)")
                              : tr("choosing the public data's mixture privately (DP-MixMin) paid off against "
                                   "equal weights (Uniform)");
    const QString reference =
        map_ && !map_->reference.empty() ? QString::fromStdString(map_->reference) : tr("not described");
    return tr("Each cell is one regime: a study with n sensitive examples at this ε, every method run on the same "
              "seeds; its number is DP-MixMin's test AUC minus %1's, paired over the seeds. Green: %2; purple: it "
              "did worse; pale: about even. * marks a cell whose 95% interval excludes zero (beyond seed noise); a "
              "grey cell has no result to compare. An empirical estimate on reference data (%3), not a promise "
              "for your data: Run ▸ Compare with baselines measures it on your own study.")
        .arg(baselineLabel(baseline), green, reference);
}

}  // namespace dpmix::workbench
