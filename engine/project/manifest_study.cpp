#include "engine/project/manifest_study.h"

#include "engine/core/file_door.h"
#include "engine/core/joined_list.h"
#include "engine/data/csv_table.h"
#include "engine/data/source_loader.h"
#include "engine/privacy/parameters.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

namespace dpmix::project {

namespace fs = std::filesystem;

// Named, not anonymous: this library compiles in unity batches, where two files' anonymous
// helpers of the same name would collide (docs/DEVELOPING.md, "Build speed").
namespace manifest_study_parts {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

// The first header column whose name (case aside) is one of `names`; empty when none is.
std::string columnNamed(const std::vector<std::string>& header, std::initializer_list<const char*> names) {
    for (const auto& h : header)
        for (const char* n : names)
            if (lower(h) == n) return h;
    return {};
}

// Columns that describe the image or the patient rather than a finding, by their usual names
// (CheXpert, MIMIC-CXR, NIH ChestX-ray14).
bool describesNotFinds(const std::string& column) {
    static const std::set<std::string> kNames = {
        "sex",           "gender",          "age",   "patient age", "patient sex", "patient gender", "view",
        "view position", "frontal/lateral", "ap/pa", "follow-up #", "study",       "study id"};
    return kNames.count(lower(column)) > 0;
}

Status requireColumn(const data::CsvTable& table, const std::string& column, const std::string& option,
                     const fs::path& manifest) {
    if (table.column(column) >= 0) return std::nullopt;
    return Error{option + " = \"" + column + "\" is not a column of " + manifest.string() + ": expected one of " +
                 core::quotedList(table.header)};
}

// The manifest's path as the spec stores it: relative below the spec's folder, else absolute.
std::string storedPath(const fs::path& manifest, const fs::path& specDir) {
    std::error_code ec;
    const fs::path dir = fs::weakly_canonical(fs::absolute(specDir, ec), ec);
    const bool dirKnown = !ec;
    fs::path absolute = fs::weakly_canonical(fs::absolute(manifest, ec), ec);
    if (ec) return manifest.generic_string();
    const fs::path relative = absolute.lexically_relative(dir);
    if (dirKnown && !relative.empty() && *relative.begin() != "..") return relative.generic_string();
    return absolute.generic_string();
}

// The largest power of ten below 1 / (10 n): δ well below one in n, as the runs' warnings ask.
double deltaFor(long long rows) {
    return std::pow(10.0, std::floor(std::log10(1.0 / (10.0 * static_cast<double>(std::max(1LL, rows))))));
}

struct Columns {
    std::string path, user;
    std::vector<std::string> labels, ignored;
};

Result<Columns> chooseColumns(const data::CsvTable& table, const ManifestStudyChoices& c, const fs::path& manifest,
                              std::vector<std::string>& notes) {
    Columns out;
    out.path = c.pathColumn;
    if (out.path.empty()) {
        out.path = columnNamed(table.header, {"path", "image", "image path", "image_path", "image index", "file",
                                              "filename", "file_name", "filepath"});
        if (out.path.empty())
            return Error{"--path-column: no column of " + manifest.string() +
                         " is named like one of image paths (Path, Image, File…): name it, one of " +
                         core::quotedList(table.header)};
        notes.push_back("image paths: column \"" + out.path + "\"");
    } else if (auto e = requireColumn(table, out.path, "--path-column", manifest)) {
        return *e;
    }
    out.user = c.userColumn == "none" ? std::string() : c.userColumn;
    if (c.userColumn.empty()) {
        out.user = columnNamed(table.header, {"patient", "patient id", "patient_id", "patientid", "subject",
                                              "subject id", "subject_id", "user", "user id", "user_id"});
        notes.push_back(out.user.empty()
                            ? "no patient column found by name: the guarantee protects one image, not one patient "
                              "(--user-column NAME protects patients)"
                            : "patients: column \"" + out.user +
                                  "\" — the guarantee protects one patient, all of "
                                  "their images (--user-column none for one image)");
    } else if (!out.user.empty()) {
        if (auto e = requireColumn(table, out.user, "--user-column", manifest)) return *e;
    }
    for (const auto& i : c.ignore)
        if (auto e = requireColumn(table, i, "--ignore", manifest)) return *e;
    if (!c.labels.empty()) {
        for (const auto& l : c.labels) {
            if (auto e = requireColumn(table, l, "--labels", manifest)) return *e;
            if (l == out.path || l == out.user)
                return Error{"--labels: \"" + l + "\" is the " + (l == out.path ? "image path" : "patient") +
                             " column, not a label"};
            if (l.find(',') != std::string::npos)
                return Error{"--labels: \"" + l +
                             "\" holds a comma, which the csv-images loader's label list "
                             "cannot name: rename the column"};
        }
        out.labels = c.labels;
    } else {
        for (const auto& h : table.header) {
            if (h == out.path || h == out.user || std::find(c.ignore.begin(), c.ignore.end(), h) != c.ignore.end())
                continue;
            if (describesNotFinds(h) || h.find(',') != std::string::npos) {
                out.ignored.push_back(h);
                continue;
            }
            out.labels.push_back(h);
        }
        if (out.labels.empty())
            return Error{"--labels: no column of " + manifest.string() + " is left for labels (columns " +
                         core::quotedList(table.header) + ")"};
        notes.push_back("labels: " + core::quotedList(out.labels) +
                        " — every other column, named from the header alone (the values are not read: a label set "
                        "read from the data would reveal which findings occur); one sensitive task each");
        if (!out.ignored.empty())
            notes.push_back("not labels (they describe the image or patient): " + core::quotedList(out.ignored));
    }
    for (const auto& i : c.ignore) out.ignored.push_back(i);
    return out;
}

}  // namespace manifest_study_parts

namespace parts = manifest_study_parts;

Result<ManifestStudy> studyFromManifest(const fs::path& manifest, const ProjectSpec& publicTemplate,
                                        const ManifestStudyChoices& choices, const fs::path& specDir) {
    // A manifest of a million rows is ~100 MB; more is not a manifest.
    auto text = files::readRegularFile(manifest.string(), "a CSV manifest", std::uint64_t(512) << 20);
    if (!text) return Error{manifest.string() + ": cannot read the manifest: " + text.error().message};
    auto table = data::parseCsv(*text, manifest.string());
    if (!table) return table.error();
    if (table->rows.empty()) return Error{manifest.string() + ": the manifest has a header but no image rows"};
    ManifestStudy out;
    auto columns = parts::chooseColumns(*table, choices, manifest, out.notes);
    if (!columns) return columns.error();

    ProjectSpec& spec = out.spec;
    spec.name = choices.name.empty() ? manifest.stem().string() : choices.name;
    spec.description = "From the CSV manifest " + manifest.filename().string() +
                       "; public data, stages and seeds from "
                       "the study \"" +
                       publicTemplate.name + "\"";
    std::set<std::string> publicNames;
    for (const SpecSource& source : publicTemplate.publicSources) {
        SpecSource copy;
        copy.written = source.resolved.path.empty() ? source.written : source.resolved;
        copy.resolved = source.resolved;
        copy.colour = source.colour;
        const bool images = data::isImageLoader(copy.written.loader);
        copy.resize = images ? "bilinear" : source.resize;
        publicNames.insert(copy.written.name);
        spec.publicSources.push_back(std::move(copy));
    }
    if (!spec.publicSources.empty())
        out.notes.push_back("public data: " + std::to_string(spec.publicSources.size()) + " source(s) of \"" +
                            publicTemplate.name + "\", their images fitted to the clinic's (resize: bilinear)");

    SpecSource& sensitive = spec.sensitive;
    sensitive.written.name = "clinic";
    while (publicNames.count(sensitive.written.name)) sensitive.written.name += "-images";
    sensitive.written.loader = "csv-images";
    sensitive.written.path = parts::storedPath(manifest, specDir);
    sensitive.written.options["path_column"] = columns->path;
    sensitive.written.options["labels"] = core::joinedList(columns->labels, ",");
    if (!columns->ignored.empty())
        sensitive.written.options["ignore_columns"] = core::joinedList(columns->ignored, ",");
    if (!columns->user.empty()) sensitive.written.options["user_column"] = columns->user;
    sensitive.userLevel = !columns->user.empty();
    if (!choices.size.empty())
        sensitive.written.options["size"] = choices.size;
    else
        out.notes.push_back("images resized to 64×64 (the csv-images default; --size to change)");
    for (const auto& label : columns->labels) spec.sensitiveTasks.push_back({label, {label}, ""});
    spec.publicTasks = publicTemplate.publicTasks;

    spec.privacy = publicTemplate.privacy;
    spec.privacy.budget.reset();
    spec.privacy.budgetStore.clear();
    spec.privacy.reproducible = false;
    if (choices.epsilon) spec.privacy.epsilons = {*choices.epsilon};
    if (choices.rho) spec.privacy.rho = *choices.rho;
    const long long rows = static_cast<long long>(table->rows.size());
    if (choices.delta) {
        spec.privacy.delta = *choices.delta;
    } else {
        spec.privacy.delta = parts::deltaFor(rows);
        out.notes.push_back("δ = " + privacy::formatNumber(spec.privacy.delta) + ", below 1/(10·" +
                            std::to_string(rows) + " images) (--delta to change)");
    }
    spec.mixture = publicTemplate.mixture;
    spec.finetune = publicTemplate.finetune;
    spec.pretrain = publicTemplate.pretrain;
    spec.seeds = publicTemplate.seeds;
    return out;
}

}  // namespace dpmix::project
