#include "engine/project/spec_fact_checks.h"

#include "engine/core/joined_list.h"
#include "engine/data/image_fit.h"

#include <set>
#include <string>

namespace dpmix::project {
namespace {

// Checks that every task class is a label of the data it is defined over: a public task's
// classes are labels of its own source (of the only one, when it names none).
Status checkTasksAgainstFacts(const ProjectSpec& spec, const std::vector<SourceFacts>& facts) {
    auto checkTask = [&](const LabelTask& task, std::size_t t, const std::set<std::string>& labels,
                         const std::string& scope, const std::string& what) -> Status {
        for (std::size_t c = 0; c < task.classes.size(); ++c)
            if (!labels.count(task.classes[c]))
                return Error{"tasks." + scope + "[" + std::to_string(t) + "].classes[" + std::to_string(c) + "]: \"" +
                             task.classes[c] + "\" is not a label of " + what +
                             (labels.empty() ? " (it has no labels)" : " (labels: " + core::quotedList(labels) + ")")};
        return std::nullopt;
    };
    for (std::size_t t = 0; t < spec.publicTasks.size(); ++t) {
        const LabelTask& task = spec.publicTasks[t];
        std::size_t owner = 0;
        while (owner < spec.publicSources.size() && !task.source.empty() &&
               spec.publicSources[owner].written.name != task.source)
            ++owner;
        if (owner >= spec.publicSources.size()) continue;  // the spec reader names a wrong source
        const std::set<std::string> labels(facts[owner].labelNames.begin(), facts[owner].labelNames.end());
        if (auto e = checkTask(task, t, labels, "public",
                               "public source \"" + spec.publicSources[owner].written.name + "\""))
            return e;
    }
    const SourceFacts& sensitive = facts.back();
    const std::set<std::string> sensitiveLabels(sensitive.labelNames.begin(), sensitive.labelNames.end());
    for (std::size_t t = 0; t < spec.sensitiveTasks.size(); ++t)
        if (auto e = checkTask(spec.sensitiveTasks[t], t, sensitiveLabels, "sensitive",
                               "the sensitive source \"" + spec.sensitive.written.name + "\""))
            return e;
    if (spec.sensitive.userLevel && sensitive.users <= 0)
        return Error{"sensitive.user_level: true, but the sensitive source \"" + spec.sensitive.written.name +
                     "\" has no user ids (user-level privacy needs one user per example)"};
    return std::nullopt;
}

// AdaMix-R's shots (stages.finetune.shots_source) carry the sensitive tasks' labels: the named
// public source must be images whose labels include every class the sensitive tasks name (or,
// without sensitive tasks, every label of the sensitive source). How many images each class has
// is checked when the study loads (pipeline/image_study.cpp), before anything is stored.
Status checkShotsSource(const ProjectSpec& spec, const std::vector<SourceFacts>& facts) {
    if (!spec.finetune.adamix()) return std::nullopt;
    const std::string field = "stages.finetune.shots_source";
    std::size_t owner = 0;
    while (owner < spec.publicSources.size() && spec.publicSources[owner].written.name != spec.finetune.shotsSource)
        ++owner;
    if (owner >= spec.publicSources.size())
        return Error{field + ": \"" + spec.finetune.shotsSource + "\" is not a public source of this project", field};
    const SourceFacts& f = facts[owner];
    if (f.kind != data::SourceKind::Images)
        return Error{field + ": public source \"" + spec.finetune.shotsSource + "\" is " + data::nameOf(f.kind) +
                         " data: AdaMix-R's shots are labelled images",
                     field};
    std::vector<std::string> needed;
    if (!spec.sensitiveTasks.empty()) {
        for (const auto& t : spec.sensitiveTasks) needed.insert(needed.end(), t.classes.begin(), t.classes.end());
    } else {
        needed = facts.back().labelNames;
    }
    const std::set<std::string> labels(f.labelNames.begin(), f.labelNames.end());
    std::vector<std::string> lacking;
    for (const auto& c : needed)
        if (!labels.count(c) && std::find(lacking.begin(), lacking.end(), c) == lacking.end()) lacking.push_back(c);
    const std::string missing = core::quotedList(lacking), list = core::quotedList(f.labelNames);
    if (!missing.empty())
        return Error{field + ": public source \"" + spec.finetune.shotsSource + "\" lacks the sensitive labels " +
                         missing + " (its labels: " + (list.empty() ? "none" : list) +
                         "): AdaMix-R's shots need the sensitive task's label space",
                     field};
    return std::nullopt;
}

// One model reads every image of an image study: a public source of another shape than the
// sensitive images needs the rule that fits it (docs/METHODS.md, "Several public sources"; the
// rule itself: data::fitProblem, which the loader applies too).
Status checkImageShapes(const ProjectSpec& spec, const std::vector<SourceFacts>& facts) {
    const SourceFacts& sensitive = facts.back();
    if (sensitive.kind != data::SourceKind::Images) return std::nullopt;
    const data::ImageShape study{sensitive.channels, sensitive.height, sensitive.width};
    for (std::size_t i = 0; i < spec.publicSources.size(); ++i) {
        const SourceFacts& f = facts[i];
        const SpecSource& s = spec.publicSources[i];
        if (f.kind != data::SourceKind::Images) continue;  // the study loader names a text source in an image study
        // The spec reader has checked the words; an unknown one fits nothing.
        const auto resize = data::parseResizeRule(s.resize);
        const auto colour = data::parseColourRule(s.colour);
        const std::string problem =
            data::fitProblem({f.channels, f.height, f.width}, study, resize ? *resize : data::ResizeRule::None,
                             colour ? *colour : data::ColourRule::None);
        if (!problem.empty())
            return Error{"public_sources[" + std::to_string(i) + "] (\"" + s.written.name + "\"): " + problem};
    }
    return std::nullopt;
}

}  // namespace

Status checkSpecAgainstFacts(const ProjectSpec& spec, const std::vector<SourceFacts>& facts) {
    if (auto e = checkTasksAgainstFacts(spec, facts)) return e;
    if (auto e = checkImageShapes(spec, facts)) return e;
    return checkShotsSource(spec, facts);
}

}  // namespace dpmix::project
