#pragma once
// Text typed by the user -> numbers, with messages in the engine builders' style
// ("delta = "abc" is not a number: expected ...").
#include "engine/core/result.h"

#include <QString>

namespace dpmix::workbench {

/// A finite double written in C locale ("0.5", "1e-5"); surrounding spaces are ignored.
Result<double> parseDouble(const QString& field, const QString& text, const QString& expected);
/// A whole number ("1000"; no fraction, no exponent).
Result<long long> parseInteger(const QString& field, const QString& text, const QString& expected);

}  // namespace dpmix::workbench
