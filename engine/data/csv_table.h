#pragma once
// CSV (RFC 4180): quoted fields, doubled quotes, CRLF or LF, optional UTF-8 BOM; first row = header.
#include "engine/core/result.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace dpmix::data {

struct CsvTable {
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;  // each row has header.size() fields
    std::vector<std::size_t> rowLines;           // 1-based line where each row starts

    /// Index of a header column, or -1.
    int column(const std::string& name) const;
};

/// Parses CSV text; `path` names the file in errors (row with a wrong field count, open quote).
Result<CsvTable> parseCsv(std::string_view text, const std::string& path);

}  // namespace dpmix::data
