// The "dicom" loader's labels: a CSV keyed by SOPInstanceUID, StudyInstanceUID or AccessionNumber
// with label columns read as csv-images reads them (label_cells.h), or one header tag whose values
// are the classes. Messages name the DICOM file and the CSV line, never a key's value (a UID or
// an accession number identifies a patient's study).
#include "engine/data/csv_table.h"
#include "engine/data/dicom_source.h"
#include "engine/data/file_bytes.h"
#include "engine/data/image_loaders.h"
#include "engine/data/label_cells.h"
#include "engine/data/loader_options.h"

#include <algorithm>
#include <map>
#include <set>

namespace dpmix::data {
namespace {

struct LabelTable {
    std::string path;
    CsvTable table;
    std::map<std::string, std::size_t> rowOfKey;
    std::vector<std::string> labelNames;
};

Status indexRows(const SourceSpec& spec, const DicomOptions& o, LabelTable& t) {
    const std::string keyColumn = optionOr(spec, "key_column", o.labelKeyName);
    const int keyIndex = t.table.column(keyColumn);
    if (keyIndex < 0)
        return Error{sourceContext(spec) + "label CSV '" + t.path + "' has no key column '" + keyColumn +
                     "' (set option key_column to the column holding each image's " + o.labelKeyName + ")"};
    for (std::size_t i = 0; i < t.table.rows.size(); ++i) {
        const std::string key = trim(t.table.rows[i][keyIndex]);
        if (key.empty())
            return Error{sourceContext(spec) + "label CSV '" + t.path + "', line " +
                         std::to_string(t.table.rowLines[i]) + ": empty " + keyColumn};
        const auto [it, fresh] = t.rowOfKey.emplace(key, i);
        if (!fresh)
            return Error{sourceContext(spec) + "label CSV '" + t.path + "', lines " +
                         std::to_string(t.table.rowLines[it->second]) + " and " + std::to_string(t.table.rowLines[i]) +
                         " have the same " + keyColumn + ", expected one row per key"};
    }
    if (spec.options.count("labels")) {
        t.labelNames = splitList(spec.options.at("labels"));
    } else {
        const auto ignored = splitList(optionOr(spec, "ignore_columns", ""));
        for (const auto& name : t.table.header)
            if (name != keyColumn && std::find(ignored.begin(), ignored.end(), name) == ignored.end())
                t.labelNames.push_back(name);
    }
    if (t.labelNames.empty()) return Error{sourceContext(spec) + "label CSV '" + t.path + "' has no label columns"};
    return std::nullopt;
}

Result<LabelTable> readLabelTable(const SourceSpec& spec, const DicomOptions& o) {
    LabelTable t;
    t.path = resolveNextTo(spec, spec.options.at("labels_csv"));
    auto text = readFileMaybeGzip(t.path);
    if (!text) return Error{sourceContext(spec) + "option 'labels_csv': " + text.error().message};
    auto parsed = parseCsv(*text, t.path);
    if (!parsed) return Error{sourceContext(spec) + parsed.error().message};
    t.table = std::move(parsed).value();
    if (auto bad = indexRows(spec, o, t)) return *bad;
    return t;
}

// Keeps the images `keep` says (an unlabelled file left out by option unlabelled = skip).
void keepImages(ImageDataset& out, const std::vector<bool>& keep) {
    const std::size_t size = out.imageSize();
    std::size_t kept = 0;
    for (std::size_t i = 0; i < keep.size(); ++i) {
        if (!keep[i]) continue;
        std::copy_n(out.pixels.begin() + i * size, size, out.pixels.begin() + kept * size);
        if (!out.users.empty()) out.users[kept] = out.users[i];
        ++kept;
    }
    out.pixels.resize(kept * size);
    if (!out.users.empty()) out.users.resize(kept);
}

Status csvLabels(const SourceSpec& spec, const DicomOptions& o, const std::vector<DicomRecord>& records,
                 const std::vector<std::size_t>& recordOf, ImageDataset& out) {
    auto table = readLabelTable(spec, o);
    if (!table) return table.error();
    auto columns = labelColumns(spec, table->table, table->path, table->labelNames);
    if (!columns) return columns.error();
    const bool skip = optionOr(spec, "unlabelled", "error") == "skip";
    if (!skip && optionOr(spec, "unlabelled", "error") != "error")
        return Error{sourceContext(spec) + "option 'unlabelled' = '" + spec.options.at("unlabelled") +
                     "' is not valid, expected error or skip"};
    const std::size_t l = table->labelNames.size();
    std::vector<bool> keep(recordOf.size(), true);
    std::vector<float> labels;
    std::vector<unsigned char> mask;
    bool anyMasked = false;
    for (std::size_t i = 0; i < recordOf.size(); ++i) {
        const DicomRecord& record = records[recordOf[i]];
        const auto row = table->rowOfKey.find(record.labelKey);
        if (row == table->rowOfKey.end() && skip) {
            keep[i] = false;
            continue;
        }
        if (row == table->rowOfKey.end())
            return Error{sourceContext(spec) + "DICOM file '" + record.path + "': " +
                         (record.labelKey.empty()
                              ? "has no " + o.labelKeyName
                              : "its " + o.labelKeyName + " has no row in label CSV '" + table->path + "'") +
                         " (set option unlabelled = skip to leave such files out)"};
        const std::string where =
            "label CSV '" + table->path + "', line " + std::to_string(table->table.rowLines[row->second]);
        labels.resize(labels.size() + l, 0.0f);
        mask.resize(mask.size() + l, 1);
        for (std::size_t j = 0; j < l; ++j)
            if (auto bad = readLabelCell(spec, where, table->labelNames[j],
                                         table->table.rows[row->second][columns->labelIndex[j]],
                                         columns->uncertainPolicy[j], columns->blankPolicy[j],
                                         labels[labels.size() - l + j], mask[mask.size() - l + j], anyMasked))
                return *bad;
    }
    keepImages(out, keep);
    out.labelNames = table->labelNames;
    out.labels = std::move(labels);
    if (anyMasked) out.labelMask = std::move(mask);
    return std::nullopt;
}

Status tagLabels(const SourceSpec& spec, const DicomOptions& o, const std::vector<DicomRecord>& records,
                 const std::vector<std::size_t>& recordOf, ImageDataset& out) {
    std::vector<std::string> classes;
    if (spec.options.count("classes")) {
        classes = splitList(spec.options.at("classes"));
    } else {  // the values that occur, sorted: a public source only (declared_labels.h)
        std::set<std::string> seen;
        for (auto r : recordOf) seen.insert(records[r].labelValue);
        seen.erase("");
        classes.assign(seen.begin(), seen.end());
    }
    std::vector<int> ids;
    for (auto r : recordOf) {
        const auto it = std::find(classes.begin(), classes.end(), records[r].labelValue);
        if (records[r].labelValue.empty())
            return Error{sourceContext(spec) + "DICOM file '" + records[r].path + "' has no " + o.labelTagName +
                         " (the label tag)"};
        if (it == classes.end())
            return Error{sourceContext(spec) + "DICOM file '" + records[r].path + "': its " + o.labelTagName +
                         " is not one of option classes"};
        ids.push_back(static_cast<int>(it - classes.begin()));
    }
    return attachNamedClassTargets(spec, ids, classes, out);
}

}  // namespace

Status attachDicomLabels(const SourceSpec& spec, const DicomOptions& options, const std::vector<DicomRecord>& records,
                         const std::vector<std::size_t>& recordOf, ImageDataset& out) {
    if (options.labelTag) return tagLabels(spec, options, records, recordOf, out);
    return csvLabels(spec, options, records, recordOf, out);
}

}  // namespace dpmix::data
