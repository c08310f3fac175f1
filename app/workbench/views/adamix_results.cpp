#include "app/workbench/views/adamix_results.h"

#include "engine/project/project_file.h"

#include <QObject>

namespace dpmix::workbench {
namespace {

void fillExamples(AdamixEstimates& estimates, const experiments::AdamixPerExample& record,
                  const std::vector<std::string>& classes) {
    estimates.epsilon = record.datasetEpsilon;
    estimates.spearmanIsolation = record.spearmanIsolation;
    estimates.spearmanLoss = record.spearmanLoss;
    estimates.examples.clear();
    estimates.examples.reserve(record.sourceIndex.size());
    for (std::size_t i = 0; i < record.sourceIndex.size(); ++i) {
        AdamixExampleEstimate e;
        e.sourceIndex = record.sourceIndex[i];
        const int label = i < record.labels.size() ? record.labels[i] : -1;
        e.label = label >= 0 && static_cast<std::size_t>(label) < classes.size()
                      ? QString::fromStdString(classes[static_cast<std::size_t>(label)])
                      : QString::number(label);
        const auto at = static_cast<Eigen::Index>(i);
        e.epsilon = record.epsilon[at];
        if (at < record.isolation.size()) e.isolation = record.isolation[at];
        if (at < record.loss.size()) e.loss = record.loss[at];
        estimates.examples.push_back(e);
    }
}

}  // namespace

AdamixExperiment adamixExperimentFrom(const experiments::StoredAdamixExperiment& stored) {
    AdamixExperiment out;
    out.runId = stored.runId;
    out.privateSource = QString::fromStdString(stored.setup.privateSource);
    out.title = QObject::tr("run %1: %2 private, extractor from %3")
                    .arg(stored.runId)
                    .arg(out.privateSource, QString::fromStdString(stored.setup.extractorSource));
    const bool loaded = !stored.result.perExample.empty();
    out.examplesLoaded = loaded;
    for (const auto& c : stored.result.cells) {
        AdamixCell cell;
        cell.method = QString::fromLatin1(experiments::adamixMethodName(c.method));
        if (c.epsilon) cell.epsilon = *c.epsilon;
        cell.shots = c.shots;
        cell.perClass = c.privatePerClass;
        cell.seed = c.seed;
        cell.testError = c.testError;
        cell.errorIncrease = c.errorIncrease;
        out.cells.push_back(cell);
        if (c.perExample < 0) continue;
        AdamixEstimates e;
        e.epsilon = c.certifiedEpsilon > 0.0 ? c.certifiedEpsilon : cell.epsilon;
        e.delta = c.delta;
        e.shots = c.shots;
        e.perClass = c.privatePerClass;
        e.seed = c.seed;
        e.record = c.perExample;
        if (loaded && static_cast<std::size_t>(c.perExample) < stored.result.perExample.size())
            fillExamples(e, stored.result.perExample[static_cast<std::size_t>(c.perExample)], stored.setup.classes);
        out.estimates.push_back(std::move(e));
    }
    return out;
}

AdamixEstimatesLoader projectEstimatesLoader(const QString& path) {
    return [path](AdamixExperiment& experiment) -> QString {
        auto file = project::ProjectFile::open(path.toStdString(), project::OpenMode::ReadOnly);
        if (!file) return QString::fromStdString(file.error().message);
        auto stored = experiments::readAdamixExperiment(*file, experiment.runId, true);
        if (!stored) return QString::fromStdString(stored.error().message);
        for (auto& e : experiment.estimates) {
            if (e.record < 0 || static_cast<std::size_t>(e.record) >= stored->result.perExample.size())
                return QObject::tr("run %1 has no per-example record %2").arg(experiment.runId).arg(e.record);
            fillExamples(e, stored->result.perExample[static_cast<std::size_t>(e.record)], stored->setup.classes);
        }
        experiment.examplesLoaded = true;
        return {};
    };
}

}  // namespace dpmix::workbench
