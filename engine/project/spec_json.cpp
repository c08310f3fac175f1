#include "engine/project/spec_json.h"
#include "engine/core/joined_list.h"
#include "engine/project/spec_json_parts.h"
#include "engine/project/strict_json.h"

#include "engine/core/file_door.h"
#include "engine/data/file_bytes.h"
#include "engine/project/declared_labels.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace dpmix::project {
namespace {

namespace fs = std::filesystem;
using namespace spec_reading;

const std::set<std::string> kLoaders = {"idx",   "mnist-json",  "csv-images",    "glyphs", "icon-theme", "dicom",
                                        "jsonl", "text-folder", "spam-assassin", "mbox",   "maildir"};

// A relative path is looked up in each folder of `bases` in turn (the first that has it wins).
std::string resolvePath(const std::string& written, const std::string& path, const std::vector<fs::path>& bases) {
    const fs::path p(written);
    // Through the door: a loop of links or a name too long is this field's error, not an exception.
    auto present = [&](const fs::path& candidate) {
        auto kind = files::kindOf(candidate.string());
        if (!kind) fail(path, "\"" + files::shown(written) + "\": " + kind.error().message);
        return *kind != files::Kind::Missing;
    };
    if (p.is_absolute()) {
        if (!present(p)) fail(path, "\"" + files::shown(written) + "\" does not exist");
        return p.lexically_normal().string();
    }
    std::string looked;
    for (const fs::path& base : bases) {
        auto absolute = files::absolute((base / p).string());
        if (!absolute) fail(path, "\"" + files::shown(written) + "\": " + absolute.error().message);
        if (present(*absolute)) return *absolute;
        looked += (looked.empty() ? "" : ", ") + files::shown(*absolute);
    }
    fail(path, "\"" + files::shown(written) + "\" not found (looked for " + looked +
                   "; relative paths are looked up next to the spec, then in the data folder: "
                   "$DPMIX_DATA_DIR, else <spec folder>/../data)");
}

SpecSource readSource(const Json& v, const std::string& path, const SpecLocation& where, bool sensitive) {
    if (!v.is_object()) wrongType(path, v, "an object {name, loader, path, options}");
    std::vector<std::string> keys = {"name", "loader", "path", "options"};
    if (sensitive)
        keys.push_back("user_level");
    else {
        keys.push_back("resize");
        keys.push_back("colour");
    }
    checkKeys(v, path, keys);
    SpecSource s;
    s.written.name = requireString(v, path, "name");
    s.written.loader = requireString(v, path, "loader");
    if (!kLoaders.count(s.written.loader)) {
        fail(child(path, "loader"), "\"" + s.written.loader + "\" is not a known loader (expected one of: " +
                                        core::joinedList(kLoaders) + ")");
    }
    s.written.path = requireString(v, path, "path");
    if (v.contains("options")) {
        const Json& options = v.at("options");
        if (!options.is_object()) wrongType(child(path, "options"), options, "an object of strings");
        for (const auto& item : options.items()) {
            if (!item.value().is_string())
                wrongType(child(child(path, "options"), item.key()), item.value(),
                          "a string (options are passed to the loader as text: write numbers in quotes)");
            s.written.options[item.key()] = item.value().get<std::string>();
        }
    }
    // A label set read from sensitive data would reveal which classes or findings occur in it (a
    // rare one becoming a task is itself a release): a sensitive source of a new spec declares
    // it (declared_labels.h). A spec read back from a project an older dpmix created still opens;
    // the stages that read the sensitive data refuse it then.
    if (sensitive && where.checkRanges)
        if (auto undeclared = refuseUndeclaredLabels(s.written, path)) throw SpecError(undeclared->message);
    // Acquisition-shifted copies (data/image_shift.h) widen the public pool from public data only:
    // nothing may derive from the sensitive source. A stored spec is refused too: no dpmix ever
    // loaded a shifted sensitive source, so no project holds one.
    if (sensitive && s.written.options.count("shift"))
        fail(child(child(path, "options"), "shift"),
             "not allowed: acquisition-shifted copies are a public-data tool; the sensitive data set is used as it is");
    if (v.contains("user_level")) {
        if (!v.at("user_level").is_boolean()) wrongType(child(path, "user_level"), v.at("user_level"), "true or false");
        s.userLevel = v.at("user_level").get<bool>();
    }
    // How a public source's images are fitted to the study's shape (docs/METHODS.md, "Several
    // public sources"): named explicitly, never guessed.
    if (v.contains("resize")) {
        s.resize = requireString(v, path, "resize");
        if (s.resize != "bilinear")
            fail(child(path, "resize"), "\"" + s.resize +
                                            "\" is not a resize rule (expected \"bilinear\": an "
                                            "antialiased triangle filter to the sensitive images' height and width)");
    }
    if (v.contains("colour")) {
        s.colour = requireString(v, path, "colour");
        if (s.colour != "replicate" && s.colour != "luminance")
            fail(child(path, "colour"),
                 "\"" + s.colour +
                     "\" is not a colour rule (expected \"replicate\": grey "
                     "copied to 3 channels, or \"luminance\": RGB to grey by 0.299 R + 0.587 G + "
                     "0.114 B)");
    }
    if (where.checkFiles) {
        s.resolved = s.written;
        // `path`: the spec's folder, then the data folder. Path options: next to `path` first
        // (as the loaders read them), then the same two folders.
        s.resolved.path = resolvePath(s.written.path, child(path, "path"), {where.specDir, where.dataDir});
        const fs::path sourceDir = fs::path(s.resolved.path).parent_path();
        for (const auto& key : pathOptionsOf(s.written.loader)) {
            auto it = s.written.options.find(key);
            if (it != s.written.options.end())
                s.resolved.options[key] = resolvePath(it->second, child(child(path, "options"), key),
                                                      {sourceDir, where.specDir, where.dataDir});
        }
    }
    return s;
}

std::vector<LabelTask> readTasks(const Json& parent, const std::string& path, const std::string& key) {
    std::vector<LabelTask> tasks;
    if (!parent.contains(key)) return tasks;
    const std::string listPath = child(path, key);
    const Json& list = parent.at(key);
    if (!list.is_array()) wrongType(listPath, list, "an array of {name, classes}");
    std::set<std::string> names;
    for (std::size_t i = 0; i < list.size(); ++i) {
        const std::string tp = element(listPath, i);
        const Json& t = list.at(i);
        if (!t.is_object()) wrongType(tp, t, "an object {name, classes}");
        const bool publicTask = key == "public";
        checkKeys(t, tp,
                  publicTask ? std::vector<std::string>{"name", "classes", "source"}
                             : std::vector<std::string>{"name", "classes"});
        LabelTask task;
        task.name = requireString(t, tp, "name");
        if (publicTask && t.contains("source")) task.source = requireString(t, tp, "source");
        // Public tasks are unique per (source, task): checkPublicTaskSources, once the sources are known.
        if (!publicTask && !names.insert(task.name).second)
            fail(child(tp, "name"), "\"" + task.name + "\" is used by an earlier task");
        if (!t.contains("classes")) fail(child(tp, "classes"), "missing (expected a non-empty array of class names)");
        const Json& classes = t.at("classes");
        if (!classes.is_array() || classes.empty())
            wrongType(child(tp, "classes"), classes, "a non-empty array of class names");
        std::set<std::string> seen;
        for (std::size_t c = 0; c < classes.size(); ++c) {
            const std::string cp = element(child(tp, "classes"), c);
            if (!classes.at(c).is_string() || classes.at(c).get<std::string>().empty())
                wrongType(cp, classes.at(c), "a non-empty class name");
            const std::string name = classes.at(c).get<std::string>();
            if (!seen.insert(name).second) fail(cp, "\"" + name + "\" appears twice in this task");
            task.classes.push_back(name);
        }
        tasks.push_back(std::move(task));
    }
    return tasks;
}

PrivacyTargets readPrivacy(const Json& root, privacy::Accountant defaultAccountant) {
    const std::string path = "privacy";
    const Json& p = requireObject(root, "", path);
    checkKeys(p, path,
              {"epsilon", "delta", "rho", "composition", "reproducible", "budget", "budget_store", "accountant"});
    PrivacyTargets out;
    out.accountant = defaultAccountant;
    if (!p.contains("epsilon")) fail("privacy.epsilon", "missing (expected a number > 0 or an array of them)");
    const Json& eps = p.at("epsilon");
    auto readEpsilon = [&](const Json& v, const std::string& ep) {
        const double e = numberValue(v, ep);
        // Below 1e-9 no noise can be calibrated (1e-320, a subnormal, was accepted); above 1e6 the
        // calibration overflows (1e308 ended `dpmix run` in SIGABRT).
        if (!(e >= kMinEpsilon && e <= kMaxEpsilon)) fail(ep, show(v) + " is out of range: expected ε in [1e-9, 1e6]");
        for (double seen : out.epsilons)
            if (seen == e) fail(ep, show(v) + " appears twice");
        out.epsilons.push_back(e);
    };
    if (eps.is_array()) {
        if (eps.empty()) fail("privacy.epsilon", "is an empty array: expected at least one ε > 0");
        for (std::size_t i = 0; i < eps.size(); ++i) readEpsilon(eps.at(i), element("privacy.epsilon", i));
    } else {
        readEpsilon(eps, "privacy.epsilon");
    }
    out.delta = openUnitInterval(p, path, "delta", "a probability δ");
    out.rho = openUnitInterval(p, path, "rho", "a fraction ρ");
    if (p.contains("composition")) {
        const Json& c = p.at("composition");
        if (!c.is_string() || !privacy::parseComposition(c.get<std::string>(), out.composition))
            fail("privacy.composition", show(c) + " is not allowed: expected \"parallel\" or \"sequential\"");
    }
    if (p.contains("reproducible")) {
        const Json& r = p.at("reproducible");
        if (!r.is_boolean())
            fail("privacy.reproducible",
                 show(r) + " is not allowed: expected true (seeded randomness, no release) or false");
        out.reproducible = r.get<bool>();
    }
    if (p.contains("budget")) {
        // The cap on what all the project's DP releases may spend on the sensitive data together.
        const double cap = numberValue(p.at("budget"), "privacy.budget");
        if (!(cap > 0.0))
            fail("privacy.budget", show(p.at("budget")) +
                                       " is out of range: expected the total ε the sensitive data may "
                                       "spend over all runs, a number > 0");
        out.budget = cap;
    }
    if (p.contains("budget_store")) {
        // The data owner's budget store, shared by every project on this sensitive data.
        const Json& b = p.at("budget_store");
        if (!b.is_string() || b.get<std::string>().empty() || b.get<std::string>().find('\0') != std::string::npos)
            fail("privacy.budget_store", show(b) +
                                             " is not allowed: expected the path of the budget store file "
                                             "(relative to the project file's folder), e.g. \"budget.dpmix-budget\"");
        out.budgetStore = b.get<std::string>();
    }
    if (p.contains("accountant")) {
        const Json& a = p.at("accountant");
        out.accountantNamed = true;
        if (!a.is_string() || !privacy::parseAccountant(a.get<std::string>(), out.accountant))
            fail("privacy.accountant", show(a) +
                                           " is not allowed: expected \"prv\" (privacy loss distributions, the "
                                           "tighter) or \"rdp\" (Renyi DP)");
    }
    return out;
}

// With several public sources every public task names the source whose classes it is over.
void checkPublicTaskSources(const ProjectSpec& spec) {
    std::set<std::string> sources;
    std::string list;
    for (const auto& s : spec.publicSources) {
        sources.insert(s.written.name);
        list += (list.empty() ? "\"" : ", \"") + s.written.name + "\"";
    }
    for (std::size_t i = 0; i < spec.publicTasks.size(); ++i) {
        const auto& task = spec.publicTasks[i];
        const std::string tp = element("tasks.public", i);
        if (task.source.empty()) {
            if (spec.publicSources.size() > 1)
                fail(child(tp, "source"), "missing: this study has " + std::to_string(spec.publicSources.size()) +
                                              " public sources (" + list +
                                              "), so each public task names the one "
                                              "whose classes it is over");
        } else if (!sources.count(task.source)) {
            fail(child(tp, "source"), "\"" + task.source + "\" is not a public source of this spec (public sources: " +
                                          (list.empty() ? "none" : list) + ")");
        }
    }
    // One component name per (source, task): with one source, a task that names it and one that
    // does not are over the same source.
    std::set<std::pair<std::string, std::string>> components;
    for (std::size_t i = 0; i < spec.publicTasks.size(); ++i) {
        const auto& task = spec.publicTasks[i];
        const std::string source = task.source.empty() && spec.publicSources.size() == 1
                                       ? spec.publicSources.front().written.name
                                       : task.source;
        if (!components.insert({source, task.name}).second)
            fail(child(element("tasks.public", i), "name"),
                 "\"" + task.name + "\" is used by an earlier task of source \"" + source + "\"");
    }
}

ProjectSpec readSpec(const Json& root, const SpecLocation& where) {
    if (!root.is_object()) wrongType("(top level)", root, "an object");
    checkKeys(root, "",
              {"name", "description", "public_sources", "sensitive", "tasks", "privacy", "stages", "psg", "seeds"});
    ProjectSpec spec;
    spec.name = requireString(root, "", "name");
    if (root.contains("description")) spec.description = requireString(root, "", "description", true);

    if (!root.contains("public_sources")) fail("public_sources", "missing (expected a non-empty array of sources)");
    const Json& sources = root.at("public_sources");
    if (!sources.is_array()) wrongType("public_sources", sources, "an array of sources");
    std::set<std::string> names;
    for (std::size_t i = 0; i < sources.size(); ++i) {
        const std::string sp = element("public_sources", i);
        spec.publicSources.push_back(readSource(sources.at(i), sp, where, false));
        const std::string& name = spec.publicSources.back().written.name;
        if (!names.insert(name).second) fail(child(sp, "name"), "\"" + name + "\" is used by an earlier source");
    }
    if (!root.contains("sensitive")) fail("sensitive", "missing (expected the sensitive data source)");
    spec.sensitive = readSource(root.at("sensitive"), "sensitive", where, true);
    if (names.count(spec.sensitive.written.name))
        fail("sensitive.name", "\"" + spec.sensitive.written.name + "\" is also the name of a public source");

    if (root.contains("tasks")) {
        const Json& tasks = requireObject(root, "", "tasks");
        checkKeys(tasks, "tasks", {"public", "sensitive"});
        spec.publicTasks = readTasks(tasks, "tasks", "public");
        spec.sensitiveTasks = readTasks(tasks, "tasks", "sensitive");
    }
    checkPublicTaskSources(spec);
    spec.privacy = readPrivacy(root, where.defaultAccountant);
    readStages(root, spec, where.checkRanges);
    readPsg(root, spec, where.checkRanges);
    if (spec.publicSources.empty() && !spec.psg)
        fail("public_sources",
             "is an empty array: expected at least one public source (only a spec with a \"psg\" "
             "section, which needs no public data, may register none)");

    if (!root.contains("seeds")) fail("seeds", "missing (expected a non-empty array of integers >= 0)");
    const Json& seeds = root.at("seeds");
    if (!seeds.is_array() || seeds.empty()) wrongType("seeds", seeds, "a non-empty array of integers >= 0");
    for (std::size_t i = 0; i < seeds.size(); ++i) {
        const long long s = integerValue(seeds.at(i), element("seeds", i));
        if (s < 0) fail(element("seeds", i), show(seeds.at(i)) + " is out of range: expected an integer >= 0");
        for (long long seen : spec.seeds)
            if (seen == s) fail(element("seeds", i), show(seeds.at(i)) + " appears twice");
        spec.seeds.push_back(s);
    }
    return spec;
}

}  // namespace

Status checkStageValue(const std::string& path, const std::string& key, double value) {
    // The same readers as the spec's, on a one-key stage object.
    Json stage;
    if (std::isfinite(value) && value == std::floor(value) && std::fabs(value) < 9e15)
        stage[key] = static_cast<long long>(value);
    else
        stage[key] = value;
    const auto dot = path.rfind('.');
    const std::string parent = dot == std::string::npos ? std::string() : path.substr(0, dot);
    try {
        if (!std::isfinite(value)) fail(path, showNumberText(value) + " is not a finite number");
        double real = 0.0;
        long long integer = 0;
        if (key == "clip")
            readPositive(stage, parent, key, kClip, true, real);
        else if (key == "lr")
            readPositive(stage, parent, key, kLearningRate, true, real);
        else if (key == "steps")
            readInteger(stage, parent, key, kSteps, true, integer);
        else if (key == "batch")
            readInteger(stage, parent, key, kBatch, true, integer);
        else if (key == "user_group_size")
            readInteger(stage, parent, key, kUserGroupSize, true, integer);
        else
            fail(path, "not a stage value (expected clip, lr, steps, batch or user_group_size)");
    } catch (const SpecError& e) {
        return Error{e.what()};
    }
    return std::nullopt;
}

std::set<std::string> pathOptionsOf(const std::string& loader) {
    if (loader == "idx") return {"labels"};
    if (loader == "csv-images") return {"image_root"};
    if (loader == "dicom") return {"labels_csv", "pseudonym_key"};
    return {};
}

fs::path defaultDataDir(const fs::path& specFile) {
    if (const char* env = std::getenv("DPMIX_DATA_DIR"); env && *env) return fs::path(env);
    auto absolute = files::absolute(specFile.string());  // fails only without a current folder
    return fs::path(absolute ? *absolute : specFile.string()).parent_path().parent_path() / "data";
}

namespace {

// A file given where a spec is expected that is plainly something else — a CSV manifest (a first
// line of comma-separated names, as a clinician's label table has) — gets what to do with it.
std::string notASpecHint(const std::string& text) {
    const std::string first = text.substr(0, text.find('\n'));
    const auto start = first.find_first_not_of(" \t\r\xEF\xBB\xBF");
    if (start == std::string::npos || first[start] == '{' || first[start] == '[') return {};
    if (first.find(',') == std::string::npos) return {};
    return ". It looks like a CSV manifest (a header row of comma-separated names): a study is a JSON spec "
           "that names it as a source, {\"name\": ..., \"loader\": \"csv-images\", \"path\": \"labels.csv\"} "
           "(docs/DATA.md, \"Loaders\"). The command line writes that spec for you from the manifest and the "
           "public data of a spec in projects/: dpmix new --from-csv labels.csv --public-from SPEC.json -o "
           "study.dpmix (docs/DATA.md, \"A study from a CSV manifest\"); or register it in the workbench "
           "(Study ▸ Set sensitive data…)";
}

}  // namespace

Result<ProjectSpec> parseProjectSpec(const std::string& text, const SpecLocation& where, const std::string& origin) {
    Json root;
    try {
        root = parseStrictJson(text);
    } catch (const nlohmann::json::exception& e) {  // syntax, and numbers beyond double range
        return Error{origin + ": not valid JSON (" + e.what() + ")" + notASpecHint(text)};
    } catch (const StrictJsonError& e) {
        return Error{origin + ": not a valid spec: " + e.what()};
    }
    try {
        return readSpec(root, where);
    } catch (const SpecError& e) {
        return Error{origin + ": " + e.what()};
    }
}

Result<ProjectSpec> loadProjectSpecFile(const fs::path& file) {
    // Through the door: a FIFO, a symlink loop or a path too long is a clear error, and a spec
    // is a few kilobytes — a file of more than 16 MiB is refused before it is read.
    auto text = files::readRegularFile(file.string(), "a spec (.json)", std::uint64_t(16) << 20);
    if (!text) return Error{file.string() + ": cannot read the spec file: " + text.error().message};
    std::error_code ec;
    const fs::path absolute = fs::absolute(file, ec);
    if (ec) return Error{file.string() + ": cannot resolve the spec's folder: " + ec.message()};
    SpecLocation where{absolute.parent_path(), defaultDataDir(file), true};
    return parseProjectSpec(*text, where, file.string());
}

}  // namespace dpmix::project
