#include "app/workbench/project/engine_project_store.h"
#include "app/workbench/parameters/accountant_choice.h"
#include "app/workbench/parameters/working_settings.h"

#include "engine/project/schema.h"

#include <QFileInfo>
#include <QJsonDocument>

#include <QStringList>
#include <cmath>

namespace dpmix::workbench {

namespace {

widgets::FinetuneMechanism panelMechanism(methods::FinetuneMechanism m) {
    switch (m) {
        case methods::FinetuneMechanism::DpSgd: return widgets::FinetuneMechanism::DpSgd;
        case methods::FinetuneMechanism::Dirichlet: return widgets::FinetuneMechanism::Dirichlet;
        case methods::FinetuneMechanism::AdamixR: return widgets::FinetuneMechanism::AdamixR;
    }
    return widgets::FinetuneMechanism::DpSgd;  // not reached: every enumerator is a case
}

}  // namespace

widgets::RunParameters parametersFromProject(const ProjectSnapshot& project) {
    const project::ProjectSpec& spec = project.spec;
    widgets::RunParameters p;
    if (!spec.privacy.epsilons.empty()) p.epsilon = spec.privacy.epsilons.front();
    p.delta = QString::number(spec.privacy.delta, 'g', 6);
    p.rho = spec.privacy.rho;
    QStringList seeds;
    for (long long s : spec.seeds) seeds << QString::number(s);
    if (!seeds.isEmpty()) p.seeds = seeds.join(", ");
    p.reproducible = spec.privacy.reproducible;
    p.accountant = panelAccountant(spec.privacy.accountant);
    p.composition = spec.privacy.composition == privacy::Composition::Sequential ? widgets::CompositionMode::Sequential
                                                                                 : widgets::CompositionMode::Parallel;
    p.clipNorm = spec.mixture.clip;
    p.batchSize = static_cast<int>(spec.mixture.batch);
    p.learningRate = spec.mixture.lr;
    p.steps = static_cast<int>(spec.mixture.steps);
    p.pretrainBatch = static_cast<int>(spec.pretrain.batch);
    p.pretrainLearningRate = spec.pretrain.lr;
    p.pretrainSteps = static_cast<int>(spec.pretrain.steps);
    p.finetuneMechanism = panelMechanism(spec.finetune.mechanism);
    if (spec.finetune.adamix()) {
        // AdaMix-R's steps and lr are its T and η; DP-SGD's fields keep their defaults (unused).
        p.adamixSteps = static_cast<int>(spec.finetune.steps);
        p.adamixEta = spec.finetune.lr;
        p.adamixShots = static_cast<int>(spec.finetune.publicShots);
        p.adamixShotsSource = QString::fromStdString(spec.finetune.shotsSource);
        p.adamixRank = spec.finetune.rank ? static_cast<int>(*spec.finetune.rank) : 0;
        p.adamixClipQuantile = spec.finetune.clipQuantile;
        p.adamixQ = spec.finetune.adamixQ;
    } else {
        p.finetuneClip = spec.finetune.clip;
        p.finetuneBatch = static_cast<int>(spec.finetune.batch);
        p.finetuneLearningRate = spec.finetune.lr;
        p.finetuneSteps = static_cast<int>(spec.finetune.steps);
    }
    // n is the sensitive *training* set: the study runner keeps 80% of the examples (or users)
    // for training and holds out the rest for validation and test (data::trainValidationTestSplit).
    constexpr double kTrainFraction = 0.8;
    for (const auto& source : project.sources)
        if (source.role == project::SourceRole::Sensitive) {
            const long long all =
                source.userLevel && source.facts.users > 0 ? source.facts.users : source.facts.examples;
            p.sensitiveCount = std::llround(kTrainFraction * static_cast<double>(all));
        }
    // What File ▸ Save stored last replaces the spec's values (a key it cannot read is skipped:
    // the spec's value stays).
    if (!project.workingSettingsJson.isEmpty())
        p = withWorkingSettings(p, QJsonDocument::fromJson(project.workingSettingsJson.toUtf8()).object());
    return p;
}

QString EngineProjectStore::schemaVersion() const { return QString::number(project::kSchemaVersion); }

Result<widgets::RunParameters> EngineProjectStore::open(const QString& path) {
    auto snapshot = load(path);
    if (!snapshot) return snapshot.error();
    return parametersFromProject(*snapshot);
}

Status EngineProjectStore::save(const QString& path, const widgets::RunParameters& parameters) {
    // The settings go into the project itself; a project is never copied here (its runs' model
    // files live in the folder beside it), so saving to another name is refused.
    if (!QFileInfo::exists(path))
        return Error{(path + ": nothing was written: an open project saves into its own file. To start a new study "
                             "from this one, use Study ▸ Duplicate study with changes…; to copy a project, copy its "
                             ".dpmix file together with its folder of models.")
                         .toStdString()};
    auto file = project::ProjectFile::open(path.toStdString(), project::OpenMode::ReadWrite);
    if (!file) return file.error();
    project::ProjectFile project = std::move(file).value();
    const QByteArray json = QJsonDocument(workingSettingsJson(parameters)).toJson(QJsonDocument::Compact);
    return project.saveWorkingSettings(json.toStdString());
}

Result<ProjectSnapshot> EngineProjectStore::load(const QString& path) {
    if (!QFileInfo::exists(path)) return Error{(path + ": no such file").toStdString()};
    return loadProjectSnapshot(path);
}

Result<QString> EngineProjectStore::createFromSpec(const QString& specPath) {
    if (!specPath.endsWith(QStringLiteral(".json"), Qt::CaseInsensitive))
        return Error{(specPath + ": a spec must be a .json file").toStdString()};
    auto file = project::openOrCreateFromSpecOrProject(specPath.toStdString(), summarize_);
    if (!file) return file.error();
    return QString::fromStdString(file->path().string());
}

Result<QString> EngineProjectStore::exportRelease(const QString& projectPath, const QString& target,
                                                  const project::ReleaseOptions& options) {
    auto source = project::ProjectFile::open(projectPath.toStdString(), project::OpenMode::ReadOnly);
    if (!source) return source.error();
    auto chain = source->verifyChain();
    if (!chain) return chain.error();
    if (!chain->ok)
        return Error{
            (projectPath + ": its hash chain does not verify: a release is only exported from an intact project")
                .toStdString()};
    auto summary = project::exportRelease(*source, target.toStdString(), options);
    if (!summary) return summary.error();
    const auto& m = summary->manifest;
    return QStringLiteral("Wrote %1: %2 run(s), %3 DP release(s) composed to ε %4 at δ %5%6")
        .arg(QString::fromStdString(summary->file.string()))
        .arg(m.runs.size())
        .arg(m.releases)
        .arg(m.epsilon, 0, 'f', 3)
        .arg(m.delta, 0, 'g', 3)
        .arg(m.includesTestMetrics ? QStringLiteral("; includes test metrics, NOT covered by the guarantee")
                                   : QString());
}

}  // namespace dpmix::workbench
