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
    if (auto value = parseDecimalText(text.trimmed().toStdString()))
        return *value;  // a form field: blanks around are dropped
    return notANumber(field, text, QStringLiteral("a number"), expected);
}

Result<long long> parseInteger(const QString& field, const QString& text, const QString& expected) {
    if (auto value = parseWholeNumberText(text.trimmed().toStdString())) return *value;
    return notANumber(field, text, QStringLiteral("a whole number"), expected);
}

Result<std::optional<double>> parseBudgetCap(const QString& text) {
    if (text.trimmed().isEmpty()) return std::optional<double>();
    const QString expected = QStringLiteral("the data set's total epsilon, a number in (0, 1e6], or empty for none");
    auto cap = parseDouble(QStringLiteral("budget cap"), text, expected);
    if (!cap) return cap.error();
    if (!(*cap > 0.0 && *cap <= 1e6))
        return Error{"budget cap = " + text.trimmed().toStdString() + " is out of range: expected " +
                     expected.toStdString()};
    return std::optional<double>(*cap);
}

}  // namespace dpmix::workbench
