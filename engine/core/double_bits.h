#pragma once
// A double as the 16 lower-case hex digits of its IEEE-754 bits: how frozen job files and unit
// results carry numbers that must come back bit for bit (a decimal text may round).
#include "engine/core/result.h"

#include <string>
#include <string_view>

namespace dpmix {

std::string doubleToHexBits(double value);

/// Errors: not exactly 16 lower-case hex digits.
Result<double> doubleFromHexBits(std::string_view text);

/// The same, throwing std::invalid_argument: for parsers that turn any malformed field into one
/// error in a single try block.
double doubleFromHexBitsOrThrow(std::string_view text);

}  // namespace dpmix
