#pragma once
// Reads the CSV tables written by reference/rdp_reference.py (an independent Python/SciPy
// implementation, cross-checked with mpmath) into rows of named doubles.
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

/// One row of a reference table: the value of a column by name, 0 for a column it lacks.
struct ReferenceRow {
    std::unordered_map<std::string, double> values;
    double operator[](const std::string& column) const {
        const auto it = values.find(column);
        return it == values.end() ? 0.0 : it->second;
    }
};

inline std::vector<std::string> splitReferenceLine(std::string line) {
    while (!line.empty() && (line.back() == '\r' || line.back() == '\n' || line.back() == ' ')) line.pop_back();
    std::vector<std::string> cells;
    std::stringstream in(line);
    std::string cell;
    while (std::getline(in, cell, ',')) cells.push_back(cell);
    if (!line.empty() && line.back() == ',') cells.emplace_back();
    return cells;
}

inline std::vector<ReferenceRow> readReferenceTable(const std::string& path) {
    std::vector<ReferenceRow> rows;
    std::ifstream f(path);
    if (!f) return rows;
    std::string line;
    if (!std::getline(f, line)) return rows;
    const std::vector<std::string> header = splitReferenceLine(line);
    while (std::getline(f, line)) {
        const std::vector<std::string> cells = splitReferenceLine(line);
        if (cells.size() != header.size()) continue;
        ReferenceRow row;
        for (std::size_t i = 0; i < header.size(); ++i) row.values[header[i]] = std::strtod(cells[i].c_str(), nullptr);
        rows.push_back(row);
    }
    return rows;
}
