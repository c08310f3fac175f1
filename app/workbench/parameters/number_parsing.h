#pragma once
// Text typed by the user -> numbers, with messages in the engine builders' style
// ("delta = "abc" is not a number: expected ..."). What counts as a number is the engine's rule
// (engine/core/number_text.h), the same as the command line's.
#include "engine/core/result.h"

#include <QString>

#include <optional>

namespace dpmix::workbench {

/// A finite decimal number ("0.5", "1e-5"); surrounding spaces are ignored.
Result<double> parseDouble(const QString& field, const QString& text, const QString& expected);
/// A whole number ("1000", also "1e3": exactly whole).
Result<long long> parseInteger(const QString& field, const QString& text, const QString& expected);
/// The panel's cap on the data set's total ε: empty (or spaces) is none; else a number in (0, 1e6].
Result<std::optional<double>> parseBudgetCap(const QString& text);

}  // namespace dpmix::workbench
