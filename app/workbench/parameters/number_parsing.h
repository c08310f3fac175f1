#pragma once
// Text typed by the user -> numbers, with messages in the engine builders' style
// ("delta = "abc" is not a number: expected ..."). What counts as a number is the engine's rule
// (engine/core/number_text.h), the same as the command line's.
#include "engine/core/result.h"

#include <QString>

namespace dpmix::workbench {

/// A finite decimal number ("0.5", "1e-5"); surrounding spaces are ignored.
Result<double> parseDouble(const QString& field, const QString& text, const QString& expected);
/// A whole number ("1000", also "1e3": exactly whole).
Result<long long> parseInteger(const QString& field, const QString& text, const QString& expected);

}  // namespace dpmix::workbench
