#include "app/workbench/study/study_builder.h"
#include "app/workbench/parameters/accountant_choice.h"

#include "app/workbench/parameters/number_parsing.h"

#include <QRegularExpression>
#include <QUndoStack>

#include <algorithm>

#include <nlohmann/json.hpp>

namespace dpmix::workbench {

std::vector<std::string> StudyDraft::sourceNames() const {
    std::vector<std::string> names;
    for (const auto& s : publicSources) names.push_back(s.source.name);
    if (sensitive) names.push_back(sensitive->source.name);
    return names;
}

const std::vector<project::LabelTask>& StudyDraft::tasks(SourceRole role) const {
    return role == SourceRole::Public ? publicTasks : sensitiveTasks;
}

long long StudyDraft::mixtureComponents() const {
    long long k = 0;
    for (const SourceRegistration& source : publicSources)
        k += static_cast<long long>(project::ProjectSpec::componentCount(
            tasksOf(SourceRole::Public, source.source.name).size(), source.facts.labelNames.size()));
    return k;
}

std::vector<project::LabelTask> StudyDraft::tasksOf(SourceRole role, const std::string& sourceName) const {
    if (role == SourceRole::Sensitive) return sensitiveTasks;
    std::vector<project::LabelTask> out;
    for (const auto& t : publicTasks)
        if (t.source == sourceName) out.push_back(t);
    return out;
}

namespace {

// Public tasks carry their source's name in the draft; `name` loses its tasks.
void dropTasksOf(std::vector<project::LabelTask>& tasks, const std::string& name) {
    tasks.erase(
        std::remove_if(tasks.begin(), tasks.end(), [&](const project::LabelTask& t) { return t.source == name; }),
        tasks.end());
}

// The public tasks in the order of their sources (the spec then reads source by source, as the
// components are numbered).
void groupTasksBySource(StudyDraft& draft) {
    auto rank = [&](const project::LabelTask& t) {
        for (std::size_t i = 0; i < draft.publicSources.size(); ++i)
            if (draft.publicSources[i].source.name == t.source) return i;
        return draft.publicSources.size();
    };
    std::stable_sort(draft.publicTasks.begin(), draft.publicTasks.end(),
                     [&](const project::LabelTask& a, const project::LabelTask& b) { return rank(a) < rank(b); });
}

}  // namespace

StudyBuilder::StudyBuilder(QUndoStack* undo, QObject* parent) : QObject(parent), undo_(undo) {}

void StudyBuilder::push(const QString& text, StudyDraft after) {
    undo_->push(new StudyDraftCommand(*this, draft_, std::move(after), text));
}

void StudyBuilder::registerSource(SourceRole role, const SourceRegistration& registration,
                                  const std::vector<project::LabelTask>& tasks, const std::string& replaces) {
    StudyDraft after = draft_;
    const QString name = QString::fromStdString(registration.source.name);
    QString text;
    if (role == SourceRole::Sensitive) {
        text = after.sensitive ? tr("Replace sensitive data with %1").arg(name) : tr("Set sensitive data %1").arg(name);
        after.sensitive = registration;
        after.sensitiveTasks = tasks;
    } else {
        const std::string& key = replaces.empty() ? registration.source.name : replaces;
        auto same = std::find_if(after.publicSources.begin(), after.publicSources.end(),
                                 [&](const SourceRegistration& s) { return s.source.name == key; });
        if (same != after.publicSources.end()) {
            *same = registration;
            text = tr("Change public source %1").arg(name);
        } else {
            after.publicSources.push_back(registration);
            text = tr("Add public source %1").arg(name);
        }
        dropTasksOf(after.publicTasks, key);
        for (auto task : tasks) {
            task.source = registration.source.name;
            after.publicTasks.push_back(std::move(task));
        }
        groupTasksBySource(after);
    }
    push(text, std::move(after));
}

bool StudyBuilder::removePublicSource(const std::string& name) {
    StudyDraft after = draft_;
    auto& sources = after.publicSources;
    auto it = std::find_if(sources.begin(), sources.end(),
                           [&](const SourceRegistration& s) { return s.source.name == name; });
    if (it == sources.end()) return false;
    sources.erase(it);
    dropTasksOf(after.publicTasks, name);
    push(tr("Remove public source %1").arg(QString::fromStdString(name)), std::move(after));
    return true;
}

bool StudyBuilder::removeSensitive() {
    if (!draft_.sensitive) return false;
    StudyDraft after = draft_;
    const QString name = QString::fromStdString(after.sensitive->source.name);
    after.sensitive.reset();
    push(tr("Remove sensitive data %1").arg(name), std::move(after));
    return true;
}

const SourceRegistration* StudyBuilder::find(SourceRole role, const std::string& name) const {
    if (role == SourceRole::Sensitive)
        return draft_.sensitive && draft_.sensitive->source.name == name ? &*draft_.sensitive : nullptr;
    for (const auto& s : draft_.publicSources)
        if (s.source.name == name) return &s;
    return nullptr;
}

void StudyBuilder::setTasks(SourceRole role, const std::vector<project::LabelTask>& tasks) {
    StudyDraft after = draft_;
    (role == SourceRole::Public ? after.publicTasks : after.sensitiveTasks) = tasks;
    push(role == SourceRole::Public ? tr("Edit public tasks") : tr("Edit sensitive tasks"), std::move(after));
}

void StudyBuilder::clear() { apply(StudyDraft{}); }

void StudyBuilder::apply(const StudyDraft& draft) {
    draft_ = draft;
    Q_EMIT changed();
}

Result<project::ProjectSpec> StudyBuilder::projectSpec(const QString& name, const widgets::RunParameters& p) const {
    if (!draft_.sensitive)
        return Error{
            "the study has no sensitive data set: set it with Study ▸ Set sensitive data… (or drop a file on "
            "\"Sensitive data\" in the project tree)"};
    project::ProjectSpec spec = draft_.basis.value_or(project::ProjectSpec{});
    spec.name = name.toStdString();
    if (!draft_.basis) spec.description = "Study registered in the dpmix workbench.";
    spec.publicSources.clear();
    for (const auto& s : draft_.publicSources) spec.publicSources.push_back({s.source, {}, false, s.resize, s.colour});
    spec.sensitive = {draft_.sensitive->source, {}, draft_.sensitive->userLevel};
    spec.publicTasks = draft_.publicTasks;
    // One public source: its tasks need not name it (the spec reads as a hand-written one does).
    if (spec.publicSources.size() == 1)
        for (auto& t : spec.publicTasks) t.source.clear();
    spec.sensitiveTasks = draft_.sensitiveTasks;

    auto delta = parseDouble(QStringLiteral("delta"), p.delta, QStringLiteral("a number in (0, 1)"));
    if (!delta) return delta.error();
    spec.privacy.epsilons = {p.epsilon};
    spec.privacy.delta = *delta;
    spec.privacy.rho = p.rho;
    spec.privacy.composition = p.composition == widgets::CompositionMode::Sequential ? privacy::Composition::Sequential
                                                                                     : privacy::Composition::Parallel;
    spec.privacy.reproducible = p.reproducible;
    spec.privacy.accountant = engineAccountant(p.accountant);
    spec.privacy.accountantNamed = true;
    spec.mixture.clip = p.clipNorm;
    spec.mixture.batch = p.batchSize;
    spec.mixture.lr = p.learningRate;
    spec.mixture.steps = p.steps;
    spec.pretrain = project::PretrainStage{p.pretrainBatch, p.pretrainLearningRate, p.pretrainSteps};
    spec.finetune.clip = p.finetuneClip;
    spec.finetune.batch = p.finetuneBatch;
    spec.finetune.lr = p.finetuneLearningRate;
    spec.finetune.steps = p.finetuneSteps;
    spec.seeds.clear();
    static const QRegularExpression separators(QStringLiteral("[,\\s]+"));
    for (const QString& item : p.seeds.split(separators, Qt::SkipEmptyParts)) {
        auto seed = parseInteger(QStringLiteral("seeds"), item, QStringLiteral("whole numbers >= 0, comma-separated"));
        if (!seed) return seed.error();
        spec.seeds.push_back(*seed);
    }
    if (spec.seeds.empty())
        return Error{"seeds = \"" + p.seeds.toStdString() + "\" holds no seed: expected whole numbers >= 0"};
    // Without public data the study can only run Private Set Generation, which needs none: it
    // gets the method's default psg section (docs/PSG.md) and opens on the Private set tab.
    if (spec.publicSources.empty() && !spec.psg) spec.psg = project::PsgSection{};
    return spec;
}

StudyDraft draftFromProject(const project::ProjectSpec& spec, const std::vector<project::SourceRecord>& sources) {
    StudyDraft draft;
    for (const project::SourceRecord& record : sources) {
        SourceRegistration r;
        r.source.name = record.name;
        r.source.loader = record.loader;
        r.source.path = record.path;
        const auto options = nlohmann::json::parse(record.optionsJson, nullptr, false);
        if (options.is_object())
            for (const auto& [key, value] : options.items())
                if (value.is_string()) r.source.options[key] = value.get<std::string>();
        r.userLevel = record.userLevel;
        r.facts = record.facts;
        if (record.role == project::SourceRole::Sensitive) {
            draft.sensitive = r;
            continue;
        }
        for (const project::SpecSource& s : spec.publicSources)
            if (s.written.name == record.name) {
                r.resize = s.resize;
                r.colour = s.colour;
            }
        draft.publicSources.push_back(r);
    }
    draft.publicTasks = spec.publicTasks;
    // The draft's public tasks name their source (a one-source spec's need not).
    if (draft.publicSources.size() == 1)
        for (auto& t : draft.publicTasks)
            if (t.source.empty()) t.source = draft.publicSources.front().source.name;
    draft.sensitiveTasks = spec.sensitiveTasks;
    draft.basis = spec;
    return draft;
}

StudyDraftCommand::StudyDraftCommand(StudyBuilder& builder, StudyDraft before, StudyDraft after, const QString& text)
    : QUndoCommand(text), builder_(builder), before_(std::move(before)), after_(std::move(after)) {}

void StudyDraftCommand::undo() { builder_.apply(before_); }
void StudyDraftCommand::redo() { builder_.apply(after_); }

}  // namespace dpmix::workbench
