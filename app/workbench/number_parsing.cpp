#include "app/workbench/number_parsing.h"

#include <QLocale>

#include <cmath>

namespace dpmix::workbench {
namespace {
Error notANumber(const QString& field, const QString& text, const QString& kind, const QString& expected) {
    const QString shown = text.trimmed().isEmpty() ? QStringLiteral("(empty)") : '"' + text.trimmed() + '"';
    return Error{QStringLiteral("%1 = %2 is not %3: expected %4").arg(field, shown, kind, expected).toStdString()};
}
}  // namespace

Result<double> parseDouble(const QString& field, const QString& text, const QString& expected) {
    bool ok = false;
    const double value = QLocale::c().toDouble(text.trimmed(), &ok);
    if (!ok || !std::isfinite(value)) return notANumber(field, text, QStringLiteral("a number"), expected);
    return value;
}

Result<long long> parseInteger(const QString& field, const QString& text, const QString& expected) {
    bool ok = false;
    const long long value = QLocale::c().toLongLong(text.trimmed(), &ok);
    if (!ok) return notANumber(field, text, QStringLiteral("a whole number"), expected);
    return value;
}

}  // namespace dpmix::workbench
