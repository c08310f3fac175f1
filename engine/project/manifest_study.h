#pragma once
// A study spec from a CSV manifest of the clinic's images (`dpmix new --from-csv`): the manifest
// becomes the sensitive csv-images source, its label columns the sensitive tasks, and an existing
// spec lends the public data, public tasks, stages and seeds (docs/DATA.md, "A study from a CSV
// manifest"). Every choice the user leaves open is made from the manifest's header row only —
// never from its values, since a label set read from the data would reveal which findings occur
// (engine/project/declared_labels.h) — and said in words, so the user can check it.
#include "engine/core/result.h"
#include "engine/project/project_spec.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace dpmix::project {

/// What the user says; every empty or unset value is decided from the header and explained.
struct ManifestStudyChoices {
    std::string name;                 // the study's name; empty: the manifest's file name without .csv
    std::string pathColumn;           // the column of image paths; empty: found by its name (Path, Image, File…)
    std::string userColumn;           // the patient column; empty: found by its name; "none": one image is the unit
    std::vector<std::string> labels;  // the label columns; empty: every column but the others named here
    std::vector<std::string> ignore;  // columns that are neither (age, sex, view…: found by name too)
    std::string size;                 // images resized to this ("64" or "HxW"); empty: the loader's 64×64
    std::optional<double> epsilon;    // unset: the template's first ε
    std::optional<double> rho;        // unset: the template's ρ
    std::optional<double> delta;      // unset: the largest power of ten below 1 / (10 · rows)
};

/// The spec and what was decided for the user, one sentence each.
struct ManifestStudy {
    ProjectSpec spec;
    std::vector<std::string> notes;
};

/// The study over `manifest` (a CSV file, read here), taking from `publicTemplate` (a spec read with
/// its paths resolved) its public sources — their paths made absolute, so the new spec works in any
/// folder, and fitted to the sensitive images' shape ("resize": "bilinear") —, public tasks, privacy
/// accountant and composition, stages and seeds. Its sensitive
/// source, tasks, budget, budget store and private-set section are not taken: they belong to the
/// template's own sensitive data. `specDir` is the folder the spec will be written to: the
/// manifest's path is stored relative to it when it lies below it, else absolute. An error names
/// the column or option and what is expected (a label column that does not exist, no label column
/// left, no path column found).
Result<ManifestStudy> studyFromManifest(const std::filesystem::path& manifest, const ProjectSpec& publicTemplate,
                                        const ManifestStudyChoices& choices, const std::filesystem::path& specDir);

}  // namespace dpmix::project
