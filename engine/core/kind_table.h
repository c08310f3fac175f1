#pragma once
// The lookups every "kind as an enum with one table" shares (methods, fine-tuning mechanisms,
// source roles and kinds, cluster job kinds): a table is a vector of rows, each with its enum value
// in one member and its stored spelling in `name`. Written once here so that each kind's file holds
// only its table and the words of its error.
#include "engine/core/result.h"

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace dpmix::core {

/// The row whose `key` member is `value`. A value without a row is a programming error (every
/// enumerator has one), so it throws naming `what` ("methods::Method").
template <class Row, class Kind>
const Row& rowOf(const std::vector<Row>& table, Kind Row::*key, Kind value, std::string_view what) {
    for (const auto& row : table)
        if (row.*key == value) return row;
    throw std::logic_error("a " + std::string(what) + " without a row in its table");
}

/// The rows' spellings for a message: "\"a\", \"b\" or \"c\"" (unquoted with quote = false).
template <class Row>
std::string spellingList(const std::vector<Row>& table, bool quote = true) {
    const std::string q = quote ? "\"" : "";
    std::string out;
    for (std::size_t i = 0; i < table.size(); ++i) {
        if (i > 0) out += i + 1 == table.size() ? " or " : ", ";
        out += q + std::string(table[i].name) + q;
    }
    return out;
}

/// The enum value spelled `name`; otherwise an error "\"x\" is not <notA>: expected <list>".
template <class Row, class Kind>
Result<Kind> parseSpelling(const std::vector<Row>& table, Kind Row::*key, std::string_view name,
                           std::string_view notA) {
    for (const auto& row : table)
        if (row.name == name) return row.*key;
    // Appended piece by piece: GCC 12 warns (a false -Wstringop-overflow) on "\"" + std::string(…).
    std::string message = "\"";
    message.append(name).append("\" is not ").append(notA).append(": expected ").append(spellingList(table));
    return Error{message};
}

}  // namespace dpmix::core
