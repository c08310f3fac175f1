#pragma once
// Label columns of a CSV table as the csv-images loader reads them — cells 1, 0, -1 (uncertain)
// or blank, each column with its policy for -1 and blank (options "uncertain", "blank",
// "uncertain.<Label>", "blank.<Label>") — shared by csv-images and the dicom loader's label CSV.
#include "engine/core/result.h"
#include "engine/data/csv_table.h"
#include "engine/data/source_spec.h"

#include <string>
#include <vector>

namespace dpmix::data {

enum class CellPolicy { Zero, One, Mask };

/// Each label column's index and its policies for uncertain (-1) and blank cells.
struct LabelColumns {
    std::vector<int> labelIndex;
    std::vector<CellPolicy> uncertainPolicy, blankPolicy;
};

/// The columns `labelNames` of `table` (read from `csvPath`) with their policies; an error names a
/// missing column, a bad policy, or an uncertain./blank. option that names no label column.
Result<LabelColumns> labelColumns(const SourceSpec& spec, const CsvTable& table, const std::string& csvPath,
                                  const std::vector<std::string>& labelNames);

/// One label cell: 1 or 0 as they are, -1 and blank by the column's policy (a masked cell sets
/// `mask` to 0 and `masked`). The error names `where`, the column and the cell, then `hint`.
Status readLabelCell(const SourceSpec& spec, const std::string& where, const std::string& column,
                     const std::string& text, CellPolicy uncertain, CellPolicy blank, float& label, unsigned char& mask,
                     bool& masked, const std::string& hint = {});

}  // namespace dpmix::data
