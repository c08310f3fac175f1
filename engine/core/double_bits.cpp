#include "engine/core/double_bits.h"

#include <stdexcept>

#include <cstdint>
#include <cstdio>
#include <cstring>

namespace dpmix {

std::string doubleToHexBits(double value) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(bits));
    return buf;
}

Result<double> doubleFromHexBits(std::string_view text) {
    const Error notHex{"a number is not 16 hex digits"};
    if (text.size() != 16) return notHex;
    std::uint64_t bits = 0;
    for (char c : text) {
        const int d = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
        if (d < 0) return notHex;
        bits = (bits << 4) | static_cast<std::uint64_t>(d);
    }
    double value = 0;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

double doubleFromHexBitsOrThrow(std::string_view text) {
    auto v = doubleFromHexBits(text);
    if (!v) throw std::invalid_argument(v.error().message);
    return *v;
}

}  // namespace dpmix
