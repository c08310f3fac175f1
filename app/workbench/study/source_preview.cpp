#include "app/workbench/study/source_preview.h"

namespace dpmix::workbench {

QString groupedNumber(long long n) {
    // QLocale::c() omits group separators, so group by hand (thin space, as the tree does).
    QString digits = QString::number(n < 0 ? -n : n);
    for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(i, QChar(0x2009));
    return n < 0 ? QLatin1Char('-') + digits : digits;
}

QString countOf(long long n, const QString& one, const QString& many) {
    return groupedNumber(n) + QLatin1Char(' ') + (n == 1 ? one : many);
}

}  // namespace dpmix::workbench
