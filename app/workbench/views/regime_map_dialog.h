#pragma once
// Help ▸ Where public data pays (regime map)…, for teachers: the regime map as a heat map — n
// across, ε up, each cell coloured by DP-MixMin's paired gain over Random Init or over Uniform
// (a selector), "*" where its 95% interval excludes zero —, a selector for the pool kind, a
// caption in plain words, and Open map… for a map made with `dpmix experiment regime-map
// --write-map`. It opens on the reference map bundled with the workbench (regime_reference.h).
#include "engine/core/result.h"
#include "engine/experiments/regime_map.h"
#include "widgets/regime_heat_map.h"

#include <QDialog>
#include <QList>
#include <QString>

#include <optional>

class QComboBox;
class QLabel;
class QPushButton;

namespace dpmix::workbench {

/// What DP-MixMin is compared with in the heat map.
enum class RegimeBaseline { RandomInit, Uniform };

/// The heat map's cells of one pool kind: per (n, ε) of the map, DP-MixMin − the baseline.
QList<widgets::RegimeHeatCell> regimeHeatCells(const experiments::RegimeMap& map, experiments::PoolKind kind,
                                               RegimeBaseline baseline);

/// "Random Init" or "Uniform".
QString baselineLabel(RegimeBaseline baseline);

class RegimeMapDialog : public QDialog {
    Q_OBJECT

public:
    /// Shows `map` (or its error), read from `origin` (shown above the plot).
    RegimeMapDialog(const Result<experiments::RegimeMap>& map, const QString& origin, QWidget* parent = nullptr);

    void setMap(const Result<experiments::RegimeMap>& map, const QString& origin);
    /// Open map… without the dialog: reads `path`; returns an empty string or the error shown.
    QString openMapFile(const QString& path);
    void setPoolKind(experiments::PoolKind kind);
    void setBaseline(RegimeBaseline baseline);

    widgets::RegimeHeatMapWidget* heatMap() const { return heatMap_; }
    QComboBox* poolKindBox() const { return poolKind_; }
    QComboBox* baselineBox() const { return baseline_; }
    QLabel* caption() const { return caption_; }
    QLabel* originLabel() const { return origin_; }
    /// Why the plot is empty (a map without the chosen kind) or the error of a map that was not read.
    QLabel* note() const { return note_; }

private:
    void showCells();
    QString captionText() const;

    std::optional<experiments::RegimeMap> map_;
    QComboBox* poolKind_;
    QComboBox* baseline_;
    QPushButton* open_;
    QLabel* origin_;
    QLabel* note_;
    widgets::RegimeHeatMapWidget* heatMap_;
    QLabel* caption_;
};

}  // namespace dpmix::workbench
