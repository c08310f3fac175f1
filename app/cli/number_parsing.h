#pragma once
// Text → number for command-line flags and CSV cells, with messages that name the field.
#include "engine/core/result.h"

#include <string>

namespace dpmix::cli {

/// A finite real number ("1e-5", "0.25"); `where` names the flag or CSV cell in messages.
Result<double> parseReal(const std::string& text, const std::string& where);

/// A whole number ("1000", also "1e3" when it is exactly whole).
Result<long long> parseInteger(const std::string& text, const std::string& where);

}  // namespace dpmix::cli
