// Label cells and their policies, moved here from the csv-images loader for the dicom loader's
// label CSV (same cells, same options, same messages).
#include "engine/data/label_cells.h"

#include "engine/data/loader_options.h"

#include <algorithm>
#include <charconv>

namespace dpmix::data {
namespace {

Result<CellPolicy> parsePolicy(const SourceSpec& spec, const std::string& key, const std::string& fallback) {
    const std::string value = optionOr(spec, key, fallback);
    if (value == "zero") return CellPolicy::Zero;
    if (value == "one") return CellPolicy::One;
    if (value == "mask") return CellPolicy::Mask;
    return Error{sourceContext(spec) + "option '" + key + "' = '" + value +
                 "' is not valid, expected zero, one or mask"};
}

}  // namespace

// Each column's own option, else the default; an uncertain./blank. option naming no label column
// is refused.
Result<LabelColumns> labelColumns(const SourceSpec& spec, const CsvTable& table, const std::string& csvPath,
                                  const std::vector<std::string>& labelNames) {
    LabelColumns out;
    auto uncertainDefault = parsePolicy(spec, "uncertain", "zero");
    if (!uncertainDefault) return uncertainDefault.error();
    auto blankDefault = parsePolicy(spec, "blank", "zero");
    if (!blankDefault) return blankDefault.error();
    for (const auto& name : labelNames) {
        const int index = table.column(name);
        if (index < 0)
            return Error{sourceContext(spec) + "CSV file '" + csvPath + "' has no label column '" + name + "'"};
        out.labelIndex.push_back(index);
        auto u = spec.options.count("uncertain." + name) ? parsePolicy(spec, "uncertain." + name, "")
                                                         : Result<CellPolicy>(*uncertainDefault);
        auto b = spec.options.count("blank." + name) ? parsePolicy(spec, "blank." + name, "")
                                                     : Result<CellPolicy>(*blankDefault);
        if (!u) return u.error();
        if (!b) return b.error();
        out.uncertainPolicy.push_back(*u);
        out.blankPolicy.push_back(*b);
    }
    for (const auto& [key, value] : spec.options)
        for (const char* prefix : {"uncertain.", "blank."})
            if (key.rfind(prefix, 0) == 0 && std::find(labelNames.begin(), labelNames.end(),
                                                       key.substr(std::string(prefix).size())) == labelNames.end())
                return Error{sourceContext(spec) + "option '" + key + "' names no label column"};
    return out;
}

Status readLabelCell(const SourceSpec& spec, const std::string& where, const std::string& column,
                     const std::string& text, CellPolicy uncertain, CellPolicy blank, float& label, unsigned char& mask,
                     bool& masked, const std::string& hint) {
    const std::string cell = trim(text);
    CellPolicy policy = CellPolicy::Zero;
    bool usePolicy = true;
    if (cell.empty()) {
        policy = blank;
    } else {
        double value = 0;
        const auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), value);
        if (ec != std::errc() || end != cell.data() + cell.size() || (value != 1 && value != 0 && value != -1))
            return Error{sourceContext(spec) + where + ", column '" + column + "': value '" + cell +
                         "' is not a label, expected 1, 0, -1 (uncertain) or blank" + hint};
        if (value == -1) {
            policy = uncertain;
        } else {
            label = static_cast<float>(value);
            usePolicy = false;
        }
    }
    if (usePolicy) {
        if (policy == CellPolicy::One) label = 1.0f;
        if (policy == CellPolicy::Mask) {
            mask = 0;
            masked = true;
        }
    }
    return std::nullopt;
}

}  // namespace dpmix::data
