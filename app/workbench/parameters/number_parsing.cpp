#include "app/workbench/parameters/number_parsing.h"

#include "engine/core/number_text.h"

namespace dpmix::workbench {
namespace {
Error notANumber(const QString& field, const QString& text, const QString& kind, const QString& expected) {
    const QString shown = text.trimmed().isEmpty() ? QStringLiteral("(empty)") : '"' + text.trimmed() + '"';
    return Error{QStringLiteral("%1 = %2 is not %3: expected %4").arg(field, shown, kind, expected).toStdString()};
}
}  // namespace

Result<double> parseDouble(const QString& field, const QString& text, const QString& expected) {
    if (auto value = parseDecimalText(text.trimmed().toStdString())) return *value;  // a form field: blanks around are dropped
    return notANumber(field, text, QStringLiteral("a number"), expected);
}

Result<long long> parseInteger(const QString& field, const QString& text, const QString& expected) {
    if (auto value = parseWholeNumberText(text.trimmed().toStdString())) return *value;
    return notANumber(field, text, QStringLiteral("a whole number"), expected);
}

}  // namespace dpmix::workbench
