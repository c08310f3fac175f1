// The CSV manifest parser (csv-images sources): quotes, CR/LF mixes, ragged rows, duplicate
// columns, NUL bytes.
#include "engine/data/csv_table.h"

#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    (void)dpmix::data::parseCsv(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.csv");
    return 0;
}
