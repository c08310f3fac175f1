#pragma once
// Numbers typed by a user — a command-line flag, a CSV cell, a field of the workbench — read by
// one rule, so every front end accepts the same text (docs/ARCHITECTURE.md, "Numbers typed by
// users"). Each front end words its own message around a refusal.
#include <optional>
#include <string_view>

namespace dpmix {

/// A finite number in decimal notation ("0.25", "1e-5", "-3"), the whole text. Refused: hex
/// floats ("0x1p-7"), "inf", "nan", a value beyond double range ("1e400"), thousands
/// separators, a comma as the decimal mark, blanks, anything after the number. (A form field
/// may trim what was typed first; that is the form's convention, not the number's.)
std::optional<double> parseDecimalText(std::string_view text);

/// A whole number: decimal text whose value is exactly whole and at most 9e15 in magnitude
/// (exact in a double), so "1000", "1e3" and "1000.0" are all 1000; "2.5" is refused.
std::optional<long long> parseWholeNumberText(std::string_view text);

}  // namespace dpmix
