// "csv-images" loader: a CSV manifest (NIH ChestX-ray14 / CheXpert / MIMIC-CXR layout) with an
// image path column, one column per label (1, 0, -1 = uncertain, blank = not mentioned) and an
// optional patient column, plus the image files it names.
#include "engine/data/csv_table.h"
#include "engine/data/file_bytes.h"
#include "engine/data/image_file.h"
#include "engine/data/image_loaders.h"
#include "engine/data/label_cells.h"
#include "engine/data/loader_options.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <filesystem>
#include <mutex>
#include <set>
#include <thread>

namespace dpmix::data {
namespace {

// NIH ChestX-ray14's Data_Entry_2017.csv lists findings in one column ("Effusion|Mass", or
// "No Finding"): turn it into one 0/1 column per finding, appended to the table. The findings
// are the "labels" option, or else every finding that occurs, sorted.
Result<std::vector<std::string>> expandFindingColumn(const SourceSpec& spec, const std::string& column,
                                                     CsvTable& table) {
    const int index = table.column(column);
    if (index < 0)
        return Error{sourceContext(spec) + "CSV file '" + spec.path + "' has no finding column '" + column + "'"};
    const std::string separator = optionOr(spec, "finding_separator", "|");
    if (separator.size() != 1)
        return Error{sourceContext(spec) + "option 'finding_separator' = '" + separator +
                     "' is not valid, expected one character"};
    const std::string none = optionOr(spec, "no_finding", "No Finding");
    std::vector<std::vector<std::string>> findings(table.rows.size());
    std::set<std::string> seen;
    for (std::size_t i = 0; i < table.rows.size(); ++i) {
        for (auto& f : splitList(table.rows[i][index], separator[0]))
            if (f != none) {
                seen.insert(f);
                findings[i].push_back(std::move(f));
            }
    }
    std::vector<std::string> names = spec.options.count("labels") ? splitList(spec.options.at("labels"))
                                                                  : std::vector<std::string>(seen.begin(), seen.end());
    for (const auto& name : names)
        if (table.column(name) >= 0)
            return Error{sourceContext(spec) + "finding '" + name + "' clashes with a CSV column of the same name"};
    for (std::size_t i = 0; i < table.rows.size(); ++i) {
        for (const auto& f : findings[i])
            if (std::find(names.begin(), names.end(), f) == names.end() && spec.options.count("labels"))
                return Error{sourceContext(spec) + "CSV file '" + spec.path + "', line " +
                             std::to_string(table.rowLines[i]) + ", column '" + column + "': finding '" + f +
                             "' is not in option 'labels'"};
        for (const auto& name : names)
            table.rows[i].push_back(std::find(findings[i].begin(), findings[i].end(), name) != findings[i].end() ? "1"
                                                                                                                 : "0");
    }
    table.header.insert(table.header.end(), names.begin(), names.end());
    return names;
}

// Pass 2: decode and resize every image into its slot of out.pixels. Decoding full-size X-rays
// dominates the load (≈10–20 ms each), so it runs on all cores. Rows are handed out in increasing
// order and a started row is always finished, so when rows fail the one reported is the first
// failing row, as in a sequential load. Progress callbacks run only on the caller's thread.
Status decodeAll(const SourceSpec& spec, const LoadControl& control, const std::vector<std::string>& files,
                 const std::vector<std::string>& where, ImageDataset& out) {
    const std::size_t n = files.size(), imageSize = out.imageSize();
    const std::size_t workers =
        std::max<std::size_t>(1, std::min<std::size_t>({std::thread::hardware_concurrency(), 8, n / 8 + 1}));
    std::atomic<std::size_t> next{0}, done{0};
    std::atomic<bool> stop{false};
    std::mutex errorMutex;
    std::size_t errorRow = n;
    std::string errorMessage;
    // Decodes the next unclaimed row; false when there is none left or the load must stop.
    auto decodeNext = [&]() -> bool {
        if (stop.load(std::memory_order_relaxed)) return false;
        const std::size_t i = next.fetch_add(1);
        if (i >= n) return false;
        auto image = decodeImageFile(files[i], out.channels);
        if (!image) {
            const std::lock_guard lock(errorMutex);
            if (i < errorRow) {
                errorRow = i;
                errorMessage = image.error().message;
            }
            stop = true;
            return false;
        }
        const DecodedImage resized = resizeImage(*image, out.height, out.width);
        std::copy(resized.pixels.begin(), resized.pixels.end(), out.pixels.begin() + i * imageSize);
        done.fetch_add(1);
        if (control.cancel.isCancelled()) stop = true;
        return true;
    };
    std::vector<std::thread> threads;
    for (std::size_t t = 1; t < workers; ++t)
        threads.emplace_back([&] {
            while (decodeNext()) {}
        });
    std::size_t reported = 0;
    while (decodeNext()) {  // the caller's thread works too, reporting between images
        const std::size_t now = done.load();
        if (control.progress && now / 64 != reported / 64) {
            report(control.progress, {"load " + spec.name, static_cast<long long>(now), static_cast<long long>(n), ""});
            reported = now;
        }
    }
    for (auto& t : threads) t.join();
    throwIfCancelled(control.cancel);
    if (errorRow < n) return Error{sourceContext(spec) + where[errorRow] + ": " + errorMessage};
    report(control.progress, {"load " + spec.name, static_cast<long long>(n), static_cast<long long>(n), ""});
    return std::nullopt;
}

}  // namespace

namespace {

// A column named twice would silently read one of them.
Status checkColumnsUnique(const SourceSpec& spec, const CsvTable& csv) {
    const CsvTable* table = &csv;
    for (std::size_t i = 0; i < table->header.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
            if (table->header[i] == table->header[j])
                return Error{sourceContext(spec) + "CSV file '" + spec.path + "' has two columns named '" +
                             table->header[i] + "' (columns " + std::to_string(j + 1) + " and " +
                             std::to_string(i + 1) + "): expected each column once"};
    return std::nullopt;
}

// The manifest as a table (gzip or not), each column named once.
Result<CsvTable> readCsvTable(const SourceSpec& spec) {
    auto text = readFileMaybeGzip(spec.path);
    if (!text) return Error{sourceContext(spec) + text.error().message};
    auto parsed = parseCsv(*text, spec.path);
    if (!parsed) return Error{sourceContext(spec) + parsed.error().message};
    if (auto bad = checkColumnsUnique(spec, *parsed)) return *bad;
    return parsed;
}

// A row's image file: its path, relative to the image root unless absolute.
Result<std::string> imageFileOf(const SourceSpec& spec, const std::string& where, const std::string& cell,
                                const std::string& imageRoot) {
    const std::string imagePath = trim(cell);
    if (imagePath.empty()) return Error{sourceContext(spec) + where + ": empty image path"};
    return std::filesystem::path(imagePath).is_absolute() ? imagePath
                                                          : (std::filesystem::path(imageRoot) / imagePath).string();
}

// The label columns without a finding column: the `labels` option, or every column but the path,
// the user and the ignored ones.
std::vector<std::string> labelColumnNames(const SourceSpec& spec, const CsvTable& csv, const std::string& pathColumn,
                                          const std::string& userColumn) {
    const CsvTable* table = &csv;
    std::vector<std::string> labelNames;
    if (spec.options.count("labels")) {
        labelNames = splitList(spec.options.at("labels"));
    } else {
        const auto ignored = splitList(optionOr(spec, "ignore_columns", ""));
        for (const auto& name : table->header)
            if (name != pathColumn && name != userColumn &&
                std::find(ignored.begin(), ignored.end(), name) == ignored.end())
                labelNames.push_back(name);
    }
    return labelNames;
}

// Without a "labels" option every column but the path and the user is read as a label, so a
// patient id or an age column fails here: say how to read it as what it is.
std::string notALabelColumnHint(const SourceSpec& spec, const std::string& column) {
    if (spec.options.count("labels")) return {};
    return ". Every column but the image path (and the user column) is read as a label unless the labels "
           "are named: if '" +
           column +
           "' says whose image it is, choose it as the user column (User column in the source dialog, option "
           "user_column), which user-level privacy needs; otherwise leave it out with option ignore_columns "
           "(or name the label columns with option labels)";
}

}  // namespace

Result<ImageDataset> loadCsvImagesSource(const SourceSpec& spec, const LoadControl& control) {
    if (auto unknown =
            checkKnownOptions(spec,
                              {"path_column", "labels", "ignore_columns", "user_column", "size", "channels",
                               "uncertain", "blank", "image_root", "finding_column", "finding_separator", "no_finding"},
                              {"uncertain.", "blank."}))
        return *unknown;
    auto limit = limitOption(spec);
    if (!limit) return limit.error();
    auto size = sizeOption(spec, "64");
    if (!size) return size.error();
    auto channels = integerOption(spec, "channels", 1, 1, 3);
    if (!channels) return channels.error();
    if (*channels == 2)
        return Error{sourceContext(spec) + "option 'channels' = '2' is not valid, expected 1 (grey) or 3 (RGB)"};

    auto parsed = readCsvTable(spec);
    if (!parsed) return parsed.error();
    CsvTable csv = std::move(parsed).value();
    const CsvTable* table = &csv;
    const std::string pathColumn = optionOr(spec, "path_column", "Path");
    const int pathIndex = table->column(pathColumn);
    if (pathIndex < 0)
        return Error{sourceContext(spec) + "CSV file '" + spec.path + "' has no image path column '" + pathColumn +
                     "' (set option path_column)"};
    const std::string userColumn = optionOr(spec, "user_column", "");
    const int userIndex = userColumn.empty() ? -1 : table->column(userColumn);
    if (!userColumn.empty() && userIndex < 0)
        return Error{sourceContext(spec) + "CSV file '" + spec.path + "' has no user column '" + userColumn + "'"};

    const std::string findingColumn = optionOr(spec, "finding_column", "");
    std::vector<std::string> labelNames;
    if (!findingColumn.empty()) {  // the findings are the labels; other columns are not
        auto expanded = expandFindingColumn(spec, findingColumn, csv);
        if (!expanded) return expanded.error();
        labelNames = *expanded;
    } else {
        labelNames = labelColumnNames(spec, csv, pathColumn, userColumn);
    }
    if (labelNames.empty()) return Error{sourceContext(spec) + "CSV file '" + spec.path + "' has no label columns"};
    auto columns = labelColumns(spec, *table, spec.path, labelNames);
    if (!columns) return columns.error();
    const auto& [labelIndex, uncertainPolicy, blankPolicy] = *columns;
    const std::size_t n = std::min(table->rows.size(), *limit);
    if (n == 0) return Error{sourceContext(spec) + "CSV file '" + spec.path + "' lists no images (empty data set)"};
    const std::string imageRoot = optionOr(spec, "image_root", std::filesystem::path(spec.path).parent_path().string());

    ImageDataset out;
    out.channels = static_cast<int>(*channels);
    out.height = size->first;
    out.width = size->second;
    out.labelNames = labelNames;
    const std::size_t l = labelNames.size(), imageSize = out.imageSize();
    out.pixels.resize(n * imageSize);
    out.labels.assign(n * l, 0.0f);
    out.labelMask.assign(n * l, 1);
    bool anyMasked = false;
    std::vector<std::string> imageFiles(n), imageWhere(n);
    for (std::size_t i = 0; i < n; ++i) {  // pass 1: labels, users, paths (cheap, sequential)
        const auto& row = table->rows[i];
        const std::string where = "CSV file '" + spec.path + "', line " + std::to_string(table->rowLines[i]);
        for (std::size_t j = 0; j < l; ++j)
            if (auto bad = readLabelCell(spec, where, labelNames[j], row[labelIndex[j]], uncertainPolicy[j],
                                         blankPolicy[j], out.labels[i * l + j], out.labelMask[i * l + j], anyMasked,
                                         notALabelColumnHint(spec, labelNames[j])))
                return *bad;
        auto imageFile = imageFileOf(spec, where, row[pathIndex], imageRoot);
        if (!imageFile) return imageFile.error();
        imageFiles[i] = *imageFile;
        imageWhere[i] = where;
        if (userIndex >= 0) {
            out.users.push_back(trim(row[userIndex]));
            if (out.users.back().empty())
                return Error{sourceContext(spec) + where + ": empty user id in column '" + userColumn + "'"};
        }
    }
    if (auto failed = decodeAll(spec, control, imageFiles, imageWhere, out)) return *failed;
    if (!anyMasked) out.labelMask.clear();  // empty = all known
    return out;
}

}  // namespace dpmix::data
