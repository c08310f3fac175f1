#include "engine/data/csv_table.h"

#include <algorithm>

namespace dpmix::data {

int CsvTable::column(const std::string& name) const {
    const auto it = std::find(header.begin(), header.end(), name);
    return it == header.end() ? -1 : static_cast<int>(it - header.begin());
}

Result<CsvTable> parseCsv(std::string_view text, const std::string& path) {
    if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
    CsvTable table;
    std::vector<std::string> row;
    std::string field;
    std::size_t line = 1, rowStart = 1;
    bool inQuotes = false, fieldQuoted = false, rowHasContent = false;
    auto endRow = [&]() -> Status {
        row.push_back(std::move(field));
        field.clear();
        fieldQuoted = false;
        const bool blank = row.size() == 1 && row[0].empty() && !rowHasContent;
        if (!blank) {  // blank lines are skipped
            if (table.header.empty()) {
                table.header = std::move(row);
            } else if (row.size() != table.header.size()) {
                return Error{"CSV file '" + path + "', line " + std::to_string(rowStart) + ": " +
                             std::to_string(row.size()) + " fields, expected " + std::to_string(table.header.size()) +
                             " (as in the header)"};
            } else {
                table.rows.push_back(std::move(row));
                table.rowLines.push_back(rowStart);
            }
        }
        row.clear();
        rowHasContent = false;
        rowStart = line;
        return std::nullopt;
    };
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inQuotes) {
            if (c == '"') {
                if (i + 1 < text.size() && text[i + 1] == '"') {
                    field.push_back('"');
                    ++i;
                } else {
                    inQuotes = false;
                }
            } else {
                if (c == '\n') ++line;
                field.push_back(c);
            }
            continue;
        }
        if (c == '"' && field.empty() && !fieldQuoted) {
            inQuotes = fieldQuoted = rowHasContent = true;
        } else if (c == ',') {
            row.push_back(std::move(field));
            field.clear();
            fieldQuoted = false;
            rowHasContent = true;
        } else if (c == '\n' || c == '\r') {
            if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
            ++line;
            if (auto failed = endRow()) return *failed;
        } else {
            field.push_back(c);
            rowHasContent = true;
        }
    }
    if (inQuotes)
        return Error{"CSV file '" + path + "', line " + std::to_string(rowStart) +
                     ": a quoted field is not closed before the end of the file"};
    if (!field.empty() || !row.empty() || rowHasContent) {
        if (auto failed = endRow()) return *failed;
    }
    if (table.header.empty()) return Error{"CSV file '" + path + "' is empty, expected a header row"};
    return table;
}

}  // namespace dpmix::data
