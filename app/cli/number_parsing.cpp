#include "app/cli/number_parsing.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace dpmix::cli {

Result<double> parseReal(const std::string& text, const std::string& where) {
    // Decimal notation only: strtod alone would also take hex floats ("0x1p-7"), "inf", "nan"
    // and leading blanks, none of which a user means as a privacy parameter.
    for (char c : text)
        if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'))
            return Error{where + " = '" + text + "' is not a number: expected a finite decimal number such as 0.01 or 1e-5"};
    const char* begin = text.c_str();
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(begin, &end);
    if (text.empty() || end == begin || *end != '\0' || errno == ERANGE || !std::isfinite(v))
        return Error{where + " = '" + text + "' is not a number: expected a finite decimal number such as 0.01 or 1e-5"};
    return v;
}

Result<long long> parseInteger(const std::string& text, const std::string& where) {
    auto real = parseReal(text, where);
    if (!real.ok() || std::floor(*real) != *real || std::fabs(*real) > 9e15)
        return Error{where + " = '" + text + "' is not a whole number: expected an integer such as 1000"};
    return static_cast<long long>(*real);
}

}  // namespace dpmix::cli
