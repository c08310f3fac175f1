#include "app/workbench/study/engine_study_creator.h"

#include "engine/project/project_file.h"
#include "engine/project/spec_json.h"

#include <QFileInfo>

namespace dpmix::workbench {

namespace {

// A project may be replaced only while nothing was run in it: no run, no ledger, no result.
Status refuseUnlessRunless(const QString& path) {
    auto existing = project::ProjectFile::open(path.toStdString(), project::OpenMode::ReadWrite);
    if (!existing) return existing.error();
    if (existing->isRelease()) return Error{(path + ": a DP release is never replaced").toStdString()};
    auto runs = existing->runs();
    if (!runs) return runs.error();
    if (!runs->empty())
        return Error{
            (path + QStringLiteral(": the project has %1 run(s), so its sources and tasks are fixed; use Study "
                                   "▸ Duplicate study with changes… to start a new study from it")
                        .arg(runs->size()))
                .toStdString()};
    return std::nullopt;
}

}  // namespace

Result<QString> EngineStudyCreator::create(const QString& path, const project::ProjectSpec& spec, bool replaceRunless) {
    const QFileInfo target(path);
    if (target.suffix().compare(QStringLiteral("dpmix"), Qt::CaseInsensitive) != 0)
        return Error{(path + ": a project file must end in .dpmix").toStdString()};
    if (target.exists() && !replaceRunless)
        return Error{(path + ": the file exists; choose a new name (a project is never overwritten)").toStdString()};
    if (target.exists())
        if (auto refused = refuseUnlessRunless(path)) return *refused;
    const std::filesystem::path file = target.absoluteFilePath().toStdString();
    // Round trip through the spec JSON: one validation for specs typed by hand and specs built
    // here, and the written spec is exactly what the project records.
    project::SpecLocation where{file.parent_path(), project::defaultDataDir(file), true};
    auto validated = project::parseProjectSpec(project::projectSpecToJson(spec), where, "study");
    if (!validated) return validated.error();
    auto facts = project::summarizeSources(*validated, summarize_);
    if (!facts) return facts.error();
    auto created = project::ProjectFile::create(file, *validated, *facts, replaceRunless && target.exists());
    if (!created) return created.error();
    return QString::fromStdString(created->path().string());
}

}  // namespace dpmix::workbench
