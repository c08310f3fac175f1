#include "app/workbench/study/engine_study_creator.h"

#include "engine/project/project_file.h"
#include "engine/project/spec_json.h"

#include <QFileInfo>

namespace dpmix::workbench {

Result<QString> EngineStudyCreator::create(const QString& path, const project::ProjectSpec& spec) {
    const QFileInfo target(path);
    if (target.suffix().compare(QStringLiteral("dpmix"), Qt::CaseInsensitive) != 0)
        return Error{(path + ": a project file must end in .dpmix").toStdString()};
    if (target.exists())
        return Error{(path + ": the file exists; choose a new name (a project is never overwritten)").toStdString()};
    const std::filesystem::path file = target.absoluteFilePath().toStdString();
    // Round trip through the spec JSON: one validation for specs typed by hand and specs built
    // here, and the written spec is exactly what the project records.
    project::SpecLocation where{file.parent_path(), project::defaultDataDir(file), true};
    auto validated = project::parseProjectSpec(project::projectSpecToJson(spec), where, "study");
    if (!validated) return validated.error();
    auto facts = project::summarizeSources(*validated, summarize_);
    if (!facts) return facts.error();
    auto created = project::ProjectFile::create(file, *validated, *facts, false);
    if (!created) return created.error();
    return QString::fromStdString(created->path().string());
}

}  // namespace dpmix::workbench
