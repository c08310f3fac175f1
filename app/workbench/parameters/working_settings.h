#pragma once
// The panel's values as the project's working settings (ProjectFile::saveWorkingSettings): what
// File ▸ Save stores, so that reopening the project shows what the user last saved. One JSON
// object keyed by the fields' names (fieldKey: "epsilon", "finetune-batch", ...). n is not
// stored: it follows the registered sensitive data.
#include "widgets/run_parameters.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace dpmix::workbench {

QJsonObject workingSettingsJson(const widgets::RunParameters& parameters);

/// `base` (the spec's values) with the stored settings in place. A key this version does not
/// know, or a value of the wrong type, is left out and named in `ignored` (a file saved by a
/// newer dpmix still opens).
widgets::RunParameters withWorkingSettings(widgets::RunParameters base, const QJsonObject& settings,
                                           QStringList* ignored = nullptr);

}  // namespace dpmix::workbench
