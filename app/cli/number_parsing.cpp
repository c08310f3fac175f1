#include "app/cli/number_parsing.h"

#include "engine/core/number_text.h"

namespace dpmix::cli {

Result<double> parseReal(const std::string& text, const std::string& where) {
    if (auto v = parseDecimalText(text)) return *v;
    return Error{where + " = '" + text + "' is not a number: expected a finite decimal number such as 0.01 or 1e-5"};
}

Result<long long> parseInteger(const std::string& text, const std::string& where) {
    if (auto v = parseWholeNumberText(text)) return *v;
    return Error{where + " = '" + text + "' is not a whole number: expected an integer such as 1000"};
}

}  // namespace dpmix::cli
