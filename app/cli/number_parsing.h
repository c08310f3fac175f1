#pragma once
// Text → number for command-line flags and CSV cells, with messages that name the field. The
// rule of what is a number is the engine's (engine/core/number_text.h), shared with the workbench.
#include "engine/core/result.h"

#include <string>

namespace dpmix::cli {

/// A finite decimal number ("1e-5", "0.25"); `where` names the flag or CSV cell in messages.
Result<double> parseReal(const std::string& text, const std::string& where);

/// A whole number ("1000", also "1e3" when it is exactly whole).
Result<long long> parseInteger(const std::string& text, const std::string& where);

}  // namespace dpmix::cli
