#include "engine/core/number_text.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

namespace dpmix {

std::optional<double> parseDecimalText(std::string_view text) {
    if (text.empty()) return std::nullopt;
    // Decimal notation only: strtod alone would also take hex floats, "inf" and "nan".
    for (char c : text)
        if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-')) return std::nullopt;
    const std::string owned(text);  // strtod needs the terminating NUL
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(owned.c_str(), &end);
    if (end == owned.c_str() || *end != '\0' || errno == ERANGE || !std::isfinite(v)) return std::nullopt;
    return v;
}

std::optional<long long> parseWholeNumberText(std::string_view text) {
    const auto real = parseDecimalText(text);
    if (!real || std::floor(*real) != *real || std::fabs(*real) > 9e15) return std::nullopt;
    return static_cast<long long>(*real);
}

}  // namespace dpmix
